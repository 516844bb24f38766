// The first level of the specialization cache, shared by all threads: key
// bytes (generator, options, static arguments; compared in full) → the
// compiled version, or the compilation in flight for it. jit::compile's
// versions (version.h) live in instance(); GPU kernels and the GPU backend's
// compiled programs live in caches of their own (runtime/cache/kernels.cpp,
// gpu/), so a value is type-erased: each cache's owner knows what it holds.
//
// A map split into shards, each behind its own mutex, rather than
// tbb::concurrent_hash_map: eviction must walk every entry while other
// threads insert and erase, which TBB's map does not allow concurrently. The
// locks are short (one lookup or insertion) and the hot path does not reach
// them: each thread serves the keys it asked for before from its LocalCache.
//
// One compilation per key: the first thread to ask inserts an in-flight entry
// and compiles; the others wait on it and get the same version or the same
// error. A failed compilation's entry is erased, so the next request compiles
// again (a staging or compiler error may depend on the environment, e.g.
// registered externs, and is not cached).
//
// A first stage may itself call jit::compile, so a wait can deadlock: on the
// thread's own in-flight key, or around a cycle of threads each compiling a
// key the next one's first stage asks for. Before blocking, a thread walks
// the wait-for graph (the slot's compiling thread, the slot that thread waits
// on, its compiling thread...) and throws a jit::error instead of closing a
// cycle. The graph has no cycle (each edge is checked as it is added), so the
// walk ends; it runs only when a request finds its key in flight.
//
// Eviction keeps at most capacity() ready entries, dropping the least recently
// used. It drops only the cache's reference: a value is reference-counted,
// and its code is unloaded when the last jit::function, hot-swap handle or
// jit::gpu::kernel holding it goes. Handles therefore need no agreement with the cache beyond
// holding their reference (jit::function::keep_alive()).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "jit/compiler.h"

namespace augur::cache {

struct Slot;

// A thread's node in the wait-for graph.
struct Waiter {
  const Slot* waits_on = nullptr;  // the in-flight slot it is blocked on
};

// What a cache holds for a key: a Version in instance(), what its owner put
// there in another cache.
using Value = std::shared_ptr<const void>;

struct Slot {
  std::shared_future<Value> value;
  std::atomic<std::uint64_t> last_used{0};  // the cache's clock at the last request
  // The thread compiling it while in flight, null once the version or error
  // is about to be set. Set before the slot is shared, then guarded by the
  // wait-for graph's mutex.
  const Waiter* compiler = nullptr;
};

struct Found {
  Value value;
  std::shared_ptr<Slot> slot;
};

struct SharedCounters {
  std::uint64_t requests = 0;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t compiles = 0;
  std::uint64_t failures = 0;
  std::uint64_t evictions = 0;
  std::size_t entries = 0;
  std::chrono::nanoseconds compile_time{0};
};

class SpecializationCache {
 public:
  using Compile = std::function<Value()>;

  // jit::compile's cache (never destroyed: code may be called until exit).
  static SpecializationCache& instance();

  // An empty cache of at most `capacity` ready entries. Caches that hold
  // code must outlive its callers: make them never destroyed, like instance().
  // `api` names the request in deadlock errors ("jit::compile").
  explicit SpecializationCache(std::string api, std::size_t capacity = 4096)
      : api_(std::move(api)), capacity_(capacity) {}
  SpecializationCache(const SpecializationCache&) = delete;
  SpecializationCache& operator=(const SpecializationCache&) = delete;

  // The value for `key`: ready, compiled by another thread meanwhile, or
  // compiled here by `compile`, whose exceptions propagate to every waiter.
  // Every cache shares one wait-for graph, so a cycle through several caches
  // (a kernel's first stage asking for a CPU function...) is caught too.
  // A wait that would deadlock (above) throws a jit::error naming `name`, the
  // requested function, instead.
  Found get(std::string_view key, std::uint64_t hash, std::string_view name,
            const Compile& compile);

  // Marks a slot as used now (for a hit served outside the map).
  void touch(Slot& slot) noexcept {
    const std::uint64_t now = clock_.load(std::memory_order_relaxed);
    if (slot.last_used.load(std::memory_order_relaxed) != now) {
      slot.last_used.store(now, std::memory_order_relaxed);
    }
  }

  // Advances whenever entries are dropped: lookups made under an older epoch
  // may hold dropped versions.
  std::uint64_t epoch() const noexcept { return epoch_.load(std::memory_order_acquire); }

  void set_capacity(std::size_t entries);
  std::size_t capacity() const { return capacity_.load(std::memory_order_relaxed); }
  void clear();

  SharedCounters counters() const;

 private:
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const noexcept {
      return jit::detail::hash_key(key);
    }
  };
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, std::shared_ptr<Slot>, KeyHash, std::equal_to<>> slots;
  };
  static constexpr std::size_t shard_count = 16;

  Shard& shard_of(std::uint64_t hash) { return shards_[(hash >> 32) % shard_count]; }
  // Whether it erased `slot`, still the entry for `key`.
  bool erase(Shard& shard, std::string_view key, const Slot& slot);
  void evict_if_full();

  const std::string api_;
  std::array<Shard, shard_count> shards_;
  std::mutex evicting_;  // one eviction at a time
  std::atomic<std::size_t> capacity_;
  std::atomic<std::size_t> entries_{0};
  std::atomic<std::uint64_t> clock_{0};
  std::atomic<std::uint64_t> epoch_{0};

  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> hits_{0};
  std::atomic<std::uint64_t> misses_{0};
  std::atomic<std::uint64_t> compiles_{0};
  std::atomic<std::uint64_t> failures_{0};
  std::atomic<std::uint64_t> evictions_{0};
  std::atomic<std::int64_t> compile_nanoseconds_{0};
};

}  // namespace augur::cache
