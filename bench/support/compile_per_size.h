// Benchmarks of jit::compile on one program per size (bench/reduction_bench,
// bench/select_chain_bench): each iteration compiles afresh under a name of
// its own, and the CPU time of the process is reported per compile and per
// unit of the size.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "bench/support/cpu_time.h"

namespace augur::bench {

// Runs `compile_once(n, name)` at every iteration, n = state.range(0) and a
// new name each time; reports `cpu_ms` and `per_unit_counter` (µs per unit).
template <class CompileOnce>
void time_compiles(benchmark::State& state, const char* per_unit_counter,
                   CompileOnce compile_once) {
  const int n = static_cast<int>(state.range(0));
  const double start = cpu_seconds();
  int version = 0;
  for (auto _ : state) compile_once(n, "version" + std::to_string(version++));
  const double per_compile = (cpu_seconds() - start) / static_cast<double>(state.iterations());
  state.counters["cpu_ms"] = per_compile * 1e3;
  state.counters[per_unit_counter] = per_compile * 1e6 / n;
}

// Registers `run` at each of `sizes`, one iteration each: the large ones
// take seconds.
template <class Run>
void register_per_size(const char* name, std::initializer_list<std::int64_t> sizes, Run run) {
  benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(name, run);
  for (std::int64_t n : sizes) b->Arg(n);
  b->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace augur::bench
