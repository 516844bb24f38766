// LLVM's command-line options the CPU backend sets for the process.
//
// LLVM bounds some optimizations with caps sized for hand-written functions;
// staged code passes them routinely, and the backend already bounds what it
// hands LLVM (split_plan.h), so those caps only cost code speed there. The
// options are process-wide: they are set once, before the first compilation,
// and an option the host application has set itself (through
// llvm::cl::ParseCommandLineOptions) is left as it is. docs/cpu.md lists them.
#pragma once

namespace augur::cpu {

// Sets the options (once; thread-safe).
void set_llvm_options();

}  // namespace augur::cpu
