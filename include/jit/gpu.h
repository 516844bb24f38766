// GPU kernels from staged C++: jit::gpu::compile(fn, static args...) runs
// the first stage of `fn` as a kernel, specialized on the static arguments,
// and compiles it with NVRTC for the GPU (loading it through the CUDA driver,
// opened at run time), or for the CPU with the grid emulated where there is
// no GPU. docs/gpu.md explains the model.
//
//   kernel.h      jit::gpu::compile, compile_async, kernel<Args...>::launch
//   intrinsics.h  thread_idx_x() ... global_id_x(), shared_array, barrier, atomics
//   memory.h      buffer<T>, stream
//   options.h     options, target, backend, dim3
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "jit/gpu/intrinsics.h"
#include "jit/gpu/kernel.h"
#include "jit/gpu/memory.h"
#include "jit/gpu/options.h"

namespace jit::gpu {

// Whether a CUDA device can be used: libcuda.so.1 loads, cuInit succeeds,
// and there is a device (AUGUR_GPU_DEVICE, default 0; AUGUR_GPU_DISABLE=1
// hides it).
bool available();
// Why not, when available() is false ("the CUDA driver (libcuda.so.1) could
// not be loaded: ..."); empty otherwise.
std::string unavailable_reason();

struct device_info {
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  std::size_t memory_bytes = 0;
  int driver_version = 0;  // 13000 for CUDA 13.0
  std::string arch;        // "sm_90"
};
// The device kernels run on; a jit::gpu_error with the reason where none is available.
device_info device();

// Waits until the device has finished all work launched so far.
void synchronize();

// What the GPU backend has done since the process started.
struct statistics {
  std::uint64_t nvrtc_compiles = 0;
  std::chrono::nanoseconds nvrtc_time{0};
  // Requests for a kernel whose key (generator, options, static arguments)
  // was compiled before, and the others, which stage and compile it (or wait
  // for the thread compiling it).
  std::uint64_t memory_hits = 0;
  std::uint64_t memory_misses = 0;
  std::uint64_t compiles = 0;  // the misses that staged and compiled
  std::uint64_t failures = 0;  // compiles that threw (nothing is cached)
  // Compiles whose program (the staged IR, for the same backend and options)
  // another key had compiled and a kernel still holds: its code is shared.
  std::uint64_t programs_shared = 0;
  std::uint64_t disk_hits = 0;  // kernels (images, fallback code) loaded from the disk cache
  std::uint64_t disk_misses = 0;
  // Corrupt, foreign, untrusted or odd cache files, rebuilt and replaced.
  std::uint64_t disk_rejected = 0;
  std::uint64_t disk_writes = 0;
  std::uint64_t disk_write_failures = 0;
  // Compiles that ran without the disk cache because its directory was
  // refused (docs/compile.md, "Security"; reported once per directory).
  std::uint64_t disk_refused = 0;
  // The remote cache behind the disk cache, as jit::cache_statistics counts
  // it for jit::compile (cache.h; docs/compile.md, "Remote cache").
  std::uint64_t remote_hits = 0;
  std::uint64_t remote_misses = 0;
  std::uint64_t remote_writes = 0;
  std::uint64_t remote_rejected = 0;
  std::uint64_t remote_errors = 0;
  std::uint64_t remote_skipped = 0;
  std::uint64_t remote_waits = 0;
  std::uint64_t remote_wait_timeouts = 0;
  std::uint64_t remote_off = 0;
  std::chrono::nanoseconds remote_time{0};
  std::uint64_t module_loads = 0;  // cuModuleLoadData calls
  std::uint64_t launches = 0;      // kernel launches on the GPU
  std::uint64_t fallback_compiles = 0;
  std::uint64_t fallback_launches = 0;
};
statistics stats();

// The in-memory cache's capacity (default 256 kernels by key), and emptying
// it (compiled kernels in use stay loaded, and equal programs share them).
void set_cache_capacity(std::size_t kernels);
void clear_cache();

}  // namespace jit::gpu
