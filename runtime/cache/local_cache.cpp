#include "runtime/cache/local_cache.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace augur::cache {

namespace {

// Every live LocalCache, so that statistics can add up their hits.
struct Registry {
  std::mutex mutex;
  std::vector<const LocalCache*> caches;
  std::uint64_t retired_hits = 0;  // of threads that have exited
};

Registry& registry() {
  // Never destroyed: threads may exit during static destruction.
  static Registry* const instance = new Registry();
  return *instance;
}

}  // namespace

LocalCache& LocalCache::current() {
  thread_local LocalCache cache;
  return cache;
}

LocalCache::LocalCache() : epoch_(SpecializationCache::instance().epoch()) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.caches.push_back(this);
}

LocalCache::~LocalCache() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.retired_hits += hits_.load(std::memory_order_relaxed);
  std::erase(r.caches, this);
}

bool LocalCache::find(std::string_view key, std::uint64_t hash,
                      jit::detail::compiled_entry& out) noexcept {
  SpecializationCache& shared = SpecializationCache::instance();
  const std::uint64_t epoch = shared.epoch();
  if (epoch != epoch_) {
    drop_all();
    epoch_ = epoch;
    return false;
  }
  Entry& entry = entries_[hash % size];
  if (!entry.owner || entry.hash != hash || entry.key != key) return false;
  shared.touch(*entry.slot);
  hits_.store(hits_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  out.address = entry.address;
  out.owner = entry.owner;
  out.report = entry.report;
  return true;
}

void LocalCache::remember(std::string_view key, std::uint64_t hash, const Found& found) {
  Entry& entry = entries_[hash % size];
  entry.hash = hash;
  entry.key.assign(key);
  entry.address = found.version->entry;
  entry.owner = found.version;
  entry.report = &found.version->stage;
  entry.slot = found.slot;
}

void LocalCache::drop_all() {
  for (Entry& entry : entries_) {
    entry.owner.reset();
    entry.slot.reset();
  }
}

std::uint64_t LocalCache::total_hits() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::uint64_t hits = r.retired_hits;
  for (const LocalCache* cache : r.caches) hits += cache->hits_.load(std::memory_order_relaxed);
  return hits;
}

}  // namespace augur::cache
