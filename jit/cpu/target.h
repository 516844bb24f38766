// The machine the CPU backend compiles for: the host, or the CPU and features
// that Options name.
#pragma once

#include <memory>

#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include "jit/cpu/options.h"

namespace augur::cpu {

// Registers the host's LLVM target and sets the LLVM options the backend
// relies on (llvm_options.h), once; thread-safe.
void initialize_native_target();

// Throws jit::compile_error for an opt level outside 0..3, or a CPU or feature
// LLVM does not know for the host's architecture.
void check_options(const Options& options);

// A fresh TargetMachine (one per compilation: they are not thread-safe), with
// the relocation and code models the JIT linker expects.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> target_machine(const Options& options);

}  // namespace augur::cpu
