// The PEG optimizer: time in each phase (to PEG, saturate, extract, revert)
// on random programs of 10 to 10,000 IR nodes and on the staging goldens,
// and the speed of the code the CPU backend makes at O2 with the optimizer
// on and off, side by side in the same run (the ratio is printed last).
//
//   build/release/bench/peg_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/support/ratio_reporter.h"
#include "jit/cpu/compile.h"
#include "jit/cpu/invoke.h"
#include "jit/rules.h"
#include "runtime/ir/parser.h"
#include "runtime/peg/optimize.h"
#include "tests/peg/peg_cases.h"
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

struct Compiled {
  std::shared_ptr<cpu::CompiledCode> off, on;
};

Compiled compile_both(const ir::Module& module, const ir::ExternTable& externs = {}) {
  cpu::Options options;
  options.opt_level = 2;
  return {cpu::compile(module, externs, options),
          cpu::compile(peg::optimize(module).module, externs, options)};
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

// The 22 cases' programs (tests/peg/cases/*.ir, the ones tests/peg/cases_test.cpp
// checks), each called with arguments that make it work. Calls go through the
// generic invoker (IR values in, one indirect call), the same with the
// optimizer on and off; for the smallest programs that call is most of the time.
std::vector<std::int32_t>& scratch() {
  static std::vector<std::int32_t> memory(1 << 16, 3);
  return memory;
}

struct CaseRun {
  std::string program;   // tests/peg/cases/<program>.ir
  std::string function;  // the function timed
  int more = 0;          // how many times @more() answers true per call
  std::function<std::vector<ir::Value>()> arguments = [] { return std::vector<ir::Value>{}; };
  std::pair<std::string, std::string> rule{};  // a user rule the case needs, while optimizing
};

std::vector<ir::Value> ints(std::initializer_list<std::int32_t> values) {
  std::vector<ir::Value> out;
  for (std::int32_t v : values) out.push_back(ir::Value::of(v));
  return out;
}

std::vector<CaseRun> case_runs() {
  using ir::Value;
  const auto memory = [] { return Value::of(scratch().data()); };
  const auto text = [] {
    auto* bytes = reinterpret_cast<std::uint8_t*>(scratch().data() + 1024);
    for (int i = 0; i < 16; ++i) bytes[i] = static_cast<std::uint8_t>(i < 10 ? 'a' + i : 0);
    return Value::of(bytes);
  };
  const auto set_and_element = [] {
    return std::vector<Value>{Value::of<std::int64_t>(0x5a5a0f0f12345678), Value::of(27)};
  };
  return {
      {"c01_livsr", "f", 10000},
      {"c03_loop_semantics", "f"},
      {"c03_loop_semantics", "g"},
      {"c04_inter_loop_sr", "f", 0, [] { return ints({1000}); }},
      {"c05_loop_code_motion", "f"},
      {"c06_cfg_restructuring", "f", 0,
       [] {
         return std::vector<Value>{Value::of(true), Value::of(false)};
       }},
      {"c07_peelable", "f", 0, [] { return ints({10000}); }},
      {"c08_branch_hoisting", "f", 0,
       [] {
         return ints({1, 10000});
       }},
      {"c09_one_loop", "f", 0, [] { return ints({30}); }},
      {"c09_two_loops", "g", 0, [] { return ints({10000}); }},
      {"c10_branch_fusion", "f", 0, [] { return ints({50}); }},
      {"c11_safe_licm", "f", 0, [] { return ints({10000}); }},
      {"c12_break", "f", 0,
       [] {
         return ints({0, 1000});
       }},
      {"c13_factorial", "f"},
      {"c15_store_forwarding", "f", 0,
       [memory] {
         return std::vector<Value>{memory(), Value::of(12345)};
       }},
      {"c16_readonly_call", "f", 0,
       [memory, text] {
         return std::vector<Value>{memory(), text(), Value::of<std::int32_t>('e')};
       }},
      {"c17_licm_identity", "inside", 10000,
       [] {
         return ints({3, 4});
       }},
      {"c17_licm_identity", "outside", 10000,
       [] {
         return ints({3, 4});
       }},
      {"c18_contains_index_of",
       "f",
       0,
       set_and_element,
       {"has-position", "(has ?l ?e) => (ne.i32 (position ?l ?e) -1i32)"}},
      {"c18_has_alone", "g", 0, set_and_element},
      {"c19_entire_loop_sr", "f", 0,
       [] {
         return ints({1, 3, 10000});
       }},
      {"c20_array_index_sr", "f", 0,
       [memory] {
         return std::vector<Value>{memory(), Value::of(256), Value::of(256)};
       }},
      {"c21_loop_op_factoring", "f", 0,
       [memory] {
         return std::vector<Value>{memory(), Value::of(1 << 16)};
       }},
      {"c22_extraction_validity", "f", 0,
       [memory] {
         return std::vector<Value>{memory(), Value::of(10000)};
       }},
  };
}

void register_case_speeds() {
  for (const CaseRun& run : case_runs()) {
    const ir::Module module = peg::test::parse_case(peg::test::case_program(run.program));
    if (!run.rule.first.empty()) jit::register_rule(run.rule.first, run.rule.second);
    const Compiled compiled = compile_both(module, peg::test::case_externs());
    if (!run.rule.first.empty()) jit::unregister_rule(run.rule.first);
    register_speed(run.program + "/" + run.function, compiled,
                   [run](benchmark::State& s, std::shared_ptr<cpu::CompiledCode> code) {
                     const std::vector<ir::Value> args = run.arguments();
                     for (auto _ : s) {
                       peg::test::reset_case_externs(run.more, 1);
                       benchmark::DoNotOptimize(cpu::invoke(*code, run.function, args));
                       benchmark::ClobberMemory();
                     }
                   });
  }
}

// Code the optimizer used to keep as extracted: exits of two loops at once
// (the inner loop leaves with a flag the outer loop tests) and a table read
// in a loop that stores (the element is read once, before the loop).
constexpr const char* kExitsAndTables = R"(
fn search(p: i32*, n: i32, m: i32) -> i32 {
  var r: i32 = -1i32;
  for (var i: i32 = 0i32; i < n; i = i + 1i32) {
    for (var j: i32 = 0i32; j < n; j = j + 1i32) {
      if (p[i * n + j] >= m) {
        r = i * n + j;
        break 2;
      }
    }
  }
  return r;
}

fn skip_rows(p: i32*, n: i32, m: i32) -> i32 {
  var s: i32 = 0i32;
  for (var i: i32 = 0i32; i < n; i = i + 1i32) {
    for (var j: i32 = 0i32; j < n; j = j + 1i32) {
      var x: i32 = p[i * n + j];
      if (x == m) {
        continue 2;
      }
      s = s + x * j;
    }
  }
  return s;
}

fn table_add(p: i32*, n: i32, k: i32) -> i32 {
  for (var i: i32 = 0i32; i < n; i = i + 1i32) {
    p[i] = p[i] + table i32 [3i32, 5i32, 7i32, 11i32][k & 3i32];
  }
  return p[0i32];
}
)";

void register_exits_and_tables() {
  const Compiled c = compile_both(ir::parse_module(kExitsAndTables));
  using Fn = std::int32_t(std::int32_t*, std::int32_t, std::int32_t);
  // 256 × 256 elements of 3: the search finds nothing; the rows are skipped
  // from their 129th element on.
  register_speed("exits/search_break2", c, [](benchmark::State& s, auto code) {
    std::fill(scratch().begin(), scratch().end(), 3);
    run_code<Fn>(s, code, "search", scratch().data(), 256, 4);
  });
  register_speed("exits/skip_rows_continue2", c, [](benchmark::State& s, auto code) {
    std::fill(scratch().begin(), scratch().end(), 3);
    for (std::size_t row = 0; row < 256; ++row) scratch()[row * 256 + 128] = 9;
    run_code<Fn>(s, code, "skip_rows", scratch().data(), 256, 9);
  });
  register_speed("tables/table_add", c, [](benchmark::State& s, auto code) {
    run_code<Fn>(s, code, "table_add", scratch().data(), 1 << 16, 2);
  });
}

// After the console report: PEG on / off for every pair of runs.
void print_ratios(const bench::RatioReporter& reporter) {
  std::printf(
      "\nPEG on / off, CPU time of the generated code (below 1: faster with the optimizer)\n");
  const std::string suffix = "/peg_off";
  for (const auto& [name, off] : reporter.runs()) {
    if (!name.ends_with(suffix) || !off.error.empty()) continue;
    const std::string base = name.substr(0, name.size() - suffix.size());
    if (const bench::RunTimes* on = reporter.find(base + "/peg_on"); on && on->error.empty())
      std::printf("  %-40s %.3f\n", base.c_str(), on->cpu_ns / off.cpu_ns);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  static const std::map<std::string, ir::Module> golden = goldens();
  for (const auto& [name, module] : golden)
    benchmark::RegisterBenchmark(("phases_golden/" + name).c_str(), [&m = module](
                                                                        benchmark::State& s) {
      phases_golden(s, m);
    })->Unit(benchmark::kMillisecond);

  register_case_speeds();
  register_exits_and_tables();
  const Compiled nested = compile_both(golden.at("nested_loops"));
  register_speed("golden/nested_loops", nested, [](benchmark::State& s, auto code) {
    run_code<std::int32_t(std::int32_t, std::int32_t)>(s, code, "nested_loops", 300, 300);
  });
  const Compiled power = compile_both(golden.at("power_dyn"));
  register_speed("golden/power_dyn", power, [](benchmark::State& s, auto code) {
    run_code<double(double, std::int32_t)>(s, code, "power", 1.0000001, 1000);
  });

  bench::RatioReporter reporter(print_ratios);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
