// Compile latency of the CPU backend: a small IR function → a callable
// address, at O0 and O2, beside the route BuildIt takes (C source, the system
// compiler at the same -O level, dlopen). Prints the Augur/peer ratios last.
//
//   build/release/bench/cpu_compile_bench
#include <dlfcn.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "jit/compile.h"
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

void augur_compile(benchmark::State& state) {
  const ir::Module module = horner();
  cpu::Options options;
  options.opt_level = static_cast<int>(state.range(0));
  for (auto _ : state) {
    auto code = cpu::compile(module, {}, options);
    check(reinterpret_cast<Horner>(code->address("horner")));
  }
}

// The first compilation of the process: creates the engine and warms LLVM.
void augur_first_compile(benchmark::State& state) {
  for (auto _ : state) {
    cpu::Options options;
    options.opt_level = 2;
    auto code = cpu::compile(horner(), {}, options);
    check(reinterpret_cast<Horner>(code->address("horner")));
  }
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

BENCHMARK(augur_first_compile)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(augur_compile)->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(system_compiler)->Arg(0)->Arg(2)->Iterations(20)->Unit(benchmark::kMillisecond);

// The console report, then "augur / cc" per -O level.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Iteration)
        seconds_[run.benchmark_name()] = run.GetAdjustedRealTime();
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const char* level : {"0", "2"}) {
      const std::string augur = "augur_compile/" + std::string(level);
      const std::string cc = "system_compiler/" + std::string(level);
      if (!seconds_.count(augur) || !seconds_.count(cc)) continue;
      std::printf("O%s: augur %.3f ms, cc + dlopen %.3f ms, ratio %.4f (%.0fx faster)\n", level,
                  seconds_[augur], seconds_[cc], seconds_[augur] / seconds_[cc],
                  seconds_[cc] / seconds_[augur]);
    }
  }

 private:
  std::map<std::string, double> seconds_;  // in the runs' unit (ms)
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
