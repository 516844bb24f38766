// The CPU backend on large functions (issue 13): BF-like programs of 1k to
// 100k IR statements (tests/support/bf_like_program.h), compiled by
// augur::cpu::compile at O2 and, printed as C (bench/compile/ir_to_c.h), by
// gcc -O2 -fwrapv -shared -fPIC + dlopen. Per size it reports each route's
// compile time per statement (wall, and CPU with the TBB workers and gcc
// counted), then the code speed of both on the same input, and prints the
// ratios last.
//
//   build/release/bench/cpu_large_bench
//   build/release/bench/cpu_large_bench --benchmark_filter='/10000(/|$)'
//
// AUGUR_LARGE_BENCH_SPLIT_NODES=n sets Options::split_nodes (0: every
// function compiled whole, the figures before splitting).
#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/compile/ir_to_c.h"
#include "bench/support/cpu_time.h"
#include "bench/support/ratio_reporter.h"
#include "jit/cpu/compile.h"
#include "jit/cpu/statistics.h"
#include "tests/support/bf_like_program.h"

namespace augur::bench {
namespace {

constexpr std::array<std::int64_t, 4> kSizes = {1'000, 10'000, 50'000, 100'000};

using BfFn = std::int64_t (*)(std::uint8_t*, const std::uint8_t*, std::uint8_t*);

const testing::RandomProgram& program_of(std::int64_t statements) {
  static std::map<std::int64_t, testing::RandomProgram> programs;
  auto it = programs.find(statements);
  if (it == programs.end()) {
    testing::BfLikeOptions options;
    options.seed = 13;
    options.statements = static_cast<std::size_t>(statements);
    it = programs.emplace(statements, testing::bf_like_program(options)).first;
  }
  return it->second;
}

cpu::Options augur_options() {
  cpu::Options options;
  options.opt_level = 2;
  options.invokers = false;  // a typed caller needs the C ABI entry only
  if (const char* nodes = std::getenv("AUGUR_LARGE_BENCH_SPLIT_NODES")) {
    options.split_nodes = std::strtoull(nodes, nullptr, 10);
  }
  return options;
}

// One input for every version: loop counts come from it.
struct BfRun {
  std::array<std::uint8_t, testing::kBfTapeLength> tape{};
  std::array<std::uint8_t, testing::kBfIoLength> input{};
  std::array<std::uint8_t, testing::kBfIoLength> output{};
  std::int64_t written = 0;
  bool operator==(const BfRun&) const = default;
};

BfRun run_once(BfFn fn) {
  BfRun run;
  for (std::size_t i = 0; i < run.input.size(); ++i) {
    run.input[i] = static_cast<std::uint8_t>(i * 37 + 11);
  }
  for (std::size_t i = 0; i < run.tape.size(); ++i) run.tape[i] = static_cast<std::uint8_t>(i);
  run.written = fn(run.tape.data(), run.input.data(), run.output.data());
  return run;
}

// Peak resident memory so far, MiB, of this process or of its largest child
// (gcc's cc1): the peak of one size when a run is filtered to that size.
double max_rss_mib(int who) {
  rusage usage{};
  getrusage(who, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void counters(benchmark::State& state, double cpu_start) {
  const double n = static_cast<double>(state.iterations());
  state.counters["cpu_ms"] = (cpu_seconds() - cpu_start) * 1e3 / n;
  state.counters["stmts"] = static_cast<double>(program_of(state.range(0)).nodes);
  state.counters["rss_mib"] = max_rss_mib(RUSAGE_SELF);
  state.counters["child_rss_mib"] = max_rss_mib(RUSAGE_CHILDREN);
}

std::filesystem::path scratch_directory() {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("augur_large_bench_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

void* gcc_load(const ir::Module& module, const std::string& stem) {
  std::ofstream(stem + ".c") << ir_to_c(module);
  const std::string command = "gcc -O2 -fwrapv -shared -fPIC -o " + stem + ".so " + stem + ".c";
  if (std::system(command.c_str()) != 0) std::abort();
  void* handle = dlopen((stem + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) std::abort();
  return handle;
}

// The program's C built by gcc, loaded once for the reference result and
// the code speed.
BfFn gcc_fn(std::int64_t statements) {
  static std::map<std::int64_t, void*> handles;
  void*& handle = handles[statements];
  if (!handle) {
    handle = gcc_load(program_of(statements).module,
                      (scratch_directory() / ("ref" + std::to_string(statements))).string());
  }
  return reinterpret_cast<BfFn>(dlsym(handle, "bf"));
}

const BfRun& expected(std::int64_t statements) {
  static std::map<std::int64_t, BfRun> runs;
  auto it = runs.find(statements);
  if (it == runs.end()) it = runs.emplace(statements, run_once(gcc_fn(statements))).first;
  return it->second;
}

void check(std::int64_t statements, void* address) {
  if (run_once(reinterpret_cast<BfFn>(address)) != expected(statements)) {
    std::fprintf(stderr, "Augur and gcc disagree on the %lld-statement program\n",
                 static_cast<long long>(statements));
    std::abort();
  }
}

void augur_compile(benchmark::State& state) {
  const ir::Module& module = program_of(state.range(0)).module;
  const cpu::Options options = augur_options();
  expected(state.range(0));  // gcc builds the reference outside the counted CPU time
  const double start = cpu_seconds();
  const cpu::Statistics before = cpu::statistics();
  for (auto _ : state) {
    auto code = cpu::compile(module, {}, options);
    state.PauseTiming();
    check(state.range(0), code->address("bf"));
    code.reset();
    state.ResumeTiming();
  }
  counters(state, start);
  // CPU milliseconds per compile in each phase, all threads together.
  const cpu::Statistics after = cpu::statistics();
  auto per_compile = [&](std::chrono::nanoseconds from, std::chrono::nanoseconds to) {
    return std::chrono::duration<double, std::milli>(to - from).count() /
           static_cast<double>(state.iterations());
  };
  state.counters["ir_ms"] = per_compile(before.ir_to_llvm, after.ir_to_llvm);
  state.counters["opt_ms"] = per_compile(before.optimization, after.optimization);
  state.counters["mc_ms"] = per_compile(before.machine_code, after.machine_code);
  state.counters["pieces"] = static_cast<double>(after.pieces_compiled - before.pieces_compiled) /
                             static_cast<double>(state.iterations());
}

void gcc_compile(benchmark::State& state) {
  const ir::Module& module = program_of(state.range(0)).module;
  const std::filesystem::path dir = scratch_directory();
  int version = 0;
  expected(state.range(0));
  const double start = cpu_seconds();
  for (auto _ : state) {
    const std::string stem =
        (dir / ("bf" + std::to_string(state.range(0)) + "_" + std::to_string(version++))).string();
    void* handle = gcc_load(module, stem);
    state.PauseTiming();
    check(state.range(0), dlsym(handle, "bf"));
    dlclose(handle);
    state.ResumeTiming();
  }
  counters(state, start);
}

// Loaded once, kept for the run.
BfFn augur_fn(std::int64_t statements) {
  static std::map<std::int64_t, std::shared_ptr<cpu::CompiledCode>> versions;
  auto& code = versions[statements];
  if (!code) code = cpu::compile(program_of(statements).module, {}, augur_options());
  return reinterpret_cast<BfFn>(code->address("bf"));
}

void run_code(benchmark::State& state, BfFn fn) {
  if (run_once(fn) != expected(state.range(0))) std::abort();
  for (auto _ : state) benchmark::DoNotOptimize(run_once(fn).written);
}

void register_benchmarks() {
  for (std::int64_t size : kSizes) {
    // Process CPU time: the pieces of a split function compile on TBB workers.
    benchmark::RegisterBenchmark("compile/augur_O2", augur_compile)
        ->Arg(size)
        ->Iterations(size <= 10'000 ? 5 : 1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("compile/gcc_O2", gcc_compile)
        ->Arg(size)
        ->Iterations(size <= 10'000 ? 3 : 1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  for (std::int64_t size : kSizes) {
    benchmark::RegisterBenchmark("run/augur_O2",
                                 [](benchmark::State& s) { run_code(s, augur_fn(s.range(0))); })
        ->Arg(size)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("run/gcc_O2",
                                 [](benchmark::State& s) { run_code(s, gcc_fn(s.range(0))); })
        ->Arg(size)
        ->Unit(benchmark::kMicrosecond);
  }
}

// After the console report, per size: compile time per statement of both
// routes and gcc/Augur ratios of compile time and of run time. The CPU time
// of a compile is its `cpu_ms` counter (threads and children included).
void print_summary(const RatioReporter& report) {
  std::printf("\n%8s | %-27s | %-27s | %-17s | %s\n%8s | %-27s | %-27s | %-17s | %s\n", "stmts",
              "Augur O2 compile", "gcc -O2 compile", "gcc/Augur compile", "gcc/Augur code speed",
              "", "ms wall, us/stmt wall, CPU", "ms wall, us/stmt wall, CPU", "wall, CPU",
              "(run time; >= 0.9 wanted)");
  const auto cpu_ns = [](const RunTimes* t) {
    if (!t) return 0.0;
    const auto cpu = t->counters.find("cpu_ms");
    return cpu == t->counters.end() ? t->wall_ns : cpu->second * 1e6;
  };
  for (std::int64_t size : kSizes) {
    const std::string arg = "/" + std::to_string(size);
    const RunTimes* augur = report.find("compile/augur_O2" + arg);
    const RunTimes* gcc = report.find("compile/gcc_O2" + arg);
    if (!augur && !gcc) continue;
    const double n = static_cast<double>(program_of(size).nodes);
    const double a_wall = augur ? augur->wall_ns : 0, g_wall = gcc ? gcc->wall_ns : 0;
    std::printf("%8.0f | %9.1f %7.2f %7.2f | %9.1f %7.2f %7.2f | %7.2f %7.2f | ", n, a_wall / 1e6,
                a_wall / 1e3 / n, cpu_ns(augur) / 1e3 / n, g_wall / 1e6, g_wall / 1e3 / n,
                cpu_ns(gcc) / 1e3 / n, g_wall / a_wall, cpu_ns(gcc) / cpu_ns(augur));
    const RunTimes* run_a = report.find("run/augur_O2" + arg);
    const RunTimes* run_g = report.find("run/gcc_O2" + arg);
    if (run_a && run_g) {
      std::printf("%.2f (%.1f vs %.1f us)", run_g->wall_ns / run_a->wall_ns, run_a->wall_ns / 1e3,
                  run_g->wall_ns / 1e3);
    }
    std::printf("\n");
  }
}

}  // namespace
}  // namespace augur::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  augur::bench::register_benchmarks();
  augur::bench::RatioReporter reporter(augur::bench::print_summary);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::filesystem::remove_all(augur::bench::scratch_directory());
  return 0;
}
