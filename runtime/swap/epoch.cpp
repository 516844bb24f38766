#include "runtime/swap/epoch.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <utility>

#include "runtime/swap/barrier.h"

namespace jit::detail {

constinit std::atomic<std::uint64_t> global_epoch{1};
constinit std::atomic<bool> readers_fence{false};

namespace {

// The head of the list of every record ever made; records are only prepended.
constinit std::atomic<reader_record*> all_readers{nullptr};

// Set when the thread's lease has given its record back. A thread_local
// destructor that runs after the lease's (or a static destructor on the main
// thread) may still call a handle; it must not take a record that nothing
// would give back, nor touch the destroyed lease. Trivially destructible, so
// valid until the thread's storage goes.
constinit thread_local bool lease_ended = false;

// Gives the thread's records back when the thread exits: its own, and the
// one it keeps for its next call_section.
struct reader_lease {
  reader_record* record = nullptr;
  reader_record* spare = nullptr;
  ~reader_lease() {
    lease_ended = true;
    if (spare != nullptr) release_reader(*spare);
    if (record == nullptr) return;
    this_thread_reader = nullptr;
    record->epoch.store(0, std::memory_order_release);
    release_reader(*record);
  }
};
thread_local reader_lease lease;

reader_record& take_record() {
  for (reader_record* r = all_readers.load(std::memory_order_acquire); r != nullptr; r = r->next) {
    // Read first: a failing compare-exchange would take, exclusively, the
    // cache line that the record's owner writes on every call.
    if (r->taken.load(std::memory_order_relaxed)) continue;
    bool free = false;
    if (r->taken.compare_exchange_strong(free, true, std::memory_order_acq_rel)) return *r;
  }
  // Immortal, and reachable from all_readers: never a leak.
  auto* fresh = new reader_record;
  fresh->taken.store(true, std::memory_order_relaxed);
  fresh->next = all_readers.load(std::memory_order_relaxed);
  while (!all_readers.compare_exchange_weak(fresh->next, fresh, std::memory_order_acq_rel)) {
  }
  return *fresh;
}

}  // namespace

reader_record& attach_reader() {
  augur::swap::prepare_heavy_barrier();
  reader_record& record = take_record();
  if (!lease_ended) {
    lease.record = &record;
    this_thread_reader = &record;
  }
  return record;
}

// A section reuses the record that the last section closed on this thread
// left: opening one scans the pool (a cache miss per record) only the first
// time.
reader_record& take_section_reader() {
  augur::swap::prepare_heavy_barrier();
  if (!lease_ended && lease.spare != nullptr) return *std::exchange(lease.spare, nullptr);
  return take_record();
}

void close_section_reader(reader_record& record) noexcept {
  if (!lease_ended && lease.spare == nullptr) {
    lease.spare = &record;
    return;
  }
  release_reader(record);
}

void release_reader(reader_record& record) noexcept {
  record.taken.store(false, std::memory_order_release);
}

}  // namespace jit::detail

namespace augur::swap {

std::uint64_t retire_epoch() {
  return jit::detail::global_epoch.fetch_add(1, std::memory_order_seq_cst);
}

std::uint64_t oldest_announced_epoch(const void* handle) {
  if (!heavy_barrier()) return 0;
  std::uint64_t oldest = std::numeric_limits<std::uint64_t>::max();
  for (auto* r = jit::detail::all_readers.load(std::memory_order_acquire); r != nullptr;
       r = r->next) {
    const std::uint64_t epoch = r->epoch.load(std::memory_order_seq_cst);
    if (epoch == 0) continue;
    const void* covered = r->handle.load(std::memory_order_seq_cst);
    if (covered == nullptr || covered == handle) oldest = std::min(oldest, epoch);
  }
  return oldest;
}

std::size_t taken_reader_records_for_testing() {
  std::size_t taken = 0;
  for (auto* r = jit::detail::all_readers.load(std::memory_order_acquire); r != nullptr;
       r = r->next) {
    if (r->taken.load(std::memory_order_acquire)) ++taken;
  }
  return taken;
}

}  // namespace augur::swap
