// Process-wide counters of the GPU backend, read by jit::gpu::stats().
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/cache/disk_caches.h"

namespace augur::gpu {

struct Counters {
  std::atomic<std::uint64_t> nvrtc_compiles{0};
  std::atomic<std::uint64_t> nvrtc_nanoseconds{0};
  // Kernels whose image or fallback code was in memory for another key.
  std::atomic<std::uint64_t> programs_shared{0};
  cache::DiskCounters disk;  // of images
  std::atomic<std::uint64_t> module_loads{0};
  std::atomic<std::uint64_t> launches{0};
  std::atomic<std::uint64_t> fallback_compiles{0};
  std::atomic<std::uint64_t> fallback_launches{0};
};

Counters& counters();

}  // namespace augur::gpu
