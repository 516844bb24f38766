// The backends the runtime's pipelines compile with, by declaration only:
// each is defined in its backend's folder (cpu_backend in
// jit/cpu/cpu_backend.cpp), so that no runtime file includes a backend's
// header and the pipeline sees nothing but the Backend interface.
#pragma once

#include <memory>

#include "jit/compile_options.h"
#include "runtime/compile/backend.h"

namespace augur::compile {

// The CPU backend (LLVM ORC) with jit::compile's `options`: the C ABI entry
// only (jit::function calls nothing else), the dumps they ask for.
std::unique_ptr<const Backend> cpu_backend(const jit::compile_options& options);

}  // namespace augur::compile
