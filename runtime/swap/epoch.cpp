#include "runtime/swap/epoch.h"

#include <algorithm>
#include <atomic>
#include <limits>

#include "runtime/swap/barrier.h"

namespace jit::detail {

constinit std::atomic<std::uint64_t> global_epoch{1};
constinit std::atomic<bool> readers_fence{false};

namespace {

// The head of the list of every record ever made; records are only prepended.
constinit std::atomic<reader_record*> all_readers{nullptr};

// Gives the thread's record back when the thread exits.
struct reader_lease {
  reader_record* record = nullptr;
  ~reader_lease() {
    if (record == nullptr) return;
    this_thread_reader = nullptr;
    record->epoch.store(0, std::memory_order_release);
    record->taken.store(false, std::memory_order_release);
  }
};
thread_local reader_lease lease;

reader_record& take_record() {
  for (reader_record* r = all_readers.load(std::memory_order_acquire); r != nullptr; r = r->next) {
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
  lease.record = &record;
  this_thread_reader = &record;
  return record;
}

}  // namespace jit::detail

namespace augur::swap {

std::uint64_t retire_epoch() {
  return jit::detail::global_epoch.fetch_add(1, std::memory_order_seq_cst);
}

std::uint64_t oldest_announced_epoch() {
  heavy_barrier();
  std::uint64_t oldest = std::numeric_limits<std::uint64_t>::max();
  for (auto* r = jit::detail::all_readers.load(std::memory_order_acquire); r != nullptr;
       r = r->next) {
    const std::uint64_t epoch = r->epoch.load(std::memory_order_seq_cst);
    if (epoch != 0) oldest = std::min(oldest, epoch);
  }
  return oldest;
}

}  // namespace augur::swap
