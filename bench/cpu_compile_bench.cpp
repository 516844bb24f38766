// Compile latency of the CPU backend: a small IR function → a callable
// address, at O0 and O2, beside the route BuildIt takes (C source, the system
// compiler at the same -O level, dlopen). Prints the Augur/peer ratios last
// (of the medians, with --benchmark_repetitions).
//
//   build/release/bench/cpu_compile_bench --benchmark_repetitions=5
#include <dlfcn.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include "bench/support/ratio_reporter.h"
#include "jit/cpu/compile.h"
#include "jit/cpu/statistics.h"
#include "runtime/ir/builder.h"

namespace {

using namespace augur;

// fn horner(x: f64, n: i32) -> f64 {
//   var r: f64 = 0.0; var i: i32 = 0;
//   while (i < n) { r = r * x + f64(i); i = i + 1; }
//   return r;
// }
ir::Module horner() {
  using ir::BinaryOp;
  ir::FunctionBuilder b("horner", ir::Type::f64());
  ir::VarId x = b.param("x", ir::Type::f64());
  ir::VarId n = b.param("n", ir::Type::i32());
  ir::VarId r = b.declare("r", ir::Type::f64(), ir::constant(0.0));
  ir::VarId i = b.declare("i", ir::Type::i32(), ir::constant<std::int32_t>(0));
  b.while_(ir::binary(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
    b.assign(r, ir::binary(BinaryOp::Add, ir::binary(BinaryOp::Mul, b.read(r), b.read(x)),
                           ir::cast(ir::Type::f64(), b.read(i))));
    b.assign(i, ir::binary(BinaryOp::Add, b.read(i), ir::constant<std::int32_t>(1)));
  });
  b.return_(b.read(r));
  ir::Module module;
  module.functions.push_back(std::move(b).finish());
  return module;
}

constexpr const char* kHornerC = R"(
double horner(double x, int n) {
  double r = 0.0;
  int i = 0;
  while (i < n) { r = r * x + (double)i; i = i + 1; }
  return r;
}
)";

using Horner = double (*)(double, std::int32_t);

void check(Horner f) {
  if (f(2.0, 4) != 11.0) std::abort();
}

// Milliseconds per compilation spent in each phase, from the backend's statistics.
void phase_counters(benchmark::State& state, const cpu::Statistics& before) {
  const cpu::Statistics after = cpu::statistics();
  const double n = static_cast<double>(state.iterations());
  auto per_compile = [&](std::chrono::nanoseconds a, std::chrono::nanoseconds b) {
    return std::chrono::duration<double, std::milli>(b - a).count() / n;
  };
  state.counters["ir_ms"] = per_compile(before.ir_to_llvm, after.ir_to_llvm);
  state.counters["opt_ms"] = per_compile(before.optimization, after.optimization);
  state.counters["mc_ms"] = per_compile(before.machine_code, after.machine_code);
}

void compile_loop(benchmark::State& state, bool invokers) {
  const ir::Module module = horner();
  cpu::Options options;
  options.opt_level = static_cast<int>(state.range(0));
  options.invokers = invokers;
  const cpu::Statistics before = cpu::statistics();
  for (auto _ : state) {
    auto code = cpu::compile(module, {}, options);
    check(reinterpret_cast<Horner>(code->address("horner")));
  }
  phase_counters(state, before);
}

// What a typed caller (jit::compile) needs: the C ABI entry only.
void augur_compile(benchmark::State& state) {
  compile_loop(state, false);
}

// With the generic invoker that invoke() calls, a second function to compile.
void augur_compile_with_invokers(benchmark::State& state) {
  compile_loop(state, true);
}

void system_compiler(benchmark::State& state) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("augur_bench_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path source = dir / "horner.c";
  std::ofstream(source) << kHornerC;
  int version = 0;
  for (auto _ : state) {
    const std::filesystem::path library = dir / ("horner" + std::to_string(version++) + ".so");
    const std::string command = "cc -O" + std::to_string(state.range(0)) + " -shared -fPIC -o " +
                                library.string() + " " + source.string();
    if (std::system(command.c_str()) != 0) std::abort();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) std::abort();
    check(reinterpret_cast<Horner>(dlsym(handle, "horner")));
    dlclose(handle);
  }
  std::filesystem::remove_all(dir);
}

// Process CPU time: materialization runs on a TBB worker, not the calling thread.
BENCHMARK(augur_compile)
    ->Arg(0)
    ->Arg(2)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(augur_compile_with_invokers)
    ->Arg(0)
    ->Arg(2)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(system_compiler)->Arg(0)->Arg(2)->Iterations(20)->Unit(benchmark::kMillisecond);

// After the console report, "augur / cc" per -O level.
void print_ratios(const bench::RatioReporter& report) {
  for (const char* level : {"0", "2"}) {
    const auto [augur, cc] =
        report.pair(std::string("augur_compile/") + level, std::string("system_compiler/") + level);
    if (!augur) continue;
    const double a = augur->wall_ns / 1e6, c = cc->wall_ns / 1e6;
    std::printf("O%s: augur %.3f ms, cc + dlopen %.3f ms, ratio %.4f (%.0fx faster)\n", level, a, c,
                a / c, c / a);
  }
}

}  // namespace

// The first compilation of the process, which also creates the engine and
// warms up LLVM: once per process, so outside the benchmark loop.
void report_cold_compile() {
  const auto wall = std::chrono::steady_clock::now();
  const std::clock_t cpu = std::clock();
  cpu::Options options;
  options.opt_level = 2;
  options.invokers = false;
  auto code = cpu::compile(horner(), {}, options);
  check(reinterpret_cast<Horner>(code->address("horner")));
  const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC;
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall).count();
  std::printf("cold: first compile of the process at O2: %.2f ms wall, %.2f ms process CPU\n",
              wall_ms, cpu_ms);
}

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  report_cold_compile();
  bench::RatioReporter reporter(print_ratios);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
