// CPU time for the benchmarks that compare compile routes: on a loaded
// machine wall time also counts waiting, CPU time compares.
#pragma once

#include <sys/resource.h>

namespace augur::bench {

// CPU seconds of this process (all its threads) and of its finished children
// (a C compiler and what it runs).
inline double cpu_seconds() {
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  return seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(children.ru_utime) +
         seconds(children.ru_stime);
}

}  // namespace augur::bench
