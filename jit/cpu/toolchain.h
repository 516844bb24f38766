// What compiles LLVM modules for one target and opt level: a TargetMachine
// and the pipelines built for it, lent to one compilation at a time.
//
// Building them is most of a small function's compile time when done per
// compilation: the TargetMachine's first subtarget (X86's feature tables and
// lowering setup), the O2 pass pipeline and the code generator's legacy pass
// pipeline. Kept in a pool, each is built once per thread that compiles
// concurrently, for each (CPU, features, opt level).
#pragma once

#include <memory>
#include <string>

#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include "jit/cpu/options.h"
#include "jit/cpu/pipeline.h"

namespace augur::cpu {

struct Toolchain {
  std::string key;  // the options it was built for (cpu, features, opt level)
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<OptimizationPipeline> optimization;
  std::unique_ptr<ObjectEmitter> emitter;
};

// A toolchain borrowed from the pool; returned when the lease ends, unless
// discarded (after a failure, whose state LLVM does not promise to undo).
class ToolchainLease {
 public:
  explicit ToolchainLease(std::unique_ptr<Toolchain> toolchain)
      : toolchain_(std::move(toolchain)) {}
  ToolchainLease(ToolchainLease&&) noexcept = default;
  ToolchainLease& operator=(ToolchainLease&&) = delete;
  ~ToolchainLease();

  Toolchain& operator*() const { return *toolchain_; }
  Toolchain* operator->() const { return toolchain_.get(); }
  void discard() { toolchain_.reset(); }

 private:
  std::unique_ptr<Toolchain> toolchain_;
};

// An idle toolchain for `options`, or a new one.
llvm::Expected<ToolchainLease> lease_toolchain(const Options& options);

}  // namespace augur::cpu
