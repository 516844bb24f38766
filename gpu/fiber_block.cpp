#include "gpu/fiber_block.h"

#include <string>

#include "jit/error.h"

namespace augur::gpu {

namespace {

// Compiled kernels need little stack; sanitizers make frames larger.
constexpr std::size_t kStackBytes = 256 * 1024;

}  // namespace

void FiberBlock::body(void* thread) {
  auto* t = static_cast<Thread*>(thread);
  t->block->entry_(t->block->args_, t->context.data(), t->block->shared_);
}

void FiberBlock::barrier() {
  Fiber::yield();
}

void FiberBlock::run(const std::uint64_t* args, ir::Dim3 grid, ir::Dim3 block,
                     std::array<std::uint32_t, 3> block_idx, void* shared,
                     const std::string& kernel) {
  args_ = args;
  shared_ = shared;
  const std::size_t count = std::size_t{block.x} * block.y * block.z;
  if (threads_.size() < count) threads_.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    Thread& t = threads_[i];
    if (!t.fiber) t.fiber = std::make_unique<Fiber>(kStackBytes);
    t.block = this;
    const auto id = static_cast<std::uint32_t>(i);
    t.context = {static_cast<std::int32_t>(id % block.x),
                 static_cast<std::int32_t>(id / block.x % block.y),
                 static_cast<std::int32_t>(id / block.x / block.y),
                 static_cast<std::int32_t>(block_idx[0]),
                 static_cast<std::int32_t>(block_idx[1]),
                 static_cast<std::int32_t>(block_idx[2]),
                 static_cast<std::int32_t>(block.x),
                 static_cast<std::int32_t>(block.y),
                 static_cast<std::int32_t>(block.z),
                 static_cast<std::int32_t>(grid.x),
                 static_cast<std::int32_t>(grid.y),
                 static_cast<std::int32_t>(grid.z)};
    t.fiber->reset(&FiberBlock::body, &t);
  }
  // Rounds: every thread runs to its next barrier or its end.
  while (true) {
    std::size_t finished = 0;
    std::size_t waiting = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (threads_[i].fiber->resume()) {
        ++finished;
      } else {
        ++waiting;
      }
    }
    if (waiting == 0) return;
    if (finished > 0) {
      throw jit::error("kernel '" + kernel + "' on the CPU fallback: in block (" +
                       std::to_string(block_idx[0]) + ", " + std::to_string(block_idx[1]) + ", " +
                       std::to_string(block_idx[2]) + "), " + std::to_string(finished) +
                       " threads finished while " + std::to_string(waiting) +
                       " waited at a barrier (every thread of a block must reach the same "
                       "barriers)");
    }
  }
}

}  // namespace augur::gpu
