// NVRTC: CUDA C++ → a cubin for a real architecture ("sm_90") or PTX for a
// virtual one ("compute_90"). IEEE semantics are fixed by the options Augur
// always passes (no fast math, no contraction of a*b+c: --fmad=false); the
// caller's extra options come after them.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace augur::gpu {

struct NvrtcImage {
  std::string bytes;  // the cubin, or the PTX text with its terminating NUL
  bool cubin = false;
  std::string log;  // NVRTC's warnings, if any
};

// Whether Augur was built with NVRTC.
bool have_nvrtc();
// "13.0", or "none" without NVRTC. Part of every cache key.
std::string nvrtc_version();
// The real architectures NVRTC can generate cubins for ("sm_75", ...), lowest first.
std::vector<std::string> nvrtc_architectures();

// The options Augur passes before the caller's, for `arch`.
std::vector<std::string> nvrtc_base_options(const std::string& arch);

// Compiles `source` (named `file` in NVRTC's messages). Throws
// jit::compile_error with NVRTC's log if it fails, for an architecture that is
// neither "sm_NN" nor "compute_NN", and when Augur was built without NVRTC.
NvrtcImage nvrtc_compile(const std::string& source, const std::string& file,
                         const std::string& arch, std::span<const std::string> extra_options);

}  // namespace augur::gpu
