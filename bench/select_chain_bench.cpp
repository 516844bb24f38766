// jit::compile on a chain of `?:` (docs/cpu.md, "Depth" and "Large
// functions"): `e = x > i ? e : i`, n times, as n statements in a stat loop
// (the split plan cuts them into bounded functions) and as one expression n
// operators tall (which the backend first cuts into statements). CPU time of the
// process per compile, staging included; each iteration compiles afresh
// under a name of its own.
//
//   build/dev/bench/select_chain_bench
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "bench/support/cpu_time.h"
#include "jit/jit.h"

namespace {

jit::dyn<double> statements(jit::dyn<double> x, int n) {
  jit::dyn<double> e = x;
  for (jit::stat<int> i = 0; i < n; ++i) e = jit::select(x > double(int(i)), e, double(int(i)));
  return e;
}

jit::dyn<double> expression(jit::dyn<double> x, int n) {
  jit::dyn_expr<double> e(x);
  for (int i = 0; i < n; ++i) e = jit::select(x > double(i), e, double(i));
  return e;
}

using Generator = jit::dyn<double> (*)(jit::dyn<double>, int);

void compile(benchmark::State& state, Generator generator, int opt_level) {
  const int n = static_cast<int>(state.range(0));
  jit::compile_options options;
  options.opt_level = opt_level;
  const double start = augur::bench::cpu_seconds();
  int version = 0;
  for (auto _ : state) {
    options.name = "chain" + std::to_string(version++);
    const jit::function<double(double)> f = jit::compile(options, generator, n);
    if (f(0.5) != n - 1) std::abort();
  }
  const double cpu = augur::bench::cpu_seconds() - start;
  state.counters["cpu_ms"] = cpu * 1e3 / static_cast<double>(state.iterations());
  state.counters["cpu_us_per_level"] = cpu * 1e6 / static_cast<double>(state.iterations()) / n;
}

BENCHMARK_CAPTURE(compile, statements_O2, statements, 2)
    ->Arg(2'000)
    ->Arg(10'000)
    ->Arg(20'000)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compile, expression_O0, expression, 0)
    ->Arg(5'000)
    ->Arg(20'000)
    ->Arg(100'000)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compile, expression_O2, expression, 2)
    ->Arg(2'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
