#include "runtime/peg/optimize.h"

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "runtime/dump_request.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/peg/axioms.h"
#include "runtime/peg/bisimilar.h"
#include "runtime/peg/cost.h"
#include "runtime/peg/dag_extract.h"
#include "runtime/peg/peg_egraph.h"
#include "runtime/peg/peg_graph.h"
#include "runtime/peg/revert.h"
#include "runtime/peg/to_peg.h"
#include "runtime/peg/user_rules.h"
#include "runtime/peg/validate.h"
#include "runtime/peg/wellformed.h"

namespace augur::peg {

namespace {

using Clock = std::chrono::steady_clock;

std::size_t expr_nodes(const ir::ExprPtr& e) {
  if (!e) return 0;
  std::size_t n = 1;
  for (const ir::ExprPtr& a : e->args) n += expr_nodes(a);
  return n;
}

std::size_t block_nodes(const ir::Block& block) {
  std::size_t n = 0;
  for (const ir::Stmt& s : block)
    n += 1 + expr_nodes(s.expr) + expr_nodes(s.ptr) + expr_nodes(s.index) + block_nodes(s.body) +
         block_nodes(s.orelse) + block_nodes(s.init) + block_nodes(s.step);
  return n;
}

void declare_externs_in(ir::Module& module, const ir::ExprPtr& e) {
  if (!e) return;
  if (e->kind == ir::ExprKind::Call) module.declare_extern(*e->callee);
  for (const ir::ExprPtr& a : e->args) declare_externs_in(module, a);
}

void declare_externs_in(ir::Module& module, const ir::Block& block) {
  for (const ir::Stmt& s : block) {
    declare_externs_in(module, s.expr);
    declare_externs_in(module, s.ptr);
    declare_externs_in(module, s.index);
    declare_externs_in(module, s.body);
    declare_externs_in(module, s.orelse);
    declare_externs_in(module, s.init);
    declare_externs_in(module, s.step);
  }
}

// Loop statements in a block, nested ones included.
std::size_t block_loops(const ir::Block& block) {
  std::size_t n = 0;
  for (const ir::Stmt& s : block)
    n += (s.kind == ir::StmtKind::While || s.kind == ir::StmtKind::For ? 1 : 0) +
         block_loops(s.body) + block_loops(s.orelse) + block_loops(s.init) + block_loops(s.step);
  return n;
}

// Declares in `module` every extern `f` calls that it lacks (those user rules introduced).
void declare_called_externs(ir::Module& module, const ir::Function& f) {
  declare_externs_in(module, f.body);
}

bool dump_requested(const PegOptions& options) {
  if (options.dump) return *options.dump;
  return augur::dump_requested("peg");
}

// Which classes to_peg found defined at every iteration of each loop.
class Totality {
 public:
  Totality(const eqsat::EGraph& g, const PegFunction& peg) {
    for (const LoopFacts& loop : peg.loops) {
      auto& set = total_[eqsat::index(g.find(loop.pass))];
      for (eqsat::Id id : loop.total) set.insert(eqsat::index(g.find(id)));
    }
  }
  bool operator()(eqsat::Id value, eqsat::Id pass) const {
    auto it = total_.find(eqsat::index(pass));
    return it != total_.end() && it->second.contains(eqsat::index(value));
  }

 private:
  std::unordered_map<std::uint32_t, std::unordered_set<std::uint32_t>> total_;
};

// Two source loops with the same bounds are one loop (Tate, §8.6): their
// cyclic PEGs are bisimilar, which hash-consing alone cannot see.
void fuse_equal_loops(eqsat::EGraph& g) {
  std::vector<eqsat::Id> seeds;
  for (eqsat::Id c : g.classes()) {
    bool loop = invariance(g).variant_loops(c) != 0;
    for (eqsat::Id n : g.nodes_of(c)) loop = loop || is_loop_op(kind_of(g.node(n).label.op));
    if (loop) seeds.push_back(c);
  }
  merge_bisimilar(g, seeds, true);
}

// One function through the whole pipeline; returns the optimized function,
// or nothing (the report says why).
std::optional<ir::Function> optimize_function(const ir::Module& module, const ir::Function& f,
                                              const PegOptions& options, PegFunctionReport& report,
                                              bool dump) {
  report.function = f.name;
  report.ir_nodes = block_nodes(f.body);
  Clock::time_point t = Clock::now();
  std::unique_ptr<eqsat::EGraph> g = make_peg_egraph();
  PegFunction peg;
  try {
    peg = to_peg(f, *g);
    g->rebuild();
    if (peg.loops.size() > 1) fuse_equal_loops(*g);
  } catch (const unsupported& e) {
    report.fallback = e.message();
    return std::nullopt;
  }
  report.to_peg = Clock::now() - t;
  report.peg_nodes = g->node_count();
  if (dump) {
    const eqsat::Extractor plain(*g, peg_cost(), peg_cycle_edges());
    std::cerr << "== PEG of " << f.name << " (" << report.peg_nodes << " e-nodes)\n";
    if (std::optional<PegGraph> graph = extract_graph(*g, plain, peg.result, peg.state))
      std::cerr << print_graph(*graph);
  }

  if (options.saturate) {
    t = Clock::now();
    UserRuleSet user;
    if (options.user_rules) user = user_rules_for(module, options.externs);
    // The built-in rules alone need no copy.
    std::vector<eqsat::Rewrite> with_user;
    if (!user.rules.empty()) {
      with_user.assign(builtin_rules().begin(), builtin_rules().end());
      with_user.insert(with_user.end(), std::make_move_iterator(user.rules.begin()),
                       std::make_move_iterator(user.rules.end()));
    }
    const std::span<const eqsat::Rewrite> rules =
        user.rules.empty() ? builtin_rules() : std::span<const eqsat::Rewrite>(with_user);
    for (const auto& [id, decl] : user.externs) peg.externs.emplace(id, decl);
    eqsat::Runner runner(eqsat::RunOptions{options.limits, {}, 1});
    try {
      const eqsat::Report r = runner.run(*g, rules);
      report.iterations = r.iterations;
      report.stop = std::string(eqsat::to_string(r.stop));
    } catch (const jit::error& e) {
      report.fallback = "saturation: " + e.message();
      return std::nullopt;
    }
    report.saturate = Clock::now() - t;
  }
  report.egraph_nodes = g->node_count();
  report.egraph_classes = g->class_count();

  const Totality total(*g, peg);
  std::unordered_set<std::uint32_t> defined;
  for (eqsat::Id c : peg.defined) defined.insert(eqsat::index(g->find(c)));
  std::unordered_set<std::uint32_t> banned;
  std::optional<ir::Function> out;
  const std::size_t extract_budget =
      options.extract_work_base + options.extract_work_per_node * report.ir_nodes;
  const auto past_extract_budget = [&] {
    report.extract += Clock::now() - t;
    report.fallback = "extraction ran past its work budget (" +
                      std::to_string(report.extract_work) + " of " +
                      std::to_string(extract_budget) + " steps)";
  };
  for (unsigned attempt = 0; attempt < options.extraction_attempts && !out; ++attempt) {
    ++report.extractions;
    t = Clock::now();
    const eqsat::Extractor extractor(*g, peg_cost(&banned), peg_cycle_edges());
    report.extract_work += extractor.work();
    if (report.extract_work > extract_budget) {
      past_extract_budget();
      return std::nullopt;
    }
    const ImprovedChoices improved = improve_choices(*g, extractor, peg.result, peg.state, &banned,
                                                     extract_budget - report.extract_work);
    report.extract_work += improved.work;
    if (improved.out_of_budget) {
      past_extract_budget();
      return std::nullopt;
    }
    std::optional<eqsat::Id> blame;
    const std::optional<PegGraph> graph =
        extract_graph(*g, improved.choices, peg.result, peg.state, &blame);
    report.extract += Clock::now() - t;
    if (!graph) {
      report.fallback =
          "extraction: no program left after banning the e-nodes reversion could not use";
      if (!blame || !banned.insert(eqsat::index(*blame)).second) return std::nullopt;
      continue;
    }
    if (std::string error = check_well_formed(*graph, &blame); !error.empty()) {
      report.fallback = "extraction chose an ill-formed PEG: " + error;
      report.retries.push_back(report.fallback);
      if (!blame || !banned.insert(eqsat::index(*blame)).second) return std::nullopt;
      continue;
    }
    t = Clock::now();
    RevertInput input{&*graph,
                      &f,
                      &peg.externs,
                      total,
                      [&](eqsat::Id c) { return defined.contains(eqsat::index(g->find(c))); },
                      options.revert_work_base + options.revert_work_per_node * report.ir_nodes,
                      t + options.limits.time};
    RevertResult reverted = revert(input);
    report.revert += Clock::now() - t;
    if (reverted.function) {
      out = std::move(reverted.function);
      break;
    }
    report.fallback = "reversion: " + reverted.failure;
    report.retries.push_back(report.fallback);
    if (!reverted.blame || !banned.insert(eqsat::index(*reverted.blame)).second)
      return std::nullopt;
  }
  if (!out) return std::nullopt;
  // Reversion computes a loop's value once per φ context that uses it; more
  // loops than the input means some loop would run more often (nested_loops:
  // the inner loop twice per outer iteration, 1.67× slower).
  if (const std::size_t in = block_loops(f.body), emitted = block_loops(out->body); emitted > in) {
    report.fallback = "reversion duplicated loops (" + std::to_string(emitted) + " for " +
                      std::to_string(in) + ")";
    return std::nullopt;
  }

  ir::Module check;
  check.externs = module.externs;
  declare_called_externs(check, *out);
  check.functions.push_back(*out);
  if (std::vector<jit::verify_error> errors = ir::check(check); !errors.empty()) {
    report.fallback =
        "the reverted function does not verify: " + std::string(errors.front().what());
    return std::nullopt;
  }
  if (options.validate) {
    t = Clock::now();
    report.validated = validate(*g, peg, *out, options.limits);
    report.validate = Clock::now() - t;
    if (options.require_validation && !*report.validated) {
      report.fallback = "translation validation could not prove the result equal";
      return std::nullopt;
    }
  }
  report.fallback.clear();
  report.optimized = true;
  return out;
}

}  // namespace

std::string PegReport::summary() const {
  const auto us = [](std::chrono::nanoseconds d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(d).count()) + " us";
  };
  std::ostringstream out;
  for (const PegFunctionReport& f : functions) {
    out << f.function << ": " << (f.optimized ? "optimized" : "kept (" + f.fallback + ")") << "; "
        << f.ir_nodes << " IR nodes, " << f.peg_nodes << " PEG e-nodes, " << f.egraph_nodes
        << " after " << f.iterations << " iterations ("
        << (f.stop.empty() ? "no saturation" : f.stop) << "), " << f.extractions
        << " extraction(s); to PEG " << us(f.to_peg) << ", saturate " << us(f.saturate)
        << ", extract " << us(f.extract) << " (" << f.extract_work << " steps), revert "
        << us(f.revert);
    if (f.validated)
      out << "; validation " << (*f.validated ? "proved" : "not proved") << " (" << us(f.validate)
          << ")";
    out << "\n";
  }
  out << "total " << us(total) << "\n";
  return out.str();
}

void warm_up() {
  static_cast<void>(builtin_rules());
}

PegResult optimize(const ir::Module& module, const PegOptions& options) {
  const Clock::time_point start = Clock::now();
  const bool dump = dump_requested(options);
  PegResult result;
  result.module.externs = module.externs;
  for (const ir::Function& f : module.functions) {
    PegFunctionReport report;
    std::optional<ir::Function> optimized = optimize_function(module, f, options, report, dump);
    if (optimized) {
      result.module.functions.push_back(std::move(*optimized));
    } else {
      result.module.functions.push_back(f);
    }
    result.report.functions.push_back(std::move(report));
  }
  // Externs that user rules introduced.
  for (const ir::Function& f : result.module.functions) declare_called_externs(result.module, f);
  result.report.total = Clock::now() - start;
  if (dump) {
    std::cerr << result.report.summary() << "== after the PEG optimizer\n"
              << ir::print(result.module);
  }
  return result;
}

}  // namespace augur::peg
