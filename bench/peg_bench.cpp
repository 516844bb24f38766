// The PEG optimizer: time in each phase (to PEG, saturate, extract, revert)
// on random programs of 10 to 10,000 IR nodes and on the staging goldens,
// and the speed of the code the CPU backend makes at O2 with the optimizer
// on and off, side by side in the same run (the ratio is printed last).
//
//   build/release/bench/peg_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "jit/compile.h"
#include "runtime/ir/parser.h"
#include "runtime/peg/optimize.h"
#include "tests/support/random_program.h"

namespace {

using namespace augur;

double us(std::chrono::nanoseconds d) {
  return static_cast<double>(d.count()) / 1e3;
}

// Averages the report's phases over the benchmark's iterations.
struct PhaseCounters {
  double to_peg = 0, saturate = 0, extract = 0, revert = 0, total = 0, optimized = 0, nodes = 0;
  std::size_t runs = 0;
  void add(const peg::PegReport& r) {
    for (const peg::PegFunctionReport& f : r.functions) {
      to_peg += us(f.to_peg);
      saturate += us(f.saturate);
      extract += us(f.extract);
      revert += us(f.revert);
      optimized += f.optimized ? 1 : 0;
      nodes += static_cast<double>(f.ir_nodes);
    }
    total += us(r.total);
    ++runs;
  }
  void publish(benchmark::State& state) const {
    const double n = static_cast<double>(runs);
    state.counters["to_peg_us"] = to_peg / n;
    state.counters["saturate_us"] = saturate / n;
    state.counters["extract_us"] = extract / n;
    state.counters["revert_us"] = revert / n;
    state.counters["total_us"] = total / n;
    state.counters["optimized"] = optimized / n;
    state.counters["ir_nodes"] = nodes / n;
  }
};

// Random structured programs of about state.range(0) IR nodes, 8 seeds in turn.
void phases_random(benchmark::State& state) {
  std::vector<ir::Module> programs;
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    testing::RandomProgramOptions o;
    o.seed = 500 + seed;
    o.target_nodes = static_cast<std::size_t>(state.range(0));
    programs.push_back(testing::random_program(o).module);
  }
  PhaseCounters counters;
  std::size_t k = 0;
  for (auto _ : state) {
    const peg::PegResult r = peg::optimize(programs[k++ % programs.size()]);
    counters.add(r.report);
  }
  counters.publish(state);
}
BENCHMARK(phases_random)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

std::map<std::string, ir::Module> goldens() {
  std::map<std::string, ir::Module> out;
  for (const auto& file : std::filesystem::directory_iterator(AUGUR_BENCH_GOLDEN_DIR)) {
    if (file.path().extension() != ".ir") continue;
    std::ifstream stream(file.path());
    const std::string text((std::istreambuf_iterator<char>(stream)),
                           std::istreambuf_iterator<char>());
    out.emplace(file.path().stem().string(), ir::parse_module(text, file.path().string()));
  }
  return out;
}

void phases_golden(benchmark::State& state, const ir::Module& module) {
  PhaseCounters counters;
  for (auto _ : state) counters.add(peg::optimize(module).report);
  counters.publish(state);
}

// Programs of the 22 cases (tests/peg/cases_test.cpp) whose speed the
// optimizer changes, with arguments that make them loop.
constexpr const char* kCases = R"(
fn safe_licm(x: i32) -> i32 {
  var f: i32 = 1i32;
  var i: i32 = 1i32;
  while (i <= x) {
    f = f * (99i32 / x);
    i = 1i32 + i;
  }
  return f;
}
fn entire_loop_sr(b: i32, c: i32, d: i32) -> i32 {
  var x: i32 = b;
  for (var i: i32 = 0i32; i < d; i = i + 1i32) {
    x = x + c;
  }
  return x;
}
fn loop_op_factoring(a: i32*, n: i32) -> i32 {
  var s: i32 = 0i32;
  for (var i: i32 = 0i32; i < n; i = i + 1i32) {
    s = s + a[i] * 7i32;
  }
  return s;
}
fn array_index_sr(img: i32*, h: i32, w: i32) -> void {
  for (var i: i32 = 0i32; i < h; i = i + 1i32) {
    for (var j: i32 = 0i32; j < w; j = j + 1i32) {
      img[i * w + j] = img[i * w + j] / 2i32;
    }
  }
}
)";

struct Compiled {
  std::shared_ptr<cpu::CompiledCode> off, on;
};

Compiled compile_both(const ir::Module& module) {
  cpu::Options options;
  options.opt_level = 2;
  const ir::ExternTable none;
  return {cpu::compile(module, none, options),
          cpu::compile(peg::optimize(module).module, none, options)};
}

template <class Fn, class... A>
void run_code(benchmark::State& state, std::shared_ptr<cpu::CompiledCode> code,
              const std::string& function, A... args) {
  const auto fn = reinterpret_cast<Fn*>(code->address(function));
  for (auto _ : state) benchmark::DoNotOptimize(fn(args...));
}

void register_speed(
    const std::string& name, const Compiled& c,
    const std::function<void(benchmark::State&, std::shared_ptr<cpu::CompiledCode>)>& body) {
  for (const bool on : {false, true}) {
    benchmark::RegisterBenchmark(
        (std::string("speed/") + name + (on ? "/peg_on" : "/peg_off")).c_str(),
        [body, code = on ? c.on : c.off](benchmark::State& s) { body(s, code); })
        ->Unit(benchmark::kMicrosecond);
  }
}

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration || r.aggregate_name == "median")
        times_[r.run_name.function_name] = r.GetAdjustedCPUTime();
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf(
        "\nPEG on / off, CPU time of the generated code (below 1: faster with the optimizer)\n");
    for (const auto& [name, t] : times_) {
      const std::string suffix = "/peg_off";
      if (name.size() < suffix.size() ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      const std::string base = name.substr(0, name.size() - suffix.size());
      if (auto on = times_.find(base + "/peg_on"); on != times_.end())
        std::printf("  %-40s %.3f\n", base.c_str(), on->second / t);
    }
  }

 private:
  std::map<std::string, double> times_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  static const std::map<std::string, ir::Module> golden = goldens();
  for (const auto& [name, module] : golden)
    benchmark::RegisterBenchmark(("phases_golden/" + name).c_str(), [&m = module](
                                                                        benchmark::State& s) {
      phases_golden(s, m);
    })->Unit(benchmark::kMillisecond);

  static const ir::Module cases = ir::parse_module(kCases, "peg_bench_cases.ir");
  static std::vector<std::int32_t> array(1 << 16, 3);
  const auto one = [](const std::string& f) {
    ir::Module m;
    for (const ir::Function& fn : cases.functions)
      if (fn.name == f) m.functions.push_back(fn);
    return compile_both(m);
  };
  register_speed("safe_licm", one("safe_licm"), [](benchmark::State& s, auto code) {
    run_code<std::int32_t(std::int32_t)>(s, code, "safe_licm", 10000);
  });
  register_speed("entire_loop_sr", one("entire_loop_sr"), [](benchmark::State& s, auto code) {
    run_code<std::int32_t(std::int32_t, std::int32_t, std::int32_t)>(s, code, "entire_loop_sr", 1,
                                                                     3, 10000);
  });
  register_speed("loop_op_factoring", one("loop_op_factoring"), [](benchmark::State& s, auto code) {
    run_code<std::int32_t(std::int32_t*, std::int32_t)>(s, code, "loop_op_factoring", array.data(),
                                                        1 << 16);
  });
  register_speed("array_index_sr", one("array_index_sr"), [](benchmark::State& s, auto code) {
    const auto fn = reinterpret_cast<void (*)(std::int32_t*, std::int32_t, std::int32_t)>(
        code->address("array_index_sr"));
    for (auto _ : s) {
      fn(array.data(), 256, 256);
      benchmark::ClobberMemory();
    }
  });
  const Compiled nested = compile_both(golden.at("nested_loops"));
  register_speed("golden/nested_loops", nested, [](benchmark::State& s, auto code) {
    run_code<std::int32_t(std::int32_t, std::int32_t)>(s, code, "nested_loops", 300, 300);
  });
  const Compiled power = compile_both(golden.at("power_dyn"));
  register_speed("golden/power_dyn", power, [](benchmark::State& s, auto code) {
    run_code<double(double, std::int32_t)>(s, code, "power", 1.0000001, 1000);
  });

  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
