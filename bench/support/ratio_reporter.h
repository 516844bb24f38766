// The console report of a Google Benchmark program, with the runs kept by
// name so that the program can print side-by-side ratios after it: what every
// bench/ program does at its end. A run stands for its benchmark when it is
// the only repetition or the median of several (--benchmark_repetitions).
//
//   bench::RatioReporter reporter([](const bench::RatioReporter& r) {
//     if (const auto [a, b] = r.pair("run/x/augur", "run/x/gcc"); a)
//       std::printf("augur / gcc: %.3f\n", a->cpu_ns / b->cpu_ns);
//   });
//   benchmark::RunSpecifiedBenchmarks(&reporter);
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include "bench/support/units.h"

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace augur::bench {

struct RunTimes {
  double wall_ns = 0;  // per iteration
  double cpu_ns = 0;   // per iteration
  std::map<std::string, double> counters;
  benchmark::TimeUnit unit = benchmark::kNanosecond;  // the unit the table shows
  std::string error;  // why the benchmark was skipped (SkipWithError); empty if it ran

  // CPU time from the `cpu_ms` counter where the benchmark sets one (threads
  // and children included), else the process's.
  double counted_cpu_ns() const {
    const auto cpu = counters.find("cpu_ms");
    return cpu == counters.end() ? cpu_ns : cpu->second * 1e6;
  }
};

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  using Summary = std::function<void(const RatioReporter&)>;

  // Colours only on a terminal: the report is often read from a log.
  explicit RatioReporter(Summary summary)
      : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular),
        summary_(std::move(summary)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      const bool single = run.run_type == Run::RT_Iteration && run.repetitions <= 1;
      if (!median && !single && !run.error_occurred) continue;
      // "raw_call/real_time/threads:2" → "raw_call/threads:2"
      std::string name = run.run_name.function_name;
      for (const std::string* part : {&run.run_name.args, &run.run_name.threads})
        if (!part->empty()) name += "/" + *part;
      RunTimes& times = runs_[name];
      if (run.error_occurred) {
        times.error = run.error_message;
        continue;
      }
      times.unit = run.time_unit;
      times.wall_ns = run.GetAdjustedRealTime() * ns_per(run.time_unit);
      times.cpu_ns = run.GetAdjustedCPUTime() * ns_per(run.time_unit);
      for (const auto& [counter, value] : run.counters) times.counters[counter] = value.value;
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    if (summary_) summary_(*this);
  }

  // Every run kept, by name: the function, its arguments and its threads.
  const std::map<std::string, RunTimes>& runs() const { return runs_; }

  // The run named `name`, or null.
  const RunTimes* find(const std::string& name) const {
    const auto it = runs_.find(name);
    return it == runs_.end() ? nullptr : &it->second;
  }

  // The runs named `a` and `b` when both ran (none skipped), else nulls: the
  // two sides of a ratio.
  std::pair<const RunTimes*, const RunTimes*> pair(const std::string& a,
                                                   const std::string& b) const {
    const RunTimes* x = find(a);
    const RunTimes* y = find(b);
    if (!x || !y || !x->error.empty() || !y->error.empty()) return {nullptr, nullptr};
    return {x, y};
  }

  // Prints "what: a / b = ratio" in the runs' units, when both ran.
  void print_ratio(const char* what, const std::string& a, const std::string& b) const {
    const auto [x, y] = pair(a, b);
    if (!x) return;
    const double tx = x->wall_ns / ns_per(x->unit), ty = y->wall_ns / ns_per(y->unit);
    std::printf("%s: %.4g / %.4g = %.3f\n", what, tx, ty, tx / ty);
  }

 private:
  Summary summary_;
  std::map<std::string, RunTimes> runs_;
};

}  // namespace augur::bench
