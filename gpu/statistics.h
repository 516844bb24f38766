// Process-wide counters of the GPU backend, read by jit::gpu::stats() through
// jit::gpu::detail::add_backend_statistics (the caches' counters are the
// pipeline's: runtime/cache/kernels.cpp).
#pragma once

#include <atomic>
#include <cstdint>

namespace augur::gpu {

struct Counters {
  std::atomic<std::uint64_t> nvrtc_compiles{0};
  std::atomic<std::uint64_t> nvrtc_nanoseconds{0};
  std::atomic<std::uint64_t> module_loads{0};
  std::atomic<std::uint64_t> launches{0};
  std::atomic<std::uint64_t> fallback_compiles{0};
  std::atomic<std::uint64_t> fallback_launches{0};
};

Counters& counters();

}  // namespace augur::gpu
