// The console report of a Google Benchmark program, with the runs kept by
// name so that the program can print side-by-side ratios after it: what every
// bench/ program does at its end. A run stands for its benchmark when it is
// the only repetition or the median of several (--benchmark_repetitions).
//
//   bench::RatioReporter reporter([](const bench::RatioReporter& r) {
//     const bench::RunTimes* a = r.find("run/x/augur");
//     const bench::RunTimes* b = r.find("run/x/gcc");
//     if (a && b) std::printf("augur / gcc: %.3f\n", a->cpu_ns / b->cpu_ns);
//   });
//   benchmark::RunSpecifiedBenchmarks(&reporter);
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

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
  std::string error;  // why the benchmark was skipped (SkipWithError); empty if it ran
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
      // "peg/bf_1000/process_time/real_time" → "peg/bf_1000"
      std::string name = run.run_name.str();
      for (const char* suffix : {"/process_time", "/real_time", "/manual_time", "/iterations"})
        if (const auto at = name.find(suffix); at != std::string::npos) name.erase(at);
      RunTimes& times = runs_[name];
      if (run.error_occurred) {
        times.error = run.error_message;
        continue;
      }
      const double unit = unit_ns(run.time_unit);
      times.wall_ns = run.GetAdjustedRealTime() * unit;
      times.cpu_ns = run.GetAdjustedCPUTime() * unit;
      for (const auto& [counter, value] : run.counters) times.counters[counter] = value.value;
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    if (summary_) summary_(*this);
  }

  // Every run kept, by name (without the timing suffixes).
  const std::map<std::string, RunTimes>& runs() const { return runs_; }

  // The run named `name` (without the timing suffixes), or null.
  const RunTimes* find(const std::string& name) const {
    const auto it = runs_.find(name);
    return it == runs_.end() ? nullptr : &it->second;
  }

 private:
  static double unit_ns(benchmark::TimeUnit unit) {
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

  Summary summary_;
  std::map<std::string, RunTimes> runs_;
};

}  // namespace augur::bench
