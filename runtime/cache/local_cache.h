// Each thread's first stop for jit::compile (and jit::gpu::compile, with a
// LocalCache of its own in front of its own SpecializationCache): the keys it
// requested before,
// in a small direct-mapped table, so that a repeated request takes no lock
// and touches no shared cache line but its entry's recency mark. Entries are
// validated by full key comparison and dropped when the shared cache's epoch
// moves (an eviction or clear), so evicted code is not kept loaded past the
// thread's next request.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "jit/compiler.h"
#include "runtime/cache/specialization_cache.h"

namespace augur::cache {

class LocalCache {
 public:
  // The calling thread's, in front of SpecializationCache::instance().
  static LocalCache& current();

  explicit LocalCache(SpecializationCache& shared);
  ~LocalCache();
  LocalCache(const LocalCache&) = delete;
  LocalCache& operator=(const LocalCache&) = delete;

  bool find(std::string_view key, std::uint64_t hash, jit::detail::compiled_entry& out) noexcept;
  // Remembers what the shared cache returned for `key`: its value, and what
  // find() hands out besides (a native entry point and a stage report, or
  // null for values that have none).
  void remember(std::string_view key, std::uint64_t hash, const Found& found, void* address,
                const jit::stage_report* report);

  // Hits served by every thread's LocalCache in front of `shared`, past and present.
  static std::uint64_t total_hits(const SpecializationCache& shared);

 private:
  struct Entry {
    std::uint64_t hash = 0;
    std::string key;
    void* address = nullptr;
    std::shared_ptr<const void> owner;          // the shared cache's value
    const jit::stage_report* report = nullptr;  // its stage report
    std::shared_ptr<Slot> slot;
  };
  static constexpr std::size_t size = 64;

  void drop_all();

  SpecializationCache& shared_;
  std::array<Entry, size> entries_;
  std::uint64_t epoch_ = 0;
  // Written by its thread only; total_hits() reads it from others.
  std::atomic<std::uint64_t> hits_{0};
};

}  // namespace augur::cache
