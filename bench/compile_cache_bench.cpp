// The cost of jit::compile(power, 13) when the version is already cached,
// beside what it replaces: a call through a function pointer, and looking the
// function up in a std::unordered_map keyed on the exponent. Also the cost of
// a request served by the shared cache (a thread's first request for a key
// another thread compiled), and of calling the compiled function. And the same
// for jit::ir::compile: a request on a module compiled before, and one on a
// module parsed afresh from the same text (what a front end that regenerates
// its IR pays), beside parsing alone.
//
//   build/release/bench/compile_cache_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "bench/support/ratio_reporter.h"
#include "jit/jit.h"
#include "tests/support/staged_programs.h"

namespace {

using augur::staged::power;

[[gnu::noinline]] double native_power13(double x) {
  double r = x;
  for (int i = 1; i < 13; ++i) r *= x;
  return r;
}

void BM_CompileCached(benchmark::State& state) {
  int n = 13;
  jit::compile(power, n);  // compiled and remembered by this thread
  for (auto _ : state) {
    benchmark::DoNotOptimize(n);
    jit::function<double(double)> f = jit::compile(power, n);
    benchmark::DoNotOptimize(f);
  }
}
BENCHMARK(BM_CompileCached);

// The same request with a non-default options object (part of the key).
void BM_CompileCachedWithOptions(benchmark::State& state) {
  jit::compile_options options;
  options.opt_level = 3;
  options.name = "pow13";
  int n = 13;
  jit::compile(options, power, n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(n);
    jit::function<double(double)> f = jit::compile(options, power, n);
    benchmark::DoNotOptimize(f);
  }
}
BENCHMARK(BM_CompileCachedWithOptions);

// A hit in the shared cache: 256 precompiled keys cycle through the 64 slots
// of this thread's lookup table, so almost every request misses there and is
// served by the shared map (then remembered, replacing another key).
void BM_CompileSharedHit(benchmark::State& state) {
  constexpr int kKeys = 256;
  for (int k = 0; k < kKeys; ++k) jit::compile(power, 1000 + k);
  int k = 0;
  for (auto _ : state) {
    jit::function<double(double)> f = jit::compile(power, 1000 + k);
    benchmark::DoNotOptimize(f);
    k = (k + 67) % kKeys;
  }
}
BENCHMARK(BM_CompileSharedHit);

void BM_FunctionPointerCall(benchmark::State& state) {
  double (*volatile fn)(double) = &native_power13;
  double x = 1.0000001;
  for (auto _ : state) {
    benchmark::DoNotOptimize(fn(x));
  }
}
BENCHMARK(BM_FunctionPointerCall);

void BM_UnorderedMapLookup(benchmark::State& state) {
  std::unordered_map<int, double (*)(double)> table;
  for (int n = 0; n < 64; ++n) table.emplace(n, &native_power13);
  int n = 13;
  for (auto _ : state) {
    benchmark::DoNotOptimize(n);
    auto it = table.find(n);
    benchmark::DoNotOptimize(it->second);
  }
}
BENCHMARK(BM_UnorderedMapLookup);

void BM_CallCompiled(benchmark::State& state) {
  const jit::function<double(double)> f = jit::compile(power, 13);
  double x = 1.0000001;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x);
    benchmark::DoNotOptimize(f(x));
  }
}
BENCHMARK(BM_CallCompiled);

// power(x, 13) unrolled as the staged power makes it.
constexpr const char* kIrPower = R"(
fn ir_power13(x: f64) -> f64 {
  var r: f64 = 1.0f64;
  r = r * x;
  x = x * x;
  x = x * x;
  r = r * x;
  x = x * x;
  r = r * x;
  return r;
}
)";

void BM_IrCompileCached(benchmark::State& state) {
  const jit::ir::module module = jit::ir::parse(kIrPower);
  jit::ir::compile<double(double)>(module, "ir_power13");
  for (auto _ : state) {
    jit::function<double(double)> f = jit::ir::compile<double(double)>(module, "ir_power13");
    benchmark::DoNotOptimize(f);
  }
}
BENCHMARK(BM_IrCompileCached);

void BM_IrParse(benchmark::State& state) {
  for (auto _ : state) {
    jit::ir::module module = jit::ir::parse(kIrPower);
    benchmark::DoNotOptimize(module);
  }
}
BENCHMARK(BM_IrParse);

void BM_IrParseAndCompileCached(benchmark::State& state) {
  jit::ir::compile<double(double)>(jit::ir::parse(kIrPower), "ir_power13");
  for (auto _ : state) {
    jit::function<double(double)> f =
        jit::ir::compile<double(double)>(jit::ir::parse(kIrPower), "ir_power13");
    benchmark::DoNotOptimize(f);
  }
}
BENCHMARK(BM_IrParseAndCompileCached);

void print_ratios(const augur::bench::RatioReporter& r) {
  r.print_ratio("jit::compile hit / unordered_map lookup", "BM_CompileCached",
                "BM_UnorderedMapLookup");
  r.print_ratio("jit::ir::compile hit / jit::compile hit", "BM_IrCompileCached",
                "BM_CompileCached");
  r.print_ratio("parse + jit::ir::compile hit / parse alone", "BM_IrParseAndCompileCached",
                "BM_IrParse");
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  augur::bench::RatioReporter reporter(print_ratios);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
