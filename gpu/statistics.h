// Process-wide counters of the GPU backend, read by jit::gpu::stats().
#pragma once

#include <atomic>
#include <cstdint>

namespace augur::gpu {

struct Counters {
  std::atomic<std::uint64_t> nvrtc_compiles{0};
  std::atomic<std::uint64_t> nvrtc_nanoseconds{0};
  std::atomic<std::uint64_t> memory_hits{0};
  std::atomic<std::uint64_t> memory_misses{0};
  std::atomic<std::uint64_t> disk_hits{0};
  std::atomic<std::uint64_t> disk_misses{0};
  std::atomic<std::uint64_t> disk_rejected{0};  // corrupt or foreign files, rebuilt
  std::atomic<std::uint64_t> disk_writes{0};
  std::atomic<std::uint64_t> disk_write_failures{0};
  std::atomic<std::uint64_t> disk_refused{0};  // compiles whose cache directory was refused
  std::atomic<std::uint64_t> module_loads{0};
  std::atomic<std::uint64_t> launches{0};
  std::atomic<std::uint64_t> fallback_compiles{0};
  std::atomic<std::uint64_t> fallback_launches{0};
};

Counters& counters();

}  // namespace augur::gpu
