// The CPU fallback: the same kernel IR compiled by the CPU backend, the grid
// emulated. Blocks run in parallel on TBB. A kernel without barriers runs
// through augur::cpu's own kernel support (its block function runs the
// block's threads one after another); a kernel with barriers becomes a
// thread function whose threads run as fibers (thread_function.h,
// fiber_block.h).
#pragma once

#include <memory>
#include <string>

#include "gpu/kernel_code.h"
#include "jit/cpu/abi.h"
#include "jit/cpu/compiled_code.h"
#include "runtime/compile/backend.h"
#include "runtime/ir/externs.h"
#include "runtime/ir/ir.h"

namespace augur::gpu {

// What the CPU backend compiles for a kernel on the fallback, and how it runs.
struct FallbackProgram {
  ir::Module module;  // the kernel alone, or its thread function
  std::string entry;  // the function launches call
  bool fibers = false;
  cpu::SharedLayout shared;                  // with fibers: the kernel's shared arrays
  const ir::ExternTable* externs = nullptr;  // what it calls: the barrier, or nothing
};

// `kernel` must verify and call no externs.
FallbackProgram fallback_program(const ir::Function& kernel);

class FallbackKernel final : public KernelCode {
 public:
  // Runs `kernel` as `program`, whose code the CPU backend made.
  FallbackKernel(const ir::Function& kernel, FallbackProgram program,
                 std::shared_ptr<const compile::Code> code, std::string ir,
                 std::string cuda_source);

  void launch(const LaunchConfig& config) const override;

  bool uses_fibers() const { return fibers_; }

 private:
  void launch_with_fibers(const LaunchConfig& config) const;

  std::shared_ptr<const cpu::CompiledCode> code_;
  std::string entry_;  // the kernel, or its thread function
  bool fibers_ = false;
  cpu::SharedLayout shared_;
  std::size_t params_ = 0;
};

}  // namespace augur::gpu
