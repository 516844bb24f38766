// LLVM's command-line options the CPU backend sets for the process.
//
// LLVM bounds some optimizations with caps sized for hand-written functions;
// staged code passes them routinely, and the backend already bounds what it
// hands LLVM (split_plan.h), so those caps only cost code speed there. The
// options are process-wide: they are set once, before the first compilation,
// and an option the host application has set itself (through
// llvm::cl::ParseCommandLineOptions) is left as it is. docs/cpu.md lists them.
#pragma once

#include <string>
#include <vector>

namespace augur::cpu {

// Sets the options (once; thread-safe).
void set_llvm_options();

// The backend's options that are not in effect after set_llvm_options: one
// this LLVM does not know (renamed in a later version: the compilations it
// bounded then cost what it saved) or did not accept. An option the host
// application set itself counts as in effect.
std::vector<std::string> llvm_options_not_in_effect();

}  // namespace augur::cpu
