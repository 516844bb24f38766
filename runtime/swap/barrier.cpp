#include "runtime/swap/barrier.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "jit/detail/epoch.h"

namespace augur::swap {
namespace {

long membarrier(int command) {
  return syscall(__NR_membarrier, command, 0U, 0);
}

// Whether membarrier(PRIVATE_EXPEDITED) works here (Linux 4.14+, and not
// filtered by a seccomp policy); decided once.
bool expedited_membarrier() {
  static const bool available = [] {
    const long supported = membarrier(MEMBARRIER_CMD_QUERY);
    const bool ok = supported >= 0 && (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
                    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
    if (!ok) jit::detail::readers_fence.store(true, std::memory_order_seq_cst);
    return ok;
  }();
  return available;
}

constinit std::atomic<bool> fail_for_testing{false};

}  // namespace

void fail_heavy_barrier_for_testing(bool fail) {
  fail_for_testing.store(fail, std::memory_order_relaxed);
}

void prepare_heavy_barrier() {
  expedited_membarrier();
}

bool heavy_barrier() {
#ifndef AUGUR_EPOCH_TSAN
  // Under ThreadSanitizer (which has no fences) readers announce with seq_cst
  // exchanges, and the publisher's exchange and scan are seq_cst too.
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  if (fail_for_testing.load(std::memory_order_relaxed)) return false;
  if (!expedited_membarrier()) return true;
  return membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0;
}

}  // namespace augur::swap
