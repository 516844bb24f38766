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
#include "runtime/ir/ir.h"

namespace augur::gpu {

class FallbackKernel final : public KernelCode {
 public:
  // Compiles `kernel` (verified, calling no externs) at `opt_level`. Throws
  // jit::compile_error if the CPU backend fails.
  FallbackKernel(const ir::Function& kernel, int opt_level, std::string ir,
                 std::string cuda_source);

  void launch(const LaunchConfig& config) const override;

  bool uses_fibers() const { return fibers_; }

 private:
  void launch_with_fibers(const LaunchConfig& config) const;

  std::shared_ptr<cpu::CompiledCode> code_;
  std::string entry_;  // the kernel, or its thread function
  bool fibers_ = false;
  cpu::SharedLayout shared_;
  std::size_t params_ = 0;
};

}  // namespace augur::gpu
