// The public entry points of the specialization cache (jit/compiler.h, jit/cache.h).
#include "jit/cache.h"
#include "jit/compiler.h"
#include "runtime/cache/local_cache.h"
#include "runtime/cache/pipeline.h"
#include "runtime/cache/program_cache.h"
#include "runtime/cache/specialization_cache.h"
#include "runtime/compile/backends.h"

namespace augur::cache {
namespace {

ProgramCache& programs() {
  // Never destroyed, like the first level.
  static ProgramCache* const instance = new ProgramCache();
  return *instance;
}

}  // namespace

jit::detail::compiled_entry compile_cached(
    std::string_view key, std::uint64_t hash, std::string_view name,
    const std::function<std::shared_ptr<const Version>(ProgramCache&)>& compile) {
  const Found found = SpecializationCache::instance().get(
      key, hash, name, [&]() -> Value { return compile(programs()); });
  const auto& version = *static_cast<const Version*>(found.value.get());
  LocalCache::current().remember(key, hash, found, version.entry, &version.stage);
  return {version.entry, found.value, &version.stage};
}

}  // namespace augur::cache

namespace jit {

namespace detail {

bool find_compiled(std::string_view key, std::uint64_t hash, compiled_entry& out) noexcept {
  return augur::cache::LocalCache::current().find(key, hash, out);
}

compiled_entry compile_generator(std::string_view key, std::uint64_t hash, const generator& gen,
                                 const compile_options& options) {
  return augur::cache::compile_cached(
      key, hash, options.name, [&](augur::cache::ProgramCache& programs) {
        // Made on a miss only: a hit costs no backend.
        const auto backend = augur::compile::cpu_backend(options);
        return augur::cache::compile_version(gen, options, *backend, programs);
      });
}

}  // namespace detail

cache_statistics cache_stats() {
  using namespace augur::cache;
  const SharedCounters shared = SpecializationCache::instance().counters();
  const std::uint64_t local_hits = LocalCache::total_hits(SpecializationCache::instance());
  cache_statistics s;
  s.requests = shared.requests + local_hits;
  s.hits = shared.hits + local_hits;
  s.misses = shared.misses;
  s.compiles = shared.compiles;
  s.failures = shared.failures;
  s.programs_shared = programs().shared();
  s.programs = programs().records();
  s.evictions = shared.evictions;
  s.entries = shared.entries;
  s.compile_time = shared.compile_time;
  const OptimizerCounters optimizer = optimizer_counters();
  s.functions_optimized = optimizer.functions_optimized;
  s.functions_kept = optimizer.functions_kept;
  s.functions_unchanged = optimizer.functions_unchanged;
  s.regions_optimized = optimizer.regions_optimized;
  s.regions_unchanged = optimizer.regions_unchanged;
  s.regions_kept = optimizer.regions_kept;
  s.optimize_time = optimizer.time;
  copy_store_counters(disk_cache_counters(), s);
  return s;
}

void set_cache_capacity(std::size_t entries) {
  augur::cache::SpecializationCache::instance().set_capacity(entries);
}

std::size_t cache_capacity() {
  return augur::cache::SpecializationCache::instance().capacity();
}

void clear_cache() {
  augur::cache::SpecializationCache::instance().clear();
}

}  // namespace jit
