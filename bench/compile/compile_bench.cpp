// Issue 4's benchmarks that need only the CPU backend, each a ratio measured
// in one run (printed last; of the medians with --benchmark_repetitions):
//
//   Cold compile: power(x, 13) and the staged BF compiler on a 1,000+
//   instruction program, IR → callable address by augur::cpu::compile at O0
//   and O2, against printing the same IR as C, cc -O0/-O2 -fwrapv -shared
//   -fPIC, dlopen and dlsym. Extraction (the first stage) is common to both
//   routes and not timed.
//
//   Code speed: power13, a dot product of length 64 and the BF program,
//   compiled by Augur at O2 and O3, against the same computation written in
//   C++ and compiled with the bench target's flags (g++ -O3) and with
//   -march=native added, and against the printed IR built by cc and clang-14
//   at -O3 -fwrapv (which tells the IR's shape from the backend's code). Every
//   function is called through a pointer.
//
// The ratios come as wall time and as CPU time: on a loaded machine only the
// latter compares (cc's CPU is counted through RUSAGE_CHILDREN).
//
//   build/release/bench/compile_bench --benchmark_repetitions=5
#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/compile/ir_to_c.h"
#include "bench/compile/native.h"
#include "bench/compile/programs.h"
#include "bench/support/cpu_time.h"
#include "bench/support/ratio_reporter.h"
#include "bf.h"
#include "jit/cpu/compile.h"
#include "jit/cpu/statistics.h"
#include "jit/jit.h"
#include "runtime/stage/extract.h"
#include "tests/support/staged_programs.h"

namespace augur::bench {
namespace {

// ---------------------------------------------------------------- programs

using augur::staged::power;

jit::dyn<double> dot(jit::dyn<const double*> a, jit::dyn<const double*> b, int n) {
  jit::dyn<double> sum("sum", 0.0);
  for (jit::stat<int> i = 0; i < n; ++i) sum = sum + a[i] * b[i];
  return sum;
}

template <class F, class... S>
ir::Module extract_module(const std::string& name, F&& generator, S&&... statics) {
  jit::extract_options options;
  options.name = name;
  const jit::extraction e =
      jit::extract(options, std::forward<F>(generator), std::forward<S>(statics)...);
  return e.result().extracted.module;
}

enum class Program { Power, Dot, Bf };
constexpr std::array<const char*, 3> kNames = {"power13", "dot64", "bf"};

const ir::Module& module_of(Program program) {
  static const std::array<ir::Module, 3> modules = {
      extract_module("power13", power, kPowerExponent), extract_module("dot64", dot, kDotLength),
      extract_module("bf", bf::staged, long_bf_program())};
  return modules[static_cast<int>(program)];
}

using PowerFn = double (*)(double);
using DotFn = double (*)(const double*, const double*);
using BfFn = int (*)(std::uint8_t*, const std::uint8_t*, std::uint8_t*);

// ---------------------------------------------------------------- checks

// The inputs every version runs on, and the answers of the hand-written C++.
struct Inputs {
  std::array<double, kDotLength> a{}, b{};
  std::array<std::uint8_t, 64> input{};
  Inputs() {
    for (int i = 0; i < kDotLength; ++i) {
      a[i] = 0.5 + i * 0.25;
      b[i] = 1.0 - i * 0.125;
    }
    const std::string echo = "echo";
    std::copy(echo.begin(), echo.end(), input.begin());
  }
};
const Inputs kInputs;

struct BfRun {
  std::array<std::uint8_t, 256> tape{};
  std::array<std::uint8_t, 256> output{};
  int written = 0;
  bool operator==(const BfRun&) const = default;
};

BfRun run_bf(BfFn fn) {
  BfRun run;
  run.written = fn(run.tape.data(), kInputs.input.data(), run.output.data());
  return run;
}

// Aborts unless `address` computes what the hand-written C++ does.
void check(Program program, void* address) {
  bool right = false;
  switch (program) {
    case Program::Power:
      right = reinterpret_cast<PowerFn>(address)(1.1) == native_o3::power13(1.1);
      break;
    case Program::Dot:
      right = reinterpret_cast<DotFn>(address)(kInputs.a.data(), kInputs.b.data()) ==
              native_o3::dot64(kInputs.a.data(), kInputs.b.data());
      break;
    case Program::Bf:
      right = run_bf(reinterpret_cast<BfFn>(address)) == run_bf(native_o3::bf);
      break;
  }
  if (!right) {
    std::fprintf(stderr, "%s computes a wrong result\n", kNames[static_cast<int>(program)]);
    std::abort();
  }
}

// ---------------------------------------------------------------- cold compile

// Milliseconds of CPU per iteration since `start`: comparable across routes
// even on a loaded machine, where wall time also counts waiting.
void cpu_counter(benchmark::State& state, double start) {
  state.counters["cpu_ms"] =
      (cpu_seconds() - start) * 1e3 / static_cast<double>(state.iterations());
}

// Compiles `c` into a shared library and loads it; the handle.
void* cc_load(const std::string& c, const std::string& stem, const std::string& flags,
              const std::string& compiler = "cc") {
  std::ofstream(stem + ".c") << c;
  const std::string command =
      compiler + " " + flags + " -fwrapv -shared -fPIC -o " + stem + ".so " + stem + ".c";
  if (std::system(command.c_str()) != 0) std::abort();
  void* handle = dlopen((stem + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) std::abort();
  return handle;
}

// Where the C sources and libraries go; removed at exit (loaded libraries stay mapped).
std::filesystem::path scratch_directory() {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("augur_compile_bench_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

void augur_compile(benchmark::State& state, Program program) {
  const ir::Module& module = module_of(program);
  cpu::Options options;
  options.opt_level = static_cast<int>(state.range(0));
  options.invokers = false;  // a typed caller needs the C ABI entry only
  const double start = cpu_seconds();
  const cpu::Statistics before = cpu::statistics();
  for (auto _ : state) {
    auto code = cpu::compile(module, {}, options);
    check(program, code->address(kNames[static_cast<int>(program)]));
  }
  cpu_counter(state, start);
  // Where the time goes, per compilation, from the backend's statistics.
  const cpu::Statistics after = cpu::statistics();
  auto per_compile = [&](std::chrono::nanoseconds before_phase,
                         std::chrono::nanoseconds after_phase) {
    return std::chrono::duration<double, std::milli>(after_phase - before_phase).count() /
           static_cast<double>(state.iterations());
  };
  state.counters["ir_ms"] = per_compile(before.ir_to_llvm, after.ir_to_llvm);
  state.counters["opt_ms"] = per_compile(before.optimization, after.optimization);
  state.counters["mc_ms"] = per_compile(before.machine_code, after.machine_code);
}

// Prints the C, compiles it into a shared library and loads it: BuildIt's route.
void cc_compile(benchmark::State& state, Program program) {
  const ir::Module& module = module_of(program);
  const std::filesystem::path dir = scratch_directory();
  const std::string name = kNames[static_cast<int>(program)];
  const std::string flags = "-O" + std::to_string(state.range(0));
  int version = 0;
  const double start = cpu_seconds();
  for (auto _ : state) {
    const std::string stem = (dir / (name + std::to_string(version++))).string();
    void* handle = cc_load(ir_to_c(module), stem, flags);
    check(program, dlsym(handle, name.c_str()));
    dlclose(handle);
  }
  cpu_counter(state, start);
}

// ---------------------------------------------------------------- code speed

// The compiled versions stay loaded for the whole run.
void* augur_address(Program program, int opt_level) {
  static std::map<std::pair<Program, int>, std::shared_ptr<cpu::CompiledCode>> versions;
  auto& code = versions[{program, opt_level}];
  if (!code) {
    cpu::Options options;
    options.opt_level = opt_level;
    options.invokers = false;
    code = cpu::compile(module_of(program), {}, options);
    check(program, code->address(kNames[static_cast<int>(program)]));
  }
  return code->address(kNames[static_cast<int>(program)]);
}

// The printed IR compiled by `compiler` -O3 -fwrapv (loaded for the whole
// run): the IR's own semantics (wrapping integers) in a C compiler's hands,
// GCC's (cc) and LLVM's (clang-14).
template <class Fn>
Fn printed_fn(Program program, const std::string& compiler) {
  static std::map<std::pair<Program, std::string>, void*> handles;
  const std::string name = kNames[static_cast<int>(program)];
  void*& handle = handles[{program, compiler}];
  if (!handle) {
    const std::string stem = (scratch_directory() / (name + "_" + compiler)).string();
    handle = cc_load(ir_to_c(module_of(program)), stem, "-O3", compiler);
    check(program, dlsym(handle, name.c_str()));
  }
  return reinterpret_cast<Fn>(dlsym(handle, name.c_str()));
}

void run_power(benchmark::State& state, PowerFn fn) {
  double x = 1.0000001;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x);
    benchmark::DoNotOptimize(fn(x));
  }
}

void run_dot(benchmark::State& state, DotFn fn) {
  Inputs inputs = kInputs;
  for (auto _ : state) {
    benchmark::DoNotOptimize(inputs.a.data());
    benchmark::DoNotOptimize(fn(inputs.a.data(), inputs.b.data()));
  }
}

void run_bf_loop(benchmark::State& state, BfFn fn) {
  BfRun run;
  for (auto _ : state) {
    run.tape.fill(0);
    benchmark::DoNotOptimize(fn(run.tape.data(), kInputs.input.data(), run.output.data()));
    benchmark::ClobberMemory();
  }
}

template <class Fn>
Fn augur_fn(Program program, int opt_level) {
  return reinterpret_cast<Fn>(augur_address(program, opt_level));
}

void register_benchmarks() {
  for (Program program : {Program::Power, Program::Bf}) {
    const std::string name = kNames[static_cast<int>(program)];
    benchmark::RegisterBenchmark(("compile/augur/" + name).c_str(), augur_compile, program)
        ->Arg(0)
        ->Arg(2)
        ->MeasureProcessCPUTime()  // materialization runs on a TBB worker
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("compile/cc/" + name).c_str(), cc_compile, program)
        ->Arg(0)
        ->Arg(2)
        ->Iterations(10)
        ->Unit(benchmark::kMillisecond);
  }
  for (int level : {2, 3}) {
    const std::string suffix = "/augur_O" + std::to_string(level);
    benchmark::RegisterBenchmark(("run/power13" + suffix).c_str(), [level](benchmark::State& s) {
      run_power(s, augur_fn<PowerFn>(Program::Power, level));
    });
    benchmark::RegisterBenchmark(("run/dot64" + suffix).c_str(), [level](benchmark::State& s) {
      run_dot(s, augur_fn<DotFn>(Program::Dot, level));
    });
    benchmark::RegisterBenchmark(("run/bf" + suffix).c_str(), [level](benchmark::State& s) {
      run_bf_loop(s, augur_fn<BfFn>(Program::Bf, level));
    });
  }
  const std::pair<const char*, const char*> compilers[] = {{"cc", "cc"}, {"clang-14", "clang"}};
  for (const auto& [compiler, label] : compilers) {
    const std::string suffix = std::string("/") + label + "_O3_fwrapv";
    benchmark::RegisterBenchmark(("run/power13" + suffix).c_str(), [compiler](benchmark::State& s) {
      run_power(s, printed_fn<PowerFn>(Program::Power, compiler));
    });
    benchmark::RegisterBenchmark(("run/dot64" + suffix).c_str(), [compiler](benchmark::State& s) {
      run_dot(s, printed_fn<DotFn>(Program::Dot, compiler));
    });
    benchmark::RegisterBenchmark(("run/bf" + suffix).c_str(), [compiler](benchmark::State& s) {
      run_bf_loop(s, printed_fn<BfFn>(Program::Bf, compiler));
    });
  }
  // Through pointers the compiler cannot see through, like Augur's.
  static volatile PowerFn power_o3 = native_o3::power13, power_march = native_o3_march::power13;
  static volatile DotFn dot_o3 = native_o3::dot64, dot_march = native_o3_march::dot64;
  static volatile BfFn bf_o3 = native_o3::bf, bf_march = native_o3_march::bf;
  benchmark::RegisterBenchmark("run/power13/gxx_O3", [](auto& s) { run_power(s, power_o3); });
  benchmark::RegisterBenchmark("run/power13/gxx_O3_march",
                               [](auto& s) { run_power(s, power_march); });
  benchmark::RegisterBenchmark("run/dot64/gxx_O3", [](auto& s) { run_dot(s, dot_o3); });
  benchmark::RegisterBenchmark("run/dot64/gxx_O3_march", [](auto& s) { run_dot(s, dot_march); });
  benchmark::RegisterBenchmark("run/bf/gxx_O3", [](auto& s) { run_bf_loop(s, bf_o3); });
  benchmark::RegisterBenchmark("run/bf/gxx_O3_march", [](auto& s) { run_bf_loop(s, bf_march); });
}

// One pair's line after the console report: wall and CPU (`cpu_ms` where set).
void ratio(const RatioReporter& report, const std::string& peer, const std::string& augur,
           double scale, const char* unit) {
  const auto [a, p] = report.pair(augur, peer);
  if (!a) return;
  const double a_cpu = a->counted_cpu_ns(), p_cpu = p->counted_cpu_ns();
  std::printf("  %-22s %9.3f %s vs %-24s %9.3f %s: wall %6.2f, CPU %6.2f (%.3f vs %.3f %s)\n",
              augur.c_str(), a->wall_ns / scale, unit, peer.c_str(), p->wall_ns / scale, unit,
              p->wall_ns / a->wall_ns, p_cpu / a_cpu, a_cpu / scale, p_cpu / scale, unit);
}

void print_ratios(const RatioReporter& r) {
  std::printf(
      "\nCold compile, cc + dlopen / Augur (target >= 10), wall and CPU (cc's included):\n");
  for (const char* program : {"power13", "bf"}) {
    for (const char* level : {"0", "2"}) {
      ratio(r, std::string("compile/cc/") + program + "/" + level,
            std::string("compile/augur/") + program + "/" + level, 1e6, "ms");
    }
  }
  std::printf("\nCode speed, peer time / Augur time (target >= 0.9), wall and CPU:\n");
  for (const char* program : {"power13", "dot64", "bf"}) {
    for (const char* augur : {"augur_O2", "augur_O3"}) {
      for (const char* peer : {"gxx_O3", "gxx_O3_march", "cc_O3_fwrapv", "clang_O3_fwrapv"}) {
        ratio(r, std::string("run/") + program + "/" + peer,
              std::string("run/") + program + "/" + augur, 1, "ns");
      }
    }
  }
}

}  // namespace
}  // namespace augur::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::printf("BF program: %zu instructions\n", augur::bench::long_bf_program().size());
  augur::bench::register_benchmarks();
  augur::bench::RatioReporter reporter(augur::bench::print_ratios);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::filesystem::remove_all(augur::bench::scratch_directory());
  return 0;
}
