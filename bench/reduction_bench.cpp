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

#include "bench/support/compile_per_size.h"
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
  const std::array<Int, 8> x{3, -5, 7, 1 << 20, -(1 << 30), 11, 0x7fffffff, -1};
  jit::compile_options options;
  options.opt_level = 2;
  augur::bench::time_compiles(state, "cpu_us_per_term", [&](int n, const std::string& name) {
    options.name = name;
    const jit::function<Int(Words)> f = jit::compile(options, generator, n);
    if (f(x.data()) != reference(x.data(), n)) std::abort();
  });
}

void register_reduction(const char* name, Generator generator, Reference reference,
                        std::initializer_list<std::int64_t> sizes) {
  augur::bench::register_per_size(
      name, sizes, [=](benchmark::State& state) { compile(state, generator, reference); });
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
