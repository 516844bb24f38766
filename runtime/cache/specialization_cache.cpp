#include "runtime/cache/specialization_cache.h"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <utility>
#include <vector>

#include "jit/error.h"

namespace augur::cache {

namespace {

bool is_ready(const Slot& slot) {
  return slot.value.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

void add(std::atomic<std::uint64_t>& counter) {
  counter.fetch_add(1, std::memory_order_relaxed);
}

// The wait-for graph's edges: Slot::compiler and Waiter::waits_on. One mutex
// for the whole graph: it is taken only to block on an in-flight key and when
// a compilation ends, both rare next to a compilation's cost.
std::mutex& graph_mutex() {
  static auto* const mutex = new std::mutex();  // never destroyed, like the cache
  return *mutex;
}

Waiter& this_thread() {
  thread_local Waiter waiter;
  return waiter;
}

std::string describe(std::string_view name, std::uint64_t hash) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return "'" + std::string(name) + "' (key hash " + hex + ")";
}

// This thread's wait on an in-flight slot, entered in the graph for its
// duration; throws instead if the wait would close a cycle.
class Wait {
 public:
  Wait(const Slot& slot, std::string_view api, std::string_view name, std::uint64_t hash)
      : self_(this_thread()) {
    std::lock_guard lock(graph_mutex());
    if (slot.compiler == &self_) {
      throw jit::error(std::string(api) + ": the first stage requested " + describe(name, hash) +
                           ", which this thread is compiling: it would wait for itself",
                       jit::location::in_function(std::string(name)));
    }
    for (const Waiter* owner = slot.compiler; owner && owner->waits_on;) {
      owner = owner->waits_on->compiler;
      if (owner == &self_) {
        throw jit::error(
            std::string(api) + ": the first stage requested " + describe(name, hash) +
                ", whose compilation waits, through other threads' first stages, on a key this "
                "thread is compiling: the threads would wait for each other forever",
            jit::location::in_function(std::string(name)));
      }
    }
    self_.waits_on = &slot;
  }
  ~Wait() {
    std::lock_guard lock(graph_mutex());
    self_.waits_on = nullptr;
  }
  Wait(const Wait&) = delete;
  Wait& operator=(const Wait&) = delete;

 private:
  Waiter& self_;
};

// Takes `slot` out of the graph before its result is set: its compiler will
// not wait any more, so a walk that reaches it must stop there.
void compiled(Slot& slot) {
  std::lock_guard lock(graph_mutex());
  slot.compiler = nullptr;
}

}  // namespace

SpecializationCache& SpecializationCache::instance() {
  static SpecializationCache* const cache = new SpecializationCache("jit::compile");
  return *cache;
}

Found SpecializationCache::get(std::string_view key, std::uint64_t hash, std::string_view name,
                               const Compile& compile) {
  add(requests_);
  Shard& shard = shard_of(hash);
  std::shared_ptr<Slot> slot;
  std::promise<Value> promise;
  bool compiles_here = false;
  {
    std::lock_guard lock(shard.mutex);
    auto it = shard.slots.find(key);
    if (it != shard.slots.end()) {
      slot = it->second;
    } else {
      slot = std::make_shared<Slot>();
      slot->value = promise.get_future().share();
      slot->compiler = &this_thread();
      shard.slots.emplace(std::string(key), slot);
      entries_.fetch_add(1, std::memory_order_relaxed);
      compiles_here = true;
    }
  }
  slot->last_used.store(clock_.fetch_add(1, std::memory_order_relaxed) + 1,
                        std::memory_order_relaxed);
  if (!compiles_here) {
    if (is_ready(*slot)) {
      add(hits_);
      return {slot->value.get(), slot};
    }
    add(misses_);
    const Wait wait(*slot, api_, name, hash);
    return {slot->value.get(), slot};
  }

  add(misses_);
  add(compiles_);
  const auto start = std::chrono::steady_clock::now();
  const auto record_time = [&] {
    compile_nanoseconds_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now() - start)
                                       .count(),
                                   std::memory_order_relaxed);
  };
  try {
    Value value = compile();
    record_time();
    compiled(*slot);
    promise.set_value(std::move(value));
  } catch (...) {
    record_time();
    compiled(*slot);
    add(failures_);
    promise.set_exception(std::current_exception());
    erase(shard, key, *slot);
    throw;
  }
  evict_if_full();
  return {slot->value.get(), slot};
}

bool SpecializationCache::erase(Shard& shard, std::string_view key, const Slot& slot) {
  std::lock_guard lock(shard.mutex);
  auto it = shard.slots.find(key);
  // clear() or eviction may have replaced the entry meanwhile.
  if (it == shard.slots.end() || it->second.get() != &slot) return false;
  shard.slots.erase(it);
  entries_.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

void SpecializationCache::evict_if_full() {
  const std::size_t capacity = capacity_.load(std::memory_order_relaxed);
  if (entries_.load(std::memory_order_relaxed) <= capacity) return;
  std::lock_guard evicting(evicting_);
  const std::size_t entries = entries_.load(std::memory_order_relaxed);
  if (entries <= capacity) return;
  // Down to 7/8 of the capacity, so that a cache kept full by new keys walks
  // its entries once per capacity/8 compilations, not once per compilation.
  const std::size_t excess = entries - capacity + capacity / 8;

  struct Candidate {
    std::uint64_t last_used;
    std::size_t shard;
    std::string key;
    const Slot* slot;
  };
  std::vector<Candidate> candidates;
  for (std::size_t s = 0; s < shard_count; ++s) {
    std::lock_guard lock(shards_[s].mutex);
    for (const auto& [key, slot] : shards_[s].slots) {
      if (is_ready(*slot)) {
        candidates.push_back({slot->last_used.load(std::memory_order_relaxed), s, key, slot.get()});
      }
    }
  }
  const std::size_t count = std::min(excess, candidates.size());
  std::partial_sort(
      candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(count), candidates.end(),
      [](const Candidate& a, const Candidate& b) { return a.last_used < b.last_used; });
  for (std::size_t i = 0; i < count; ++i) {
    if (erase(shards_[candidates[i].shard], candidates[i].key, *candidates[i].slot)) {
      add(evictions_);
    }
  }
  epoch_.fetch_add(1, std::memory_order_release);
}

void SpecializationCache::set_capacity(std::size_t entries) {
  capacity_.store(entries, std::memory_order_relaxed);
  evict_if_full();
}

void SpecializationCache::clear() {
  for (Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    entries_.fetch_sub(shard.slots.size(), std::memory_order_relaxed);
    shard.slots.clear();
  }
  epoch_.fetch_add(1, std::memory_order_release);
}

SharedCounters SpecializationCache::counters() const {
  SharedCounters c;
  c.requests = requests_.load(std::memory_order_relaxed);
  c.hits = hits_.load(std::memory_order_relaxed);
  c.misses = misses_.load(std::memory_order_relaxed);
  c.compiles = compiles_.load(std::memory_order_relaxed);
  c.failures = failures_.load(std::memory_order_relaxed);
  c.evictions = evictions_.load(std::memory_order_relaxed);
  c.entries = entries_.load(std::memory_order_relaxed);
  c.compile_time = std::chrono::nanoseconds(compile_nanoseconds_.load(std::memory_order_relaxed));
  return c;
}

}  // namespace augur::cache
