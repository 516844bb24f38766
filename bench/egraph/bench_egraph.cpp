// Benchmarks of the e-graph engine (runtime/eqsat). docs/performance.md, section
// "E-graph engine", has the figures and how to reproduce them.
//
//   BM_AddNodes            e-nodes added per second (fresh e-graph, distinct e-nodes)
//   BM_Rebuild             one rebuild() restoring congruence after merges
//   BM_SaturateSuite/T/E   the arithmetic suite (bench/egraph/math.*) under the
//                          JIT budget's iteration and node limits, T search
//                          threads, explanations off (E=0) or on (E=1)
//   BM_Program1000         a 1,000-e-node arithmetic program saturated and
//                          extracted under the default JIT budget (time limit included)
//   BM_MemoryPerNode       bytes per e-node, from the e-graph's tables and from malloc

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/egraph/math.h"
#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/extract.h"
#include "runtime/eqsat/rule_file.h"
#include "runtime/eqsat/runner.h"
#include "runtime/eqsat/term.h"

namespace {

using namespace augur::eqsat;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kDir = AUGUR_BENCH_EGRAPH_DIR;

struct Suite {
  SymbolLanguage lang;
  std::vector<Rewrite> rules;
  std::vector<TermEntry> terms;
  Suite() {
    rules = parse_rules(read(kDir + "/math.rules"), lang, math::guards(lang));
    terms = parse_terms(read(kDir + "/math.terms"), lang);
  }
};

Suite& suite() {
  static Suite s;
  return s;
}

// A random arithmetic DAG with `size` distinct e-nodes over 16 variables and
// the constants 0..9; operands are drawn mostly from recent nodes, so the
// program is deep like straight-line code.
Id add_program(EGraph& g, SymbolLanguage& lang, std::size_t size, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Id> ids;
  for (int i = 0; i < 16; ++i) ids.push_back(g.add(Label{lang.op("v" + std::to_string(i)), 0}));
  for (int i = 0; i < 10; ++i) ids.push_back(g.add(SymbolLanguage::number(i)));
  const Op ops[] = {lang.op("+"), lang.op("-"), lang.op("*"), lang.op("/")};
  Id last = ids.back();
  while (g.node_count() < size) {
    const auto pick = [&] {
      const std::size_t window = std::min<std::size_t>(ids.size(), 64);
      return ids[ids.size() - 1 - std::uniform_int_distribution<std::size_t>(0, window - 1)(rng)];
    };
    const Id a = pick(), b = pick();
    last = g.add(Label{ops[std::uniform_int_distribution<int>(0, 3)(rng)], 0}, {a, b});
    ids.push_back(last);
  }
  return last;
}

void BM_AddNodes(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  SymbolLanguage lang;
  const Op f = lang.op("f");
  for (auto _ : state) {
    EGraph g;
    Id prev = g.add(Label{lang.op("x"), 0});
    Id prev2 = prev;
    for (std::size_t i = 0; i < n; ++i) {
      const Id next = g.add(Label{f, i % 7}, {prev, prev2});
      prev2 = prev;
      prev = next;
    }
    benchmark::DoNotOptimize(g.node_count());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_AddNodes)->Arg(10'000)->Arg(100'000);

void BM_Rebuild(benchmark::State& state) {
  // Chains f(f(...f(x_i))) of depth 20 over 500 leaves; merging the leaves in
  // pairs makes rebuild merge every level of each pair of chains.
  SymbolLanguage lang;
  const Op f = lang.op("f");
  std::size_t merges = 0;
  for (auto _ : state) {
    state.PauseTiming();
    EGraph g;
    std::vector<Id> leaves;
    for (int i = 0; i < 500; ++i) {
      leaves.push_back(g.add(Label{lang.op("x" + std::to_string(i)), 0}));
      Id c = leaves.back();
      for (int d = 0; d < 20; ++d) c = g.add(Label{f, 0}, {c});
    }
    g.rebuild();
    for (std::size_t i = 0; i + 1 < leaves.size(); i += 2) g.merge(leaves[i], leaves[i + 1]);
    state.ResumeTiming();
    merges = g.rebuild();
    benchmark::DoNotOptimize(merges);
  }
  state.counters["congruences"] = static_cast<double>(merges);
  state.counters["e-nodes"] = 500 * 21;
}
BENCHMARK(BM_Rebuild)->Unit(benchmark::kMicrosecond);

void BM_SaturateSuite(benchmark::State& state) {
  Suite& s = suite();
  RunOptions options;
  options.limits.time = std::chrono::hours(1);
  options.threads = static_cast<unsigned>(state.range(0));
  const bool explain = state.range(1) != 0;
  Runner runner(options);
  std::size_t nodes = 0;
  double search = 0, apply = 0, rebuild = 0;
  for (auto _ : state) {
    nodes = 0;
    for (const TermEntry& entry : s.terms) {
      EGraph g(EGraphOptions{.explanations = explain});
      math::add_constant_folding(g, s.lang);
      add_term(g, entry.start);
      const Report r = runner.run(g, s.rules);
      nodes += r.nodes;
      search += std::chrono::duration<double>(r.search).count();
      apply += std::chrono::duration<double>(r.apply).count();
      rebuild += std::chrono::duration<double>(r.rebuild).count();
    }
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["e-nodes"] = static_cast<double>(nodes);
  state.counters["e-nodes/s"] =
      benchmark::Counter(static_cast<double>(nodes) * n, benchmark::Counter::kIsRate);
  state.counters["search_ms"] = search / n * 1e3;
  state.counters["apply_ms"] = apply / n * 1e3;
  state.counters["rebuild_ms"] = rebuild / n * 1e3;
}
BENCHMARK(BM_SaturateSuite)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Program1000(benchmark::State& state) {
  Suite& s = suite();
  Runner runner(RunOptions{});
  std::size_t nodes = 0, iterations = 0;
  StopReason stop = StopReason::Saturated;
  double cost = 0;
  for (auto _ : state) {
    EGraph g;
    math::add_constant_folding(g, s.lang);
    const Id root = add_program(g, s.lang, 1000, 42);
    const Report r = runner.run(g, s.rules);
    const Extractor ex(g, ast_size());
    const Term best = ex.extract(root);
    benchmark::DoNotOptimize(best.nodes.data());
    nodes = r.nodes;
    iterations = r.iterations;
    stop = r.stop;
    cost = *ex.cost(root);
  }
  state.counters["e-nodes"] = static_cast<double>(nodes);
  state.counters["iterations"] = static_cast<double>(iterations);
  state.counters["node_limit_stop"] = stop == StopReason::NodeLimit;
  state.counters["time_limit_stop"] = stop == StopReason::TimeLimit;
  state.counters["tree_cost"] = cost;
}
BENCHMARK(BM_Program1000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MemoryPerNode(benchmark::State& state) {
  Suite& s = suite();
  double tables = 0, heap = 0, nodes = 0;
  for (auto _ : state) {
    // In-use heap, small chunks and mmapped ones (large vectors).
    const auto in_use = [] {
      const struct mallinfo2 m = mallinfo2();
      return m.uordblks + m.hblkhd;
    };
    const std::size_t before = in_use();
    auto g = std::make_unique<EGraph>();
    math::add_constant_folding(*g, s.lang);
    add_program(*g, s.lang, 1000, 42);
    RunOptions o;
    o.limits = {30, 50'000, std::chrono::hours(1)};
    Runner(o).run(*g, s.rules);
    const double n = static_cast<double>(g->node_count());
    nodes = n;
    heap = static_cast<double>(in_use() - before) / n;
    tables = static_cast<double>(g->memory_bytes()) / n;
    benchmark::DoNotOptimize(g.get());
  }
  state.counters["bytes/e-node (tables)"] = tables;
  state.counters["bytes/e-node (heap)"] = heap;
  state.counters["e-nodes"] = nodes;
}
BENCHMARK(BM_MemoryPerNode)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
