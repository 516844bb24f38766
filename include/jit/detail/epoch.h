// The reader side of the epoch protocol that keeps retired code alive while a
// thread may still be running it (docs/hotswap.md). A thread calling through a
// jit::handle announces the global epoch, and the handle it calls, in its own
// record for the length of the call; a version of handle H retired in epoch e
// is freed once every record is idle, announces another handle, or announces
// an epoch after e. The announcement is a plain store: the publisher pays for
// the ordering with a process-wide barrier (membarrier) instead, so a call
// costs a few instructions more than a raw call.
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

// One announcement: a thread's, or an open jit::call_section's. Records are
// never freed: a thread that exits, or a section that closes, gives its record
// back for a later one to take.
struct alignas(64) reader_record {
  // The epoch announced at the start of the outermost call in progress; 0: in
  // no call. Written by the owner only.
  std::atomic<std::uint64_t> epoch{0};
  // The handle (its core) the announcement covers; null: every handle (calls
  // to two handles nested in each other, or a call_section). Meaningful only
  // while epoch is non-zero; written by the owner only.
  std::atomic<const void*> handle{nullptr};
  std::atomic<bool> taken{false};
  reader_record* next = nullptr;  // set before the record is linked, then fixed
};

// The global epoch: starts at 1, advanced by every retirement.
extern std::atomic<std::uint64_t> global_epoch;
// Set when the kernel offers no membarrier: readers then fence themselves.
extern std::atomic<bool> readers_fence;

inline constinit thread_local reader_record* this_thread_reader = nullptr;

// Takes a record for the calling thread (first call on this thread). After the
// thread's own record has been given back (a call from a thread_local
// destructor that runs late), returns a record for one call instead, which
// release_reader() gives back, and leaves this_thread_reader null.
reader_record& attach_reader();
// Takes a record for a call_section, which may close on another thread.
reader_record& take_section_reader();
// Gives a record taken by take_section_reader() back (kept for the closing
// thread's next section); its epoch must be 0.
void close_section_reader(reader_record& record) noexcept;
// Gives a record taken by attach_reader() for one call back; its epoch must be 0.
void release_reader(reader_record& record) noexcept;

// Publishes `record`'s announcement of the current epoch for `handle` (null:
// every handle), ordered before the caller's next entry load.
inline void announce(reader_record& record, const void* handle) noexcept {
  const std::uint64_t now = global_epoch.load(std::memory_order_acquire);
  record.handle.store(handle, std::memory_order_relaxed);
#ifdef AUGUR_EPOCH_TSAN
  // ThreadSanitizer sees no membarrier: a seq_cst exchange orders the
  // announcement before the entry load in its model, and keeps the
  // announcement in the release sequence of the last call's end.
  record.epoch.exchange(now, std::memory_order_seq_cst);
#else
  record.epoch.store(now, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (readers_fence.load(std::memory_order_relaxed)) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
#endif
}

// Marks the calling thread as inside a call through `handle` while it lives.
class read_section {
 public:
  // A nested call (a host function called by generated code calling a
  // handle) finds the outer call's announcement and leaves its epoch in place;
  // a nested call to another handle widens it to every handle.
  explicit read_section(const void* handle) : record_(this_thread_reader) {
    if (record_ == nullptr) attach();
    if (record_->epoch.load(std::memory_order_relaxed) == 0) {
      if (kind_ == kind::nested) kind_ = kind::outermost;
      announce(*record_, handle);
    } else if (const void* covered = record_->handle.load(std::memory_order_relaxed);
               covered != nullptr && covered != handle) {
      widen();
    }
  }
  ~read_section() {
    if (kind_ == kind::nested) return;
    record_->epoch.store(0, std::memory_order_release);
    if (kind_ == kind::one_call) release_reader(*record_);
  }
  read_section(const read_section&) = delete;
  read_section& operator=(const read_section&) = delete;

 private:
  enum class kind : std::uint8_t { nested, outermost, one_call };

  // The thread's first call, or a call after its record was given back.
  void attach() {
    record_ = &attach_reader();
    if (record_ != this_thread_reader) kind_ = kind::one_call;
  }

  // Same ordering as announce(): the publisher must see the wider announcement
  // before this call can load the other handle's entry.
  void widen() noexcept {
#ifdef AUGUR_EPOCH_TSAN
    record_->handle.exchange(nullptr, std::memory_order_seq_cst);
#else
    record_->handle.store(nullptr, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (readers_fence.load(std::memory_order_relaxed)) {
      std::atomic_thread_fence(std::memory_order_seq_cst);
    }
#endif
  }

  reader_record* record_;
  kind kind_ = kind::nested;
};

// The announcement of a jit::call_section: a record of its own, so that calls
// through the section are covered on whichever thread makes them, and closing
// it on another thread (a coroutine resumed elsewhere) touches no thread's
// record.
class section_announcement {
 public:
  section_announcement() : record_(take_section_reader()) { announce(record_, nullptr); }
  ~section_announcement() {
    record_.epoch.store(0, std::memory_order_release);
    close_section_reader(record_);
  }
  section_announcement(const section_announcement&) = delete;
  section_announcement& operator=(const section_announcement&) = delete;

 private:
  reader_record& record_;
};

}  // namespace jit::detail
