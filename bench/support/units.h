// Google Benchmark reports each run in its own time unit; the summaries
// compare runs in nanoseconds.
#pragma once

#include <benchmark/benchmark.h>

namespace augur::bench {

inline double ns_per(benchmark::TimeUnit unit) {
  switch (unit) {
    case benchmark::kSecond:
      return 1e9;
    case benchmark::kMillisecond:
      return 1e6;
    case benchmark::kMicrosecond:
      return 1e3;
    case benchmark::kNanosecond:
      break;
  }
  return 1;
}

}  // namespace augur::bench
