// The backends the runtime's pipelines compile with, by declaration only:
// each is defined in its backend's folder (cpu_backend in
// jit/cpu/cpu_backend.cpp, gpu_backend in gpu/gpu_backend.cpp), so that no
// runtime file includes a backend's header and the pipeline sees nothing but
// the Backend interface.
#pragma once

#include <memory>

#include "jit/compile_options.h"
#include "jit/gpu/options.h"
#include "runtime/compile/backend.h"

namespace augur::compile {

// The CPU backend (LLVM ORC) with jit::compile's `options`: the C ABI entry
// only (jit::function calls nothing else), the dumps they ask for.
std::unique_ptr<const Backend> cpu_backend(const jit::compile_options& options);

// The GPU backend for jit::gpu::compile's `options`: NVRTC and the driver
// where options.where resolves to the GPU, else the CPU fallback. Its code is
// a kernel, and a kernel's entry the launchable object (Backend::entry).
// Throws jit::gpu_error for target::cuda where no GPU is available.
std::unique_ptr<const Backend> gpu_backend(const jit::gpu::options& options);

}  // namespace augur::compile
