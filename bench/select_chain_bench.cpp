// jit::compile on a chain of `?:` (docs/cpu.md, "Depth" and "Large
// functions"): `e = x > i ? e : i`, n times, as n statements in a stat loop
// (the split plan cuts them into bounded functions) and as one expression n
// operators tall (which the backend first cuts into statements). CPU time of the
// process per compile, staging included; each iteration compiles afresh
// under a name of its own.
//
//   build/dev/bench/select_chain_bench
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "bench/support/compile_per_size.h"
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
  jit::compile_options options;
  options.opt_level = opt_level;
  augur::bench::time_compiles(state, "cpu_us_per_level", [&](int n, const std::string& name) {
    options.name = name;
    const jit::function<double(double)> f = jit::compile(options, generator, n);
    if (f(0.5) != n - 1) std::abort();
  });
}

void register_chain(const char* name, Generator generator, int opt_level,
                    std::initializer_list<std::int64_t> sizes) {
  augur::bench::register_per_size(
      name, sizes, [=](benchmark::State& state) { compile(state, generator, opt_level); });
}

}  // namespace

int main(int argc, char** argv) {
  register_chain("compile/statements_O2", statements, 2, {2'000, 10'000, 20'000});
  register_chain("compile/expression_O0", expression, 0, {5'000, 20'000, 100'000});
  register_chain("compile/expression_O2", expression, 2, {2'000, 10'000, 100'000});
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
