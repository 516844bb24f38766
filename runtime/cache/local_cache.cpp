#include "runtime/cache/local_cache.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

namespace augur::cache {

namespace {

// Every live LocalCache, so that statistics can add up their hits.
struct Registry {
  std::mutex mutex;
  std::vector<std::pair<const LocalCache*, const SpecializationCache*>> caches;
  // Of threads that have exited, by the shared cache they served.
  std::map<const SpecializationCache*, std::uint64_t> retired_hits;
};

Registry& registry() {
  // Never destroyed: threads may exit during static destruction.
  static Registry* const instance = new Registry();
  return *instance;
}

}  // namespace

LocalCache& LocalCache::current() {
  thread_local LocalCache cache(SpecializationCache::instance());
  return cache;
}

LocalCache::LocalCache(SpecializationCache& shared) : shared_(shared), epoch_(shared.epoch()) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.caches.emplace_back(this, &shared_);
}

LocalCache::~LocalCache() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.retired_hits[&shared_] += hits_.load(std::memory_order_relaxed);
  std::erase_if(r.caches, [this](const auto& entry) { return entry.first == this; });
}

bool LocalCache::find(std::string_view key, std::uint64_t hash,
                      jit::detail::compiled_entry& out) noexcept {
  const std::uint64_t epoch = shared_.epoch();
  if (epoch != epoch_) {
    drop_all();
    epoch_ = epoch;
    return false;
  }
  Entry& entry = entries_[hash % size];
  if (!entry.owner || entry.hash != hash || entry.key != key) return false;
  shared_.touch(*entry.slot);
  hits_.store(hits_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  out.address = entry.address;
  out.owner = entry.owner;
  out.report = entry.report;
  return true;
}

void LocalCache::remember(std::string_view key, std::uint64_t hash, const Found& found,
                          void* address, const jit::stage_report* report) {
  Entry& entry = entries_[hash % size];
  entry.hash = hash;
  entry.key.assign(key);
  entry.address = address;
  entry.owner = found.value;
  entry.report = report;
  entry.slot = found.slot;
}

void LocalCache::drop_all() {
  for (Entry& entry : entries_) {
    entry.owner.reset();
    entry.slot.reset();
  }
}

std::uint64_t LocalCache::total_hits(const SpecializationCache& shared) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto retired = r.retired_hits.find(&shared);
  std::uint64_t hits = retired == r.retired_hits.end() ? 0 : retired->second;
  for (const auto& [cache, serves] : r.caches) {
    if (serves == &shared) hits += cache->hits_.load(std::memory_order_relaxed);
  }
  return hits;
}

}  // namespace augur::cache
