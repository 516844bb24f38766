// IR → CUDA C++ for NVRTC: readable, deterministic (the same module always
// gives the same text, so sources are golden-tested and hashed for the
// caches), with exactly the IR's semantics (docs/ir.md; cuda_expr.h lists
// how). Kernels become `extern "C" __global__` functions, other functions
// `extern "C" __device__` ones.
//
// Shared arrays are declared at the top of their kernel and zeroed by the
// block's threads before anything else, followed by a __syncthreads(): the IR
// gives every block zeroed shared memory, CUDA gives it uninitialized.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/ir/ir.h"

namespace augur::gpu {

struct CudaFunctionName {
  std::string ir;    // the IR function's name
  std::string cuda;  // its name in the source (what cuModuleGetFunction takes)
  bool kernel = false;
};

struct CudaSource {
  std::string text;
  std::vector<CudaFunctionName> functions;  // in module order

  // The C++ name of IR function `ir_name`; throws jit::error if there is none.
  const std::string& cuda_name(const std::string& ir_name) const;
};

// `module` must verify. Throws jit::compile_error naming the function and
// statement path for what cannot run on a GPU: calls to host functions.
// Expressions and statement nesting deeper than this are a jit::compile_error:
// the writers recurse once per level, on any thread's stack.
inline constexpr std::size_t kMaxCudaDepth = 1000;

CudaSource emit_cuda(const ir::Module& module);

}  // namespace augur::gpu
