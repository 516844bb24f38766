// The safety nets that bound saturation and reversion in time count CPU time
// of the calling thread. A thread that waits for a core on a loaded machine
// does not advance it, so a net set well above what the counted budgets take
// fires on the same programs on an idle or a loaded machine, and the
// optimizer's output does not depend on the load (docs/peg.md, "Budgets").
//
//   eqsat::TimeNet net(std::chrono::milliseconds(100));  // from now, on this thread
//   while (work_left()) { step(); if (net.reached()) break; }
#pragma once

#include <chrono>
#include <cstdint>

namespace augur::eqsat {

// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID: a system call,
// about 1 µs).
struct ThreadCpuClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<ThreadCpuClock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept;
};

// A limit on the CPU time the constructing thread spends from now on; used
// on that thread only. reached() reads the steady clock (tens of ns) and
// the CPU clock only once the limit could have been spent: a thread's CPU
// time never runs ahead of the wall clock.
class TimeNet {
 public:
  explicit TimeNet(std::chrono::nanoseconds limit);
  bool reached();

 private:
  std::chrono::steady_clock::time_point look_;  // the limit cannot be spent before
  ThreadCpuClock::time_point deadline_;
};

namespace testing {
// Called at the start of every TimeNet::reached() (nullptr, the default:
// nothing). A test makes the thread sleep there, as a loaded machine keeps it
// waiting, and checks that no output changes.
void set_before_net_check(void (*hook)());
}  // namespace testing

}  // namespace augur::eqsat
