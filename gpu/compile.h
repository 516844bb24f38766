// From a kernel's IR (staged and optimized: runtime/cache/kernels.cpp) to a
// launchable KernelCode:
//
//   verify → CUDA C++ (cuda_emitter.h) → GPU:  image (image.h: memory cache,
//                                              disk cache, NVRTC) → module
//                                        CPU:  the fallback (fallback.h),
//                                              cached by its IR
//
// Those caches are keyed by program, so kernels of different generators or
// static arguments that are equal programs share their compiled code.
//
// AUGUR_DUMP=cuda (or all) prints each kernel's CUDA source to stderr.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>

#include "gpu/kernel_code.h"
#include "jit/gpu/options.h"
#include "runtime/cache/disk_cache.h"
#include "runtime/ir/ir.h"

namespace augur::gpu {

// The backend `where` means here; target::cuda without a device throws
// jit::gpu_error with the reason.
jit::gpu::backend resolve_backend(jit::gpu::target where);

// The disk cache root the options select, if any.
std::optional<std::filesystem::path> disk_cache_dir(const jit::gpu::options& options);
// Who besides this user the disk cache directory trusts: the option, or for
// AUGUR_CACHE_DIR, AUGUR_CACHE_SHARED.
cache::DirectoryTrust disk_cache_trust(const jit::gpu::options& options);

// Compiles the one kernel of `module`. Throws jit::verify_error,
// jit::compile_error (host calls in the kernel, NVRTC's log, the CPU
// backend's errors) and jit::gpu_error.
std::shared_ptr<const KernelCode> compile_kernel(const ir::Module& module,
                                                 const jit::gpu::options& options);

// The CPU fallback's cache of compiled kernels: its capacity (default 256
// kernels), and emptying it (kernels in use stay).
void set_fallback_cache_capacity(std::size_t kernels);
void clear_fallback_cache();

}  // namespace augur::gpu
