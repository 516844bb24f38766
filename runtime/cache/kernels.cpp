// jit::gpu::compile's pipeline and the kernel caches' public entry points
// (jit/gpu/kernel.h, jit/gpu.h), the GPU twin of api.cpp and pipeline.cpp:
//
//   key (generator, options, static arguments) → this thread's LocalCache →
//   the kernels' SpecializationCache (one compilation per key, deadlocks
//   detected) → stage → PEG at O2+ (user rules) → the GPU backend
//   (gpu/compile.h), which shares images and fallback code between keys
//   whose programs are equal.
//
// Kernels have their own caches, not jit::compile's: a kernel is no native
// entry point, and jit::gpu::clear_cache() and set_cache_capacity() act on
// kernels alone.
#include <memory>
#include <string>

#include "gpu/compile.h"
#include "gpu/image.h"
#include "gpu/statistics.h"
#include "jit/error.h"
#include "jit/gpu.h"
#include "runtime/cache/local_cache.h"
#include "runtime/cache/pipeline.h"
#include "runtime/cache/specialization_cache.h"
#include "runtime/stage/extract.h"

namespace augur::cache {
namespace {

constexpr std::size_t kDefaultCapacity = 256;

SpecializationCache& kernels() {
  // Never destroyed: kernels may be launched until the process exits.
  static auto* const cache = new SpecializationCache("jit::gpu::compile", kDefaultCapacity);
  return *cache;
}

LocalCache& local_kernels() {
  thread_local LocalCache cache(kernels());
  return cache;
}

std::shared_ptr<const gpu::KernelCode> stage_and_compile(const jit::detail::generator& gen,
                                                         const jit::gpu::options& options) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    throw jit::error(
        "jit::gpu::compile: opt level " + std::to_string(options.opt_level) + " is not in 0..3",
        jit::location::in_function(options.name));
  }
  jit::extract_options extraction;
  extraction.name = options.name;
  extraction.kernel = true;
  ir::Module module = stage::extract(gen, extraction).module;
  // A kernel cannot call the host, so no extern is offered to user rules:
  // a rule that would introduce a call does not apply (runtime/peg/user_rules.h).
  static const ir::ExternTable no_externs;
  optimize(module, options.opt_level, no_externs);
  return gpu::compile_kernel(module, options);
}

}  // namespace
}  // namespace augur::cache

namespace jit::gpu {

namespace detail {

std::shared_ptr<const kernel_code> find_kernel(std::string_view key, std::uint64_t hash) noexcept {
  jit::detail::compiled_entry entry;
  if (!augur::cache::local_kernels().find(key, hash, entry)) return nullptr;
  return std::static_pointer_cast<const kernel_code>(std::move(entry.owner));
}

std::shared_ptr<const kernel_code> compile(std::string_view key, std::uint64_t hash,
                                           const jit::detail::generator& gen, const options& opts) {
  using namespace augur::cache;
  const Found found =
      kernels().get(key, hash, opts.name, [&]() -> Value { return stage_and_compile(gen, opts); });
  local_kernels().remember(key, hash, found, nullptr, nullptr);
  return std::static_pointer_cast<const kernel_code>(found.value);
}

}  // namespace detail

statistics stats() {
  using namespace augur::cache;
  const augur::gpu::Counters& c = augur::gpu::counters();
  const SharedCounters keyed = kernels().counters();
  statistics s;
  s.nvrtc_compiles = c.nvrtc_compiles;
  s.nvrtc_time = std::chrono::nanoseconds(c.nvrtc_nanoseconds.load());
  s.memory_hits = keyed.hits + LocalCache::total_hits(kernels());
  s.memory_misses = keyed.misses;
  s.compiles = keyed.compiles;
  s.failures = keyed.failures;
  s.programs_shared = c.programs_shared;
  s.disk_hits = c.disk.hits;
  s.disk_misses = c.disk.misses;
  s.disk_rejected = c.disk.rejected;
  s.disk_writes = c.disk.writes;
  s.disk_write_failures = c.disk.write_failures;
  s.disk_refused = c.disk.refused;
  s.module_loads = c.module_loads;
  s.launches = c.launches;
  s.fallback_compiles = c.fallback_compiles;
  s.fallback_launches = c.fallback_launches;
  return s;
}

void set_cache_capacity(std::size_t kernels) {
  augur::cache::kernels().set_capacity(kernels);
  augur::gpu::set_image_cache_capacity(kernels);
  augur::gpu::set_fallback_cache_capacity(kernels);
}

void clear_cache() {
  augur::cache::kernels().clear();
  augur::gpu::clear_image_cache();
  augur::gpu::clear_fallback_cache();
}

}  // namespace jit::gpu
