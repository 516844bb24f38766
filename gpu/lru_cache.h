// A bounded in-memory cache, least recently used out first, in which each key
// is computed once however many threads ask for it at the same time: the
// first caller computes, the others wait on the same shared future and get
// the same value or the same exception. A failed computation is not kept, so
// the next request tries again. Keys compare in full (the hash only picks the
// bucket). An evicted value lives on in whoever still holds it.
//
// A `make` that asked this cache for a key in flight would wait on itself (or
// on a thread waiting on it). Augur's makers cannot: they compile IR already
// staged, so no user code (no first stage) runs inside them and they wait on
// no other entry; the specialization cache's wait-for graph is not needed here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "runtime/ir/hash.h"

namespace augur::gpu {

struct CacheKey {
  std::string text;    // every field of the key, in full
  ir::Hash128 hash{};  // of `text`

  explicit CacheKey(std::string full_text) : text(std::move(full_text)) {
    ir::Hasher hasher;
    hasher.add(text);
    hash = hasher.finish();
  }
  friend bool operator==(const CacheKey& a, const CacheKey& b) {
    return a.hash == b.hash && a.text == b.text;
  }
};

struct CacheKeyHash {
  std::size_t operator()(const CacheKey& k) const noexcept { return k.hash.lo; }
};

template <class V>
class LruCache {
 public:
  using Value = std::shared_ptr<const V>;

  explicit LruCache(std::size_t capacity) : capacity_(capacity) {}

  // The value of `key`, made by `make` on a miss (on this thread). `hit`
  // tells whether it was there or being made by another thread.
  Value get(const CacheKey& key, const std::function<Value()>& make, bool* hit = nullptr) {
    std::promise<Value> promise;
    std::shared_future<Value> future;
    std::uint64_t generation = 0;
    bool owner = false;
    {
      std::lock_guard lock(mutex_);
      if (auto it = entries_.find(key); it != entries_.end()) {
        order_.splice(order_.begin(), order_, it->second.position);
        future = it->second.value;
      } else {
        owner = true;
        future = promise.get_future().share();
        generation = ++generations_;
        order_.push_front(key);
        entries_.emplace(key, Entry{future, order_.begin(), generation});
        evict_over_capacity();
      }
    }
    if (hit) *hit = !owner;
    if (owner) {
      try {
        promise.set_value(make());
      } catch (...) {
        promise.set_exception(std::current_exception());
        forget(key, generation);
      }
    }
    return future.get();
  }

  void set_capacity(std::size_t capacity) {
    std::lock_guard lock(mutex_);
    capacity_ = capacity;
    evict_over_capacity();
  }
  void clear() {
    std::lock_guard lock(mutex_);
    entries_.clear();
    order_.clear();
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    std::shared_future<Value> value;
    typename std::list<CacheKey>::iterator position;
    std::uint64_t generation = 0;  // tells a failed entry from a later retry
  };

  void evict_over_capacity() {
    while (entries_.size() > capacity_ && !order_.empty()) {
      entries_.erase(order_.back());
      order_.pop_back();
    }
  }

  // Drops a failed entry, unless it was already replaced.
  void forget(const CacheKey& key, std::uint64_t generation) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.generation != generation) return;
    order_.erase(it->second.position);
    entries_.erase(it);
  }

  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::uint64_t generations_ = 0;
  std::unordered_map<CacheKey, Entry, CacheKeyHash> entries_;
  std::list<CacheKey> order_;  // most recently used first
};

}  // namespace augur::gpu
