// jit::compile on long reductions (docs/cpu.md, "Chains of squarings" and
// "Large functions"): `s = s ^ (x[j % 8] + j)^3` and `s = s + x[j % 8] *
// (j + 1)`, n terms in a stat loop. Store-free arithmetic: the backend keeps
// it in one function up to 16 x split_nodes, where LLVM's SLP vectorizer
// takes the chain as one horizontal reduction. CPU time of the process per
// compile at O2, staging included; each iteration compiles afresh under a
// name of its own.
//
//   build/dev/bench/reduction_bench
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "bench/support/cpu_time.h"
#include "jit/jit.h"

namespace {

using Int = std::int64_t;
using Words = const Int*;

jit::dyn<Int> cubes(jit::dyn<Words> x, int n) {
  jit::dyn<Int> s(0);
  for (jit::stat<int> j = 0; j < n; ++j) {
    const jit::dyn<Int> a(x[j % 8] + Int{int(j)});
    s = s ^ (a * a * a);
  }
  return s;
}

Int cubes_in_cpp(Words x, int n) {
  std::uint64_t s = 0;
  for (int j = 0; j < n; ++j) {
    const std::uint64_t a = static_cast<std::uint64_t>(x[j % 8]) + static_cast<std::uint64_t>(j);
    s ^= a * a * a;
  }
  return static_cast<Int>(s);
}

jit::dyn<Int> products(jit::dyn<Words> x, int n) {
  jit::dyn<Int> s(0);
  for (jit::stat<int> j = 0; j < n; ++j) s = s + x[j % 8] * Int{int(j) + 1};
  return s;
}

Int products_in_cpp(Words x, int n) {
  std::uint64_t s = 0;
  for (int j = 0; j < n; ++j)
    s += static_cast<std::uint64_t>(x[j % 8]) * static_cast<std::uint64_t>(j + 1);
  return static_cast<Int>(s);
}

using Generator = jit::dyn<Int> (*)(jit::dyn<Words>, int);
using Reference = Int (*)(Words, int);

void compile(benchmark::State& state, Generator generator, Reference reference) {
  const int n = static_cast<int>(state.range(0));
  const std::array<Int, 8> x{3, -5, 7, 1 << 20, -(1 << 30), 11, 0x7fffffff, -1};
  jit::compile_options options;
  options.opt_level = 2;
  const double start = augur::bench::cpu_seconds();
  int version = 0;
  for (auto _ : state) {
    options.name = "reduction" + std::to_string(version++);
    const jit::function<Int(Words)> f = jit::compile(options, generator, n);
    if (f(x.data()) != reference(x.data(), n)) std::abort();
  }
  const double cpu = augur::bench::cpu_seconds() - start;
  state.counters["cpu_ms"] = cpu * 1e3 / static_cast<double>(state.iterations());
  state.counters["cpu_us_per_term"] = cpu * 1e6 / static_cast<double>(state.iterations()) / n;
}

// One compile per size: the large ones take seconds.
void register_reduction(const char* name, Generator generator, Reference reference,
                        std::initializer_list<std::int64_t> sizes) {
  benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
      name, [=](benchmark::State& state) { compile(state, generator, reference); });
  for (std::int64_t n : sizes) b->Arg(n);
  b->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  register_reduction("compile/cubes_O2", cubes, cubes_in_cpp, {500, 1'000, 2'000, 4'000, 8'000});
  register_reduction("compile/products_O2", products, products_in_cpp,
                     {500, 1'000, 2'000, 4'000, 8'000});
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
