// The reader side of the epoch protocol that keeps retired code alive while a
// thread may still be running it (docs/hotswap.md). A thread calling through a
// jit::handle announces the global epoch in its own record for the length of
// the call; a version retired in epoch e is freed once every record is idle
// or announces an epoch after e. The announcement is a plain store: the
// publisher pays for the ordering with a process-wide barrier (membarrier)
// instead, so a call costs a few instructions more than a raw call.
#pragma once

#include <atomic>
#include <cstdint>

#if defined(__SANITIZE_THREAD__)
#define AUGUR_EPOCH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AUGUR_EPOCH_TSAN 1
#endif
#endif

namespace jit::detail {

// One thread's announcement. Records are never freed: a thread that exits
// gives its record back for a later thread to take.
struct alignas(64) reader_record {
  // The epoch announced at the start of the outermost call in progress; 0: in
  // no call. Written by the owning thread only.
  std::atomic<std::uint64_t> epoch{0};
  std::atomic<bool> taken{false};
  reader_record* next = nullptr;  // set before the record is linked, then fixed
};

// The global epoch: starts at 1, advanced by every retirement.
extern std::atomic<std::uint64_t> global_epoch;
// Set when the kernel offers no membarrier: readers then fence themselves.
extern std::atomic<bool> readers_fence;

inline constinit thread_local reader_record* this_thread_reader = nullptr;

// Takes a record for the calling thread (first call on this thread).
reader_record& attach_reader();

// Marks the calling thread as inside a call through a handle while it lives.
class read_section {
 public:
  // A nested call (a host function called by generated code calling a
  // handle) finds the outer call's announcement and leaves it in place.
  read_section()
      : record_(this_thread_reader != nullptr ? *this_thread_reader : attach_reader()),
        outermost_(record_.epoch.load(std::memory_order_relaxed) == 0) {
    if (outermost_) announce();
  }
  ~read_section() {
    if (outermost_) record_.epoch.store(0, std::memory_order_release);
  }
  read_section(const read_section&) = delete;
  read_section& operator=(const read_section&) = delete;

 private:
  void announce() noexcept {
    const std::uint64_t now = global_epoch.load(std::memory_order_acquire);
#ifdef AUGUR_EPOCH_TSAN
    // ThreadSanitizer sees no membarrier: a seq_cst exchange orders the
    // announcement before the entry load in its model, and keeps the
    // announcement in the release sequence of the last call's end.
    record_.epoch.exchange(now, std::memory_order_seq_cst);
#else
    record_.epoch.store(now, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (readers_fence.load(std::memory_order_relaxed)) {
      std::atomic_thread_fence(std::memory_order_seq_cst);
    }
#endif
  }

  reader_record& record_;
  bool outermost_;
};

}  // namespace jit::detail
