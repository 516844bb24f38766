// Runs the threads of one block of a kernel with barriers on the CPU: each
// thread is a fiber running the kernel's thread function (thread_function.h);
// the barrier extern yields to the block's scheduler, which resumes every
// thread in turn and starts the next round once all of them wait at a
// barrier. A thread that finishes while others wait is barrier divergence
// (undefined on a GPU): the block stops with a jit::error.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/fiber.h"
#include "runtime/ir/interp.h"

namespace augur::gpu {

using ThreadEntry = void (*)(const std::uint64_t* args, const std::int32_t* context, void* shared);

class FiberBlock {
 public:
  explicit FiberBlock(ThreadEntry entry) : entry_(entry) {}

  // Runs every thread of block `block_idx` to its end; `shared` is the
  // block's zeroed shared memory. Throws jit::error on barrier divergence.
  void run(const std::uint64_t* args, ir::Dim3 grid, ir::Dim3 block,
           std::array<std::uint32_t, 3> block_idx, void* shared, const std::string& kernel);

  // The barrier extern: called by a thread function inside a fiber.
  static void barrier();

 private:
  struct Thread {
    std::unique_ptr<Fiber> fiber;
    std::array<std::int32_t, 12> context{};
    FiberBlock* block = nullptr;
  };
  static void body(void* thread);

  ThreadEntry entry_;
  const std::uint64_t* args_ = nullptr;
  void* shared_ = nullptr;
  std::vector<Thread> threads_;  // reused from block to block
};

}  // namespace augur::gpu
