#include "runtime/eqsat/time_net.h"

#include <time.h>

#include <atomic>

namespace augur::eqsat {

namespace {

std::atomic<void (*)()> before_check{nullptr};

// t + d, or the latest time point where that would overflow.
template <class TimePoint>
TimePoint saturating_add(TimePoint t, std::chrono::nanoseconds d) {
  if (d.count() <= 0) return t;
  const auto room = std::chrono::duration_cast<std::chrono::nanoseconds>(TimePoint::max() - t);
  if (d >= room) return TimePoint::max();
  return t + std::chrono::duration_cast<typename TimePoint::duration>(d);
}

}  // namespace

ThreadCpuClock::time_point ThreadCpuClock::now() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
}

TimeNet::TimeNet(std::chrono::nanoseconds limit)
    : look_(saturating_add(std::chrono::steady_clock::now(), limit)),
      deadline_(saturating_add(ThreadCpuClock::now(), limit)) {}

bool TimeNet::reached() {
  if (void (*hook)() = before_check.load(std::memory_order_relaxed)) hook();
  const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
  if (now < look_) return false;
  const ThreadCpuClock::time_point cpu = ThreadCpuClock::now();
  if (cpu >= deadline_) return true;
  look_ = saturating_add(now, deadline_ - cpu);
  return false;
}

namespace testing {
void set_before_net_check(void (*hook)()) {
  before_check.store(hook, std::memory_order_relaxed);
}
}  // namespace testing

}  // namespace augur::eqsat
