#include "runtime/peg/optimize_function.h"

#include <algorithm>
#include <iostream>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "runtime/eqsat/bisimulation.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/ir/visit.h"
#include "runtime/peg/axioms.h"
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

// How much more loop work (loop_work) than the input a reverted function may
// show before it is rejected.
constexpr double kLoopWorkMargin = 1.0625;

// Whether `b` holds a `continue` of a loop around it (not only of a loop
// inside it).
bool may_continue(const ir::Block& b) {
  bool found = false;
  ir::for_each_stmt_at(b, [&](const ir::Stmt& s, ir::StmtDepth depth) {
    found = s.kind == ir::StmtKind::Continue && s.levels > depth.loops;
    return !found;
  });
  return found;
}

// How many loops `b` leaves on every path by the `break` it ends with (its
// last statement, or one at the end of both arms of a last `if`, the least
// of them); 0 where a path falls through.
std::uint32_t loops_left_at_end(const ir::Block& b) {
  std::uint32_t levels = std::numeric_limits<std::uint32_t>::max();
  std::vector<const ir::Block*> todo{&b};
  while (!todo.empty()) {
    const ir::Block& x = *todo.back();
    todo.pop_back();
    if (x.empty()) return 0;
    const ir::Stmt& last = x.back();
    if (last.kind == ir::StmtKind::Break) {
      levels = std::min(levels, last.levels);
    } else if (last.kind == ir::StmtKind::If && !last.orelse.empty()) {
      todo.push_back(&last.body);
      todo.push_back(&last.orelse);
    } else {
      return 0;
    }
  }
  return levels;
}

// The operations a function performs in its loops, each weighted by 20 per
// loop around it (the cost model's factor): a loop's condition and step
// count as its body, a `for`'s init as the code before it; a subexpression
// shared within a statement counts once. Choosing is free, a `?:` as much
// as the `if` it stands for (reversion turns one into the other). Where the
// code around runs once, an `if` runs one of its arms: it weighs as the
// heavier (reversion may emit a loop in each branch that needs it); inside a
// loop, both arms count (an iteration may take either).
double loop_work(const ir::Block& body) {
  enum class Arm { None, Then, Else };
  struct Level {
    std::span<const ir::Stmt> stmts;
    double weight;
    Arm arm = Arm::None;
  };
  // The work of the arms of the once-run `if`s being walked, innermost
  // last, on the function's own; the then-arms' of those in their else.
  std::vector<double> work{0};
  std::vector<double> then_work;
  // Only an expression with more than one owner can be met twice.
  std::unordered_set<const ir::Expr*> seen;
  std::vector<const ir::ExprPtr*> todo;
  const auto ops = [&](const ir::ExprPtr& root, double weight) {
    if (!root || weight == 1) return;
    todo.assign(1, &root);
    while (!todo.empty()) {
      const ir::ExprPtr& ptr = *todo.back();
      todo.pop_back();
      const ir::Expr* e = ptr.get();
      if (ptr.use_count() > 1 && !seen.insert(e).second) continue;
      const bool free = e->kind == ir::ExprKind::Const || e->kind == ir::ExprKind::Var ||
                        e->kind == ir::ExprKind::Table || e->kind == ir::ExprKind::GpuIndex ||
                        e->kind == ir::ExprKind::Select ||
                        (e->kind == ir::ExprKind::Unary && e->unary_op() == ir::UnaryOp::Not);
      if (!free) work.back() += weight;
      for (const ir::ExprPtr& a : e->args)
        if (a) todo.push_back(&a);
    }
  };
  std::vector<Level> stack{{body, 1}};
  while (!stack.empty()) {
    Level& top = stack.back();
    if (top.stmts.empty()) {
      if (top.arm == Arm::Then) {
        then_work.push_back(std::exchange(work.back(), 0));
      } else if (top.arm == Arm::Else) {
        const double heavier = std::max(then_work.back(), work.back());
        then_work.pop_back();
        work.pop_back();
        work.back() += heavier;
      }
      stack.pop_back();
      continue;
    }
    const ir::Stmt& s = top.stmts.front();
    top.stmts = top.stmts.subspan(1);
    const double weight = top.weight;
    const bool loop = s.kind == ir::StmtKind::While || s.kind == ir::StmtKind::For;
    const double inner = loop ? std::min(weight * 20, 1e12) : weight;
    seen.clear();
    ops(s.expr, inner);
    ops(s.ptr, weight);
    ops(s.index, weight);
    // A branch that ends by leaving loops (on every path: an exit test
    // split into an `if` whose arms both break) runs once as they end: it
    // weighs as the code around them (reversion puts a loop's exit value
    // there; what the next iteration also needs then appears on both
    // paths). Not one that may go on first (`else { if (a) continue; ...;
    // break; }`): that runs on every iteration it goes on from.
    const auto leaving = [](const ir::Block& b, double w) {
      const std::uint32_t levels = loops_left_at_end(b);
      if (levels == 0 || may_continue(b)) return w;
      for (std::uint32_t level = 0; level < levels; ++level) w = std::max(w / 20, 1.0);
      return w;
    };
    if (s.kind == ir::StmtKind::If && weight == 1) {
      work.push_back(0);
      stack.push_back({s.orelse, 1, Arm::Else});
      stack.push_back({s.body, 1, Arm::Then});
      continue;
    }
    if (!s.body.empty())
      stack.push_back({s.body, s.kind == ir::StmtKind::If ? leaving(s.body, inner) : inner});
    if (!s.orelse.empty()) stack.push_back({s.orelse, leaving(s.orelse, weight)});
    if (!s.step.empty()) stack.push_back({s.step, inner});
    if (!s.init.empty()) stack.push_back({s.init, weight});
  }
  return work.front();
}

// The passes of the loops each loop runs on every iteration up to its exit
// (a LoopFacts::total value that is an eval: its loop's pass), as (outer
// pass, inner pass). Read before saturation, while a class holds only what
// translation made: afterwards, a value's class may hold evals of loops the
// source never runs.
std::vector<std::pair<eqsat::Id, eqsat::Id>> loops_run_by_loops(const eqsat::EGraph& g,
                                                                const PegFunction& peg) {
  std::vector<std::pair<eqsat::Id, eqsat::Id>> out;
  for (const LoopFacts& loop : peg.loops)
    for (eqsat::Id id : loop.total)
      for (eqsat::Id n : g.nodes_of(g.find(id))) {
        const eqsat::ENodeView v = g.node(n);
        if (kind_of(v.label.op) == Kind::Eval) out.emplace_back(loop.pass, v.children[1]);
      }
  return out;
}

// Which classes to_peg found defined at every iteration of each loop
// (LoopFacts::total), and the passes of the loops every iteration runs
// (loops_run_by_loops).
class Totality {
 public:
  Totality(const eqsat::EGraph& g, const PegFunction& peg,
           std::span<const std::pair<eqsat::Id, eqsat::Id>> inner_loops) {
    for (const LoopFacts& loop : peg.loops) {
      auto& set = total_[eqsat::index(g.find(loop.pass))];
      for (eqsat::Id id : loop.total) set.insert(eqsat::index(g.find(id)));
    }
    for (const auto& [outer, inner] : inner_loops)
      total_[eqsat::index(g.find(outer))].insert(eqsat::index(g.find(inner)));
  }
  bool operator()(eqsat::Id value, eqsat::Id pass) const {
    auto it = total_.find(eqsat::index(pass));
    return it != total_.end() && it->second.contains(eqsat::index(value));
  }

 private:
  std::unordered_map<std::uint32_t, std::unordered_set<std::uint32_t>> total_;
};

// Two source loops with the same bounds are one loop (Tate, §8.6): their
// cyclic PEGs are bisimilar, which hash-consing alone cannot see. Right after
// translation every class holds one e-node, so partition refinement finds
// them all in O(e-nodes × log classes).
void fuse_equal_loops(eqsat::EGraph& g) {
  eqsat::merge_bisimilar_classes(g);
}

// The CPU time one reversion attempt may take: the saturation's safety net,
// scaled by how far the attempt's work budget exceeds a full region's, so
// that only a runaway reaches it.
std::chrono::nanoseconds reversion_net(const PegOptions& options, std::size_t max_work) {
  const double region_work =
      static_cast<double>(options.revert_work_base) +
      static_cast<double>(options.revert_work_per_node) * static_cast<double>(options.region_nodes);
  const double scale = std::max(1.0, static_cast<double>(max_work) / std::max(region_work, 1.0));
  const double net = static_cast<double>(options.limits.time.count()) * scale;
  if (net >= static_cast<double>(std::chrono::nanoseconds::max().count()))
    return std::chrono::nanoseconds::max();
  return std::chrono::nanoseconds(static_cast<std::int64_t>(net));
}

bool branches_without_loops(const ir::Block& body) {
  bool branches = false, loops = false;
  ir::for_each_stmt(body, [&](const ir::Stmt& s) {
    branches |= s.kind == ir::StmtKind::If;
    loops |= s.kind == ir::StmtKind::While || s.kind == ir::StmtKind::For;
    return !loops;
  });
  return branches && !loops;
}

// Why `f` is too deep to translate (empty if it is not).
std::string too_deep_for_translation(const ir::Function& f) {
  if (const std::size_t d = ir::expr_depth(f.body); d > kMaxPegDepth)
    return "an expression " + std::to_string(d) + " deep, past the optimizer's limit of " +
           std::to_string(kMaxPegDepth);
  if (const std::size_t d = ir::nesting_depth(f.body); d > kMaxPegDepth)
    return "statements nested " + std::to_string(d) + " deep, past the optimizer's limit of " +
           std::to_string(kMaxPegDepth);
  return {};
}

// The most e-classes on one path down from the roots, a loop's back edges
// aside; iterative, since it is measured to keep the recursive passes off
// deep PEGs. Measured right after translation, where each class holds one
// e-node.
std::size_t peg_depth(const eqsat::EGraph& g, const PegRoots& roots) {
  constexpr std::size_t kOpen = ~std::size_t{0};          // on the current path
  constexpr std::size_t kUnseen = kOpen - 1;              // not reached yet
  std::vector<std::size_t> depth(g.id_count(), kUnseen);  // by class index
  std::size_t deepest = 0;
  std::vector<eqsat::Id> starts{roots.state};
  if (roots.result) starts.push_back(*roots.result);
  starts.insert(starts.end(), roots.outputs.begin(), roots.outputs.end());
  struct Frame {
    std::uint32_t cls;
    std::span<const eqsat::Id> children;
    std::size_t deepest_child;
  };
  std::vector<Frame> stack;
  const auto enter = [&](eqsat::Id id) {
    const eqsat::Id c = g.find(id);
    std::size_t& known = depth[eqsat::index(c)];
    if (known != kUnseen) return known == kOpen ? std::size_t{0} : known;
    known = kOpen;
    const std::span<const eqsat::Id> nodes = g.nodes_of(c);
    stack.push_back({eqsat::index(c),
                     nodes.empty() ? std::span<const eqsat::Id>{} : g.node(nodes.front()).children,
                     0});
    return kOpen;
  };
  for (eqsat::Id root : starts) {
    if (enter(root) != kOpen) continue;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (!top.children.empty()) {
        const eqsat::Id child = top.children.front();
        top.children = top.children.subspan(1);
        const std::size_t d = enter(child);
        // Recomputed: enter() may have moved the stack.
        if (d != kOpen) stack.back().deepest_child = std::max(stack.back().deepest_child, d);
        continue;
      }
      const std::size_t d = top.deepest_child + 1;
      depth[top.cls] = d;
      deepest = std::max(deepest, d);
      stack.pop_back();
      if (!stack.empty()) stack.back().deepest_child = std::max(stack.back().deepest_child, d);
    }
  }
  return deepest;
}

// The classes of `graph`'s evals that a loop at the eval's depth reads: a
// node varying in the loop reads it, directly or through invariant nodes.
std::unordered_set<std::uint32_t> evals_read_in_loops(const PegGraph& graph) {
  const std::size_t n = graph.nodes.size();
  // Bit ℓ-1 of read_in[c]: a node varying in a loop of depth ℓ reaches c.
  std::vector<std::uint64_t> read_in(n, 0);
  std::vector<std::uint32_t> work;
  const auto pass_down = [&](std::uint32_t i, std::uint64_t bits) {
    for (std::uint32_t c : graph.nodes[i].children)
      if ((read_in[c] | bits) != read_in[c]) {
        read_in[c] |= bits;
        work.push_back(c);
      }
  };
  for (std::uint32_t i = 0; i < n; ++i) pass_down(i, graph.variant[i]);
  while (!work.empty()) {
    const std::uint32_t i = work.back();
    work.pop_back();
    pass_down(i, read_in[i]);
  }
  std::unordered_set<std::uint32_t> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    const PegNode& node = graph.nodes[i];
    if (node.kind() == Kind::Eval && (read_in[i] >> (node.loop() - 1) & 1) != 0)
      out.insert(eqsat::index(node.eclass));
  }
  return out;
}

// The source loop a value of loops merged for their bounds is emitted as
// (optimize_function says which).
struct SourceLoop {
  unsigned first, preferred;
};

// What reverting one function's extracted programs reads besides the
// program: the e-graph and translation's facts, the same for every attempt.
struct ReversionContext {
  const eqsat::EGraph& g;
  const ir::Function& f;
  const PegFunction& peg;
  const Totality& total;
  // Classes defined on every call, and those defined on a path.
  const std::unordered_set<std::uint32_t>& defined;
  const std::unordered_multimap<std::uint32_t, const PegFunction::Conditional*>& defined_when;
  const std::unordered_map<std::uint32_t, SourceLoop>& source_loop;
  std::size_t max_work;
  std::chrono::nanoseconds time_net;
  std::span<const ir::VarId> outputs;
};

RevertResult revert_program(const ReversionContext& cx, const PegGraph& program) {
  const eqsat::EGraph& g = cx.g;
  RevertInput input;
  input.graph = &program;
  input.original = &cx.f;
  input.externs = &cx.peg.externs;
  input.tables = &cx.peg.tables;
  input.total = [&](eqsat::Id value, eqsat::Id pass) { return cx.total(value, pass); };
  // The conditions simplification folded: a path's condition may be one
  // (an `if` on a flag decided by cases), no longer in the program for
  // reversion to branch on.
  std::unordered_map<std::uint32_t, bool> decided;
  for (const auto& [cls, value] : program.decided)
    decided.emplace(eqsat::index(g.find(cls)), value);
  input.defined = [&](eqsat::Id c, const RevertInput::KnownCondition& known) {
    const std::uint32_t cls = eqsat::index(g.find(c));
    if (cx.defined.contains(cls)) return true;
    const auto known_here = [&](eqsat::Id x) -> std::optional<bool> {
      if (const auto it = decided.find(eqsat::index(x)); it != decided.end()) return it->second;
      return known(x);
    };
    // A path's condition is x where the source branched on !x (`if (!x)
    // return;`), which reversion knows through the Not it branches on;
    // saturation may have left another form of !x (a φ) in its place.
    const auto known_either_way = [&](eqsat::Id x) -> std::optional<bool> {
      if (const std::optional<bool> k = known_here(g.find(x))) return k;
      const eqsat::Id operand[] = {g.find(x)};
      const std::optional<eqsat::Id> negation =
          g.lookup(label(Kind::Not, PegType(ir::Type::bool_())), operand);
      if (!negation) return std::nullopt;
      const std::optional<bool> k = known_here(g.find(*negation));
      return k ? std::optional(!*k) : std::nullopt;
    };
    const auto paths = cx.defined_when.equal_range(cls);
    return std::any_of(paths.first, paths.second, [&](const auto& entry) {
      for (std::uint32_t s = entry.second->path; s != PegFunction::kTopLevel;) {
        const PegFunction::PathStep& step = cx.peg.path_steps[s];
        if (known_either_way(step.condition) != step.taken &&
            !(step.unless_exit && known_here(g.find(*step.unless_exit)) == false))
          return false;
        s = step.outer;
      }
      return true;
    });
  };
  input.max_work = cx.max_work;
  input.time_net = cx.time_net;
  const std::unordered_set<std::uint32_t> read_in_loops = evals_read_in_loops(program);
  input.source_loop = [&](eqsat::Id c) -> std::optional<unsigned> {
    const std::uint32_t cls = eqsat::index(g.find(c));
    auto it = cx.source_loop.find(cls);
    if (it == cx.source_loop.end()) return std::nullopt;
    return read_in_loops.contains(cls) ? it->second.first : it->second.preferred;
  };
  input.outputs.assign(cx.outputs.begin(), cx.outputs.end());
  return revert(input);
}

}  // namespace

void declare_called_externs(ir::Module& module, const ir::Function& f) {
  std::vector<const ir::Expr*> stack;
  ir::for_each_stmt(f.body, [&](const ir::Stmt& s) {
    ir::for_each_expr(s, stack, [&](const ir::Expr& e) {
      if (e.kind == ir::ExprKind::Call) module.declare_extern(*e.callee);
    });
  });
}

std::optional<ir::Function> optimize_function(const ir::Module& module, const ir::Function& f,
                                              const PegOptions& options, PegFunctionReport& report,
                                              bool dump, std::span<const ir::VarId> outputs) {
  report.function = f.name;
  report.ir_nodes = ir::node_count(f.body);
  if (std::string why = too_deep_for_translation(f); !why.empty()) {
    report.fallback = std::move(why);
    return std::nullopt;
  }
  Clock::time_point t = Clock::now();
  std::unique_ptr<eqsat::EGraph> g = make_peg_egraph();
  PegFunction peg;
  try {
    peg = to_peg(f, *g, outputs);
    g->rebuild();
    if (peg.loops.size() > 1) fuse_equal_loops(*g);
  } catch (const unsupported& e) {
    report.fallback = e.message();
    return std::nullopt;
  }
  report.to_peg = Clock::now() - t;
  report.peg_nodes = g->node_count();
  const std::vector<std::pair<eqsat::Id, eqsat::Id>> inner_loops = loops_run_by_loops(*g, peg);
  if (const std::size_t d = peg_depth(*g, peg.roots()); d > kMaxPegDepth) {
    report.fallback = "a PEG " + std::to_string(d) + " deep, past the optimizer's limit of " +
                      std::to_string(kMaxPegDepth);
    return std::nullopt;
  }
  // Code without loops but with branches, in which saturation finds nothing
  // cheaper than what translation made, is kept as it came: reversion would
  // only reshape its branches (a staged DFA's byte trees came back as `?:`
  // chains and `if`s on temporaries, 1.27× slower than LLVM's code for the
  // source). Code without branches is reverted: it keeps the values
  // translation shared.
  std::optional<PegGraph> translated;
  const bool keep_if_unchanged = options.saturate && branches_without_loops(f.body);
  if (keep_if_unchanged || dump)
    translated =
        extract_graph(*g, eqsat::Extractor(*g, peg_cost(), peg_cycle_edges()), peg.roots());
  if (dump) {
    std::cerr << "== PEG of " << f.name << " (" << report.peg_nodes << " e-nodes)\n";
    if (translated) std::cerr << print_graph(*translated);
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
    std::optional<eqsat::RuleIndex> with_user_index;
    if (!user.rules.empty()) with_user_index.emplace(with_user);
    const eqsat::RuleIndex& rules = user.rules.empty() ? builtin_rule_index() : *with_user_index;
    for (const auto& [id, decl] : user.externs) peg.externs.emplace(id, decl);
    eqsat::Limits limits = options.limits;
    limits.nodes =
        std::min(limits.nodes, options.growth_base + options.growth_per_node * report.peg_nodes);
    eqsat::Runner runner(eqsat::RunOptions{limits, {}, 1});
    try {
      const eqsat::Report r = runner.run(*g, rules);
      report.iterations = r.iterations;
      report.stop = std::string(eqsat::to_string(r.stop));
      if (r.stop == eqsat::StopReason::TimeLimit) ++report.time_nets;
    } catch (const jit::error& e) {
      report.fallback = "saturation: " + e.message();
      return std::nullopt;
    }
    report.saturate = Clock::now() - t;
  }
  report.egraph_nodes = g->node_count();
  report.egraph_classes = g->class_count();

  const Totality total(*g, peg, inner_loops);
  std::unordered_set<std::uint32_t> defined;
  for (eqsat::Id c : peg.defined) defined.insert(eqsat::index(g->find(c)));
  std::unordered_multimap<std::uint32_t, const PegFunction::Conditional*> defined_when;
  for (const PegFunction::Conditional& c : peg.defined_when)
    defined_when.emplace(eqsat::index(g->find(c.value)), &c);
  // Source loops that share a pass (equal bounds, merged): their values'
  // classes by loop, so that reversion can emit them as separate loops. A
  // value two source loops share (two counters with one bound) is the first
  // loop's, or (`preferred`) a loop's without effects where the first has
  // them: that loop may run anywhere the value is needed (after an `if`
  // whose branch ran the other), though not where a loop at its depth reads
  // the value (its own body would: then it is the first loop's).
  std::unordered_map<std::uint32_t, SourceLoop> source_loop;
  {
    std::unordered_map<std::uint32_t, unsigned> loops_per_pass;
    for (const LoopFacts& l : peg.loops) ++loops_per_pass[eqsat::index(g->find(l.pass))];
    const auto effectful = [&](const LoopFacts& l) {
      return std::any_of(l.evals.begin(), l.evals.end(), [&](eqsat::Id e) {
        return result_type(g->node(g->nodes_of(g->find(e)).front()).label.op).is_state();
      });
    };
    std::vector<bool> has_effects;
    for (const LoopFacts& l : peg.loops) has_effects.push_back(effectful(l));
    for (unsigned k = 0; k < peg.loops.size(); ++k) {
      if (loops_per_pass[eqsat::index(g->find(peg.loops[k].pass))] < 2) continue;
      for (eqsat::Id e : peg.loops[k].evals) {
        const auto [at, added] = source_loop.emplace(eqsat::index(g->find(e)), SourceLoop{k, k});
        if (!added && has_effects[at->second.preferred] && !has_effects[k])
          at->second.preferred = k;
      }
    }
  }
  const std::size_t revert_work =
      options.revert_work_base + options.revert_work_per_node * report.ir_nodes;
  const ReversionContext context{.g = *g,
                                 .f = f,
                                 .peg = peg,
                                 .total = total,
                                 .defined = defined,
                                 .defined_when = defined_when,
                                 .source_loop = source_loop,
                                 .max_work = revert_work,
                                 .time_net = reversion_net(options, revert_work),
                                 .outputs = outputs};
  std::unordered_set<std::uint32_t> banned;
  std::optional<ir::Function> out;
  std::size_t exclusive_loop_copies = 0;
  // Each attempt's DAG search gets its share of the budget; the greedy pass
  // is linear in the e-graph, which saturation's growth budget bounds.
  const std::size_t search_budget =
      (options.extract_work_base + options.extract_work_per_node * report.ir_nodes) /
      std::max(1u, options.extraction_attempts);
  for (unsigned attempt = 0; attempt < options.extraction_attempts && !out; ++attempt) {
    ++report.extractions;
    t = Clock::now();
    const eqsat::Extractor extractor(*g, peg_cost(&banned), peg_cycle_edges());
    report.extract_work += extractor.work();
    // Stopped by its budget, the DAG search still holds a program: the best
    // it found.
    ImprovedChoices improved = improve_choices(*g, extractor, peg.roots(), &banned, search_budget,
                                               options.extract_pruning);
    report.extract_work += improved.work;
    prefer_positive_conditions(*g, improved.choices, banned);
    std::optional<eqsat::Id> blame;
    const std::optional<PegGraph> graph = extract_graph(*g, improved.choices, peg.roots(), &blame);
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
      if (dump)
        std::cerr << "== extraction " << attempt + 1 << " of " << f.name << ", " << report.fallback
                  << "\n"
                  << print_graph(*graph);
      if (!blame || !banned.insert(eqsat::index(*blame)).second) return std::nullopt;
      continue;
    }
    if (keep_if_unchanged && same_program(*graph, *translated)) {
      report.unchanged = true;
      report.optimized = true;
      report.fallback.clear();
      return std::nullopt;
    }
    t = Clock::now();
    // The simplified program (a loop of one pass as straight-line code, a
    // flag every path decides as a constant), where there is one.
    const std::optional<PegGraph> simpler = simplified(*graph);
    const PegGraph& program = simpler ? *simpler : *graph;
    RevertResult reverted = revert_program(context, program);
    report.revert += Clock::now() - t;
    if (reverted.function) {
      out = std::move(reverted.function);
      exclusive_loop_copies = reverted.exclusive_loop_copies;
      break;
    }
    if (reverted.failure == kRevertOutOfTime) ++report.time_nets;
    report.fallback = "reversion: " + reverted.failure;
    report.retries.push_back(report.fallback);
    if (dump)
      std::cerr << "== extraction " << attempt + 1 << " of " << f.name << ", " << report.fallback
                << "\n"
                << print_graph(program);
    if (!reverted.blame || !banned.insert(eqsat::index(*reverted.blame)).second)
      return std::nullopt;
  }
  if (!out) return std::nullopt;
  // Reversion may compute a loop's value in more than one place (φ contexts
  // it cannot share); more loops than the input means some loop would run
  // more often (nested_loops was so: the inner loop twice per outer
  // iteration, 1.67× slower), unless the copies are in branches no run
  // takes two of.
  const std::size_t all_loops = ir::loop_count(out->body);
  if (const std::size_t in = ir::loop_count(f.body),
      emitted = all_loops - std::min(exclusive_loop_copies, all_loops);
      emitted > in) {
    report.fallback = "reversion duplicated loops (" + std::to_string(emitted) + " for " +
                      std::to_string(in) + ")";
    if (dump) std::cerr << "== " << report.fallback << ":\n" << ir::print(*out);
    return std::nullopt;
  }
  // Counted statically, an exit value computed after its loop (once) weighs
  // as much as a statement of the loop around it: a margin lets such moves
  // through; a loop body emitted twice still doubles its share.
  if (const double in = loop_work(f.body), emitted = loop_work(out->body);
      emitted > in * kLoopWorkMargin) {
    report.fallback = "reversion made the loops' work grow (" +
                      std::to_string(static_cast<long long>(emitted)) + " for " +
                      std::to_string(static_cast<long long>(in)) + ")";
    if (dump) std::cerr << "== " << report.fallback << ":\n" << ir::print(*out);
    return std::nullopt;
  }

  // Verified in a module of its own, moved there and back (a copy of every
  // statement otherwise).
  ir::Module check;
  check.externs = module.externs;
  declare_called_externs(check, *out);
  check.functions.push_back(std::move(*out));
  std::vector<jit::verify_error> errors = ir::check(check);
  *out = std::move(check.functions.back());
  if (!errors.empty()) {
    report.fallback =
        "the reverted function does not verify: " + std::string(errors.front().what());
    if (dump) std::cerr << "== " << report.fallback << ":\n" << ir::print(*out);
    return std::nullopt;
  }
  if (options.validate) {
    t = Clock::now();
    report.validated = validate(*g, peg, *out, options.limits, outputs);
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

}  // namespace augur::peg
