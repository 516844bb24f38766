// What the first stage's smart constructors (LMS-style construction,
// runtime/stage/expr_pool.h) save: each program is extracted with them on and
// off (an internal switch), and the IR's size and the first stage's time are
// compared in the same run.
//
//   lms/<program>/on, lms/<program>/off
//       counters: ir_statements, expr_nodes (expression nodes, each use
//       counted: the size of the IR as the later phases read it),
//       saved_nodes (nodes the constructors replaced), first_stage_ms.
//
// The programs: the staging goldens' generators (tests/stage) and the corpus
// (bench/corpus; AUGUR_CORPUS_SIZES = small, standard or all, default all).
// After the runs a table gives off / on for nodes and time.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench/corpus/corpus.h"
#include "bench/support/ratio_reporter.h"
#include "bf.h"
#include "jit/cpu/compile.h"
#include "jit/jit.h"
#include "runtime/cache/pipeline.h"
#include "runtime/ir/visit.h"
#include "runtime/stage/expr_pool.h"
#include "runtime/stage/externs.h"
#include "runtime/stage/extract.h"
#include "runtime/stage/finalize.h"
#include "tests/support/staged_programs.h"

namespace augur::bench {
namespace {

struct Subject {
  std::string name;
  std::function<jit::extraction()> stage;
  bool compile = false;  // also measure its compile (lms_compile/...)
};

std::vector<Subject>& subjects() {
  static std::vector<Subject> all;
  return all;
}

void add_goldens() {
  using namespace augur::staged;
  subjects().push_back({"power_static", [] { return jit::extract(power, 13); }});
  subjects().push_back({"power_dyn", [] { return jit::extract(power_dyn); }});
  subjects().push_back({"nested_loops", [] { return jit::extract(nested_loops); }});
  subjects().push_back({"helpers", [] { return jit::extract(helpers); }});
  subjects().push_back({"bits", [] { return jit::extract(bits, 8); }});
  subjects().push_back({"clamp_all", [] { return jit::extract(clamp_all, 16); }});
  subjects().push_back(
      {"bf_multiply",
       [] { return jit::extract(bf::staged, std::string(",>,<[->[->+>+<<]>>[-<<+>>]<<<]>>.")); }});
}

void measure(benchmark::State& state, const Subject& subject, bool simplify) {
  stage::set_simplify_at_construction(simplify);
  double total_ms = 0;
  double extractions = 0;
  std::uint64_t statements = 0, nodes = 0, saved = 0;
  for (auto _ : state) {
    const jit::extraction e = subject.stage();
    total_ms += static_cast<double>(e.report().first_stage_time.count()) / 1e6;
    ++extractions;
    const ir::Function& fn = e.result().extracted.module.functions.front();
    statements = stage::count_statements(fn.body);
    nodes = ir::node_count(fn.body) - statements;
    saved = e.report().simplified_nodes;
  }
  stage::set_simplify_at_construction(true);
  state.counters["ir_statements"] = static_cast<double>(statements);
  state.counters["expr_nodes"] = static_cast<double>(nodes);
  state.counters["saved_nodes"] = static_cast<double>(saved);
  state.counters["first_stage_ms"] = total_ms / extractions;
}

// What jit::compile at O2 spends after the first stage: the PEG optimizer
// (optimize_ms) and the CPU backend (backend_ms), on the program extracted
// with or without the constructors; optimized_nodes: the IR's nodes
// (statements and expressions) after the optimizer.
void measure_compile(benchmark::State& state, const Subject& subject, bool simplify) {
  stage::set_simplify_at_construction(simplify);
  const jit::extraction e = subject.stage();
  stage::set_simplify_at_construction(true);
  const ir::Module& extracted = e.result().extracted.module;
  if (e.report().ir_statements > 20'000) {
    state.SkipWithError("over 20,000 statements");
    return;
  }
  const ir::ExternTable externs = stage::registered_externs();
  cpu::Options backend;
  backend.opt_level = 2;
  backend.invokers = false;
  double optimize_ms = 0, backend_ms = 0;
  double compiles = 0;
  std::uint64_t optimized_nodes = 0;
  const auto ms_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  };
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    ir::Module module = extracted;
    cache::optimize(module, 2, externs);
    optimize_ms += ms_since(start);
    const auto backend_start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(cpu::compile(module, externs, backend));
    backend_ms += ms_since(backend_start);
    optimized_nodes = ir::node_count(module.functions.front().body);
    ++compiles;
  }
  state.counters["compile_ms"] = (optimize_ms + backend_ms) / compiles;
  state.counters["optimize_ms"] = optimize_ms / compiles;
  state.counters["backend_ms"] = backend_ms / compiles;
  state.counters["optimized_nodes"] = static_cast<double>(optimized_nodes);
}

void summary(const RatioReporter& r) {
  std::printf("\n%-22s %12s %12s %12s %12s %8s %10s %10s %8s\n", "program", "stmts off", "stmts on",
              "nodes off", "nodes on", "off/on", "ms off", "ms on", "off/on");
  for (const Subject& s : subjects()) {
    const auto [on, off] = r.pair("lms/" + s.name + "/on", "lms/" + s.name + "/off");
    if (!on || !off) continue;
    const auto c = [](const RunTimes* t, const char* k) { return t->counters.at(k); };
    std::printf("%-22s %12.0f %12.0f %12.0f %12.0f %8.3f %10.3f %10.3f %8.3f\n", s.name.c_str(),
                c(off, "ir_statements"), c(on, "ir_statements"), c(off, "expr_nodes"),
                c(on, "expr_nodes"), c(off, "expr_nodes") / c(on, "expr_nodes"),
                c(off, "first_stage_ms"), c(on, "first_stage_ms"),
                c(off, "first_stage_ms") / c(on, "first_stage_ms"));
  }
  std::printf("\n%-22s %12s %12s %8s %12s %12s %12s %12s\n", "program", "compile off", "compile on",
              "off/on", "optimize off", "optimize on", "backend off", "backend on");
  for (const Subject& s : subjects()) {
    const auto [on, off] =
        r.pair("lms_compile/" + s.name + "/on", "lms_compile/" + s.name + "/off");
    if (!on || !off || !on->counters.contains("compile_ms")) continue;
    const auto c = [](const RunTimes* t, const char* k) { return t->counters.at(k); };
    std::printf("%-22s %9.1f ms %9.1f ms %8.3f %9.1f ms %9.1f ms %9.1f ms %9.1f ms\n",
                s.name.c_str(), c(off, "compile_ms"), c(on, "compile_ms"),
                c(off, "compile_ms") / c(on, "compile_ms"), c(off, "optimize_ms"),
                c(on, "optimize_ms"), c(off, "backend_ms"), c(on, "backend_ms"));
  }
}

}  // namespace
}  // namespace augur::bench

int main(int argc, char** argv) {
  namespace bench = augur::bench;
  namespace corpus = augur::bench::corpus;
  benchmark::Initialize(&argc, argv);
  bench::add_goldens();
  const char* sizes = std::getenv("AUGUR_CORPUS_SIZES");
  try {
    for (corpus::Program& p : corpus::programs(corpus::parse_sizes(sizes ? sizes : "all"))) {
      bench::subjects().push_back(
          {p.name, std::move(p.stage), p.family == "vm" || p.family == "fft"});
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stage_lms_bench: %s\n", e.what());
    return EXIT_FAILURE;
  }
  for (const bench::Subject& s : bench::subjects()) {
    for (const bool simplify : {true, false}) {
      benchmark::RegisterBenchmark(
          ("lms/" + s.name + (simplify ? "/on" : "/off")).c_str(),
          [&s, simplify](benchmark::State& state) { bench::measure(state, s, simplify); })
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (const bench::Subject& s : bench::subjects()) {
    if (!s.compile) continue;
    for (const bool simplify : {true, false}) {
      benchmark::RegisterBenchmark(
          ("lms_compile/" + s.name + (simplify ? "/on" : "/off")).c_str(),
          [&s, simplify](benchmark::State& state) { bench::measure_compile(state, s, simplify); })
          ->Unit(benchmark::kMillisecond);
    }
  }
  bench::RatioReporter reporter(bench::summary);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return EXIT_SUCCESS;
}
