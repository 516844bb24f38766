#include "runtime/peg/loop_eval.h"

#include <array>
#include <map>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "runtime/eqsat/stamped_set.h"
#include "runtime/peg/peg_egraph.h"
#include "runtime/peg/peg_fold.h"
#include "runtime/peg/peg_ops.h"

namespace augur::peg {

namespace {

using eqsat::EGraph;
using eqsat::Id;
using eqsat::Label;

// Small: the rule runs on every eval at every saturation iteration, and LLVM
// evaluates long constant loops anyway.
constexpr unsigned kMaxIterations = 1024;
constexpr unsigned kMaxWork = 4'000;   // class evaluations per loop
constexpr unsigned kMaxClasses = 512;  // classes a loop may involve

constexpr unsigned kMaxDepth = 8;  // loops nested in the one evaluated

using Thetas = std::vector<std::pair<Id, Id>>;  // class, θ e-node

// A loop's θs a value reaches: first those its exit condition reaches, then
// the value's own.
struct LoopThetas {
  Thetas thetas;
  std::size_t of_condition = 0;
};

// Constants by class index, emptied in O(1) (the rule runs on every eval
// at every iteration, and hash maps built and copied per loop run were most
// of its time).
class ClassValues {
 public:
  void clear(std::size_t classes) {
    set_.clear(classes);
    if (values_.size() < classes) values_.resize(classes);
  }
  const Label* find(std::uint32_t c) const { return set_.contains(c) ? &values_[c] : nullptr; }
  void put(std::uint32_t c, Label v) {
    set_.insert(c);
    values_[c] = v;
  }

 private:
  eqsat::StampedSet set_;
  std::vector<Label> values_;
};

// What a simulation keeps per loop run, by nesting level (0: the loop
// evaluated): the loop's θ values (a nested run sees its enclosing runs'
// too) and the classes computed in the current iteration. One per thread,
// reused: evaluate_loop does not reenter itself.
struct Levels {
  std::array<ClassValues, kMaxDepth + 1> env, memo;
  std::array<std::vector<Label>, kMaxDepth + 1> next;  // the θs' next values
  std::vector<bool> active;  // by class index: being evaluated (cycles fail)
};

Levels& thread_levels() {
  thread_local Levels levels;
  return levels;
}

// A class varying in the loop that no e-node can fold (a load of the loop's
// memory, a call): the loop is not constant, and looking further would cost
// a walk of the whole loop for every eval, every iteration.
bool opaque(const EGraph& g, Id c) {
  if (constants(g).constant(c)) return false;
  for (Id n : g.nodes_of(c)) {
    const Kind k = kind_of(g.node(n).label.op);
    if (k == Kind::Phi || k == Kind::Eval || k == Kind::Theta || k == Kind::Pass ||
        (is_pure_value_op(k) && k != Kind::CallPure))
      return false;
  }
  return true;
}

// Whether what kept the loop from starting last time still does: a θ's
// initial value still not a known constant, or a class still opaque and
// varying in the loop.
bool still_blocked(const EGraph& g, const LoopEvalMemo::Blocker& blocker, unsigned loop) {
  const Id c = g.find(eqsat::make_id(blocker.cls));
  if (!blocker.opaque) return !constants(g).constant(c);
  return opaque(g, c) && !invariance(g).invariant(c, loop);
}

// Limits shared by a loop and the loops nested in it.
struct Budget {
  unsigned work = 0;
  unsigned depth = 0;
  bool exhausted = false;  // past kMaxWork or kMaxIterations
  // What kept the loop evaluated from starting, if one class did, and
  // whether the loop's exit condition reaches it (then it keeps every value
  // of the loop from starting).
  std::optional<LoopEvalMemo::Blocker> blocker;
  bool blocks_loop = false;
  // Each loop's θs by (value, condition, loop), found once: an inner loop
  // runs again at every outer iteration (nullopt: not a constant loop).
  std::map<std::tuple<std::uint32_t, std::uint32_t, unsigned>, std::optional<LoopThetas>> thetas;
};

class Simulator {
 public:
  Simulator(const EGraph& g, Budget& budget) : g_(g), budget_(budget), levels_(thread_levels()) {
    if (levels_.active.size() < g.id_count()) levels_.active.resize(g.id_count(), false);
  }

  // Runs the loop at nesting level budget_.depth; the enclosing levels hold
  // the enclosing runs' θ values.
  std::optional<Label> run(Id x, Id pass, unsigned loop) {
    std::optional<Id> cond;
    for (Id n : g_.nodes_of(pass)) {
      const eqsat::ENodeView v = g_.node(n);
      if (kind_of(v.label.op) == Kind::Pass && v.label.payload == loop) cond = v.children[0];
    }
    if (!cond) return std::nullopt;
    const auto key = std::make_tuple(eqsat::index(g_.find(x)), eqsat::index(g_.find(*cond)), loop);
    auto found = budget_.thetas.find(key);
    if (found == budget_.thetas.end()) {
      LoopThetas discovered;
      found = budget_.thetas
                  .emplace(key, discover(x, *cond, loop, discovered)
                                    ? std::optional<LoopThetas>(std::move(discovered))
                                    : std::nullopt)
                  .first;
    }
    if (!found->second) return std::nullopt;
    const Thetas& thetas = found->second->thetas;
    // The loop evaluated (not one nested in it, whose θs may start from the
    // enclosing run's values) runs only when its θs start from constants the
    // e-graph knows: one that starts from another loop's value waits until
    // the rule, which runs on every eval, has folded that loop, instead of
    // this rule simulating that loop again for every eval of this one, at
    // every iteration, to find most of them not constant.
    if (budget_.depth == 0)
      for (std::size_t k = 0; k < thetas.size(); ++k) {
        const Id init = g_.find(g_.node(thetas[k].second).children[0]);
        if (!constants(g_).constant(init)) {
          budget_.blocker = LoopEvalMemo::Blocker{eqsat::index(init), false};
          budget_.blocks_loop = k < found->second->of_condition;
          return std::nullopt;
        }
      }

    ClassValues& env = levels_.env[budget_.depth];
    ClassValues& memo = levels_.memo[budget_.depth];
    env.clear(g_.id_count());
    memo.clear(g_.id_count());
    for (const auto& [cls, theta] : thetas) {
      const std::optional<Label> init = value(g_.node(theta).children[0]);
      if (!init) return std::nullopt;
      env.put(eqsat::index(cls), *init);
    }
    std::vector<Label>& next = levels_.next[budget_.depth];
    next.resize(thetas.size());
    for (unsigned i = 0; i < kMaxIterations; ++i) {
      memo.clear(g_.id_count());
      const std::optional<Label> c = value(*cond);
      if (!c) return std::nullopt;
      if (c->payload != 0) return value(x);
      for (std::size_t k = 0; k < thetas.size(); ++k) {
        const std::optional<Label> v = value(g_.node(thetas[k].second).children[1]);
        if (!v) return std::nullopt;
        next[k] = *v;
      }
      for (std::size_t k = 0; k < thetas.size(); ++k)
        env.put(eqsat::index(thetas[k].first), next[k]);
    }
    budget_.exhausted = true;
    return std::nullopt;
  }

 private:
  // The classes with a θ_loop the loop's condition and value reach, the
  // condition's first.
  bool discover(Id x, Id cond, unsigned loop, LoopThetas& found) const {
    // One per thread, reused (the walk is not reentrant): the rule walks a
    // loop for every eval, every iteration.
    thread_local eqsat::StampedSet seen;
    seen.clear(g_.id_count());
    if (!walk(cond, loop, seen, found.thetas, true)) return false;
    found.of_condition = found.thetas.size();
    return walk(x, loop, seen, found.thetas, false);
  }

  bool walk(Id from, unsigned loop, eqsat::StampedSet& seen, Thetas& thetas, bool condition) const {
    const eqsat::LoopInvariance& inv = invariance(g_);
    thread_local std::vector<Id> todo;
    todo.assign({from});
    while (!todo.empty()) {
      const Id c = g_.find(todo.back());
      todo.pop_back();
      if (!seen.insert(eqsat::index(c)) || inv.invariant(c, loop)) continue;
      if (seen.size() > kMaxClasses) return false;
      if (opaque(g_, c)) {
        if (budget_.depth == 0) {
          budget_.blocker = LoopEvalMemo::Blocker{eqsat::index(c), true};
          budget_.blocks_loop = condition;
        }
        return false;
      }
      for (Id n : g_.nodes_of(c)) {
        const eqsat::ENodeView v = g_.node(n);
        if (kind_of(v.label.op) == Kind::Theta && v.label.payload == loop &&
            (thetas.empty() || thetas.back().first != c))
          thetas.emplace_back(c, n);
        for (Id child : v.children) todo.push_back(child);
      }
    }
    return true;
  }

  // The class's constant in the current run: folded, a θ value of this run
  // or an enclosing one (the innermost first), or computed this iteration.
  std::optional<Label> value(Id cls) {
    const Id c = g_.find(cls);
    if (std::optional<Label> k = constants(g_).constant(c)) return k;
    const std::uint32_t i = eqsat::index(c);
    for (unsigned level = budget_.depth + 1; level-- > 0;)
      if (const Label* v = levels_.env[level].find(i)) return *v;
    ClassValues& memo = levels_.memo[budget_.depth];
    if (const Label* v = memo.find(i)) return *v;
    if (++budget_.work > kMaxWork) {
      budget_.exhausted = true;
      return std::nullopt;
    }
    if (levels_.active[i]) return std::nullopt;
    levels_.active[i] = true;
    std::optional<Label> out;
    for (Id n : g_.nodes_of(c)) {
      out = node_value(g_.node(n));
      if (out) break;
    }
    levels_.active[i] = false;
    if (out) memo.put(i, *out);
    return out;
  }

  std::optional<Label> node_value(const eqsat::ENodeView& v) {
    const Kind k = kind_of(v.label.op);
    if (k == Kind::Phi) {
      const std::optional<Label> c = value(v.children[0]);
      if (!c) return std::nullopt;
      return value(v.children[c->payload != 0 ? 1 : 2]);
    }
    if (k == Kind::Eval) {
      if (budget_.depth >= kMaxDepth) return std::nullopt;
      ++budget_.depth;
      const std::optional<Label> r =
          run(v.children[0], v.children[1], static_cast<unsigned>(v.label.payload));
      --budget_.depth;
      return r;
    }
    if (!is_pure_value_op(k) || k == Kind::CallPure) return std::nullopt;
    // Operands on the stack when they fit (an allocation per e-node tried
    // was a fifth of the rule's time).
    std::array<Label, 4> small;
    std::vector<Label> large;
    std::span<Label> children(small.data(), v.children.size());
    if (v.children.size() > small.size()) {
      large.resize(v.children.size());
      children = large;
    }
    for (std::size_t i = 0; i < v.children.size(); ++i) {
      const std::optional<Label> c = value(v.children[i]);
      if (!c) return std::nullopt;
      children[i] = *c;
    }
    return fold(v.label, children);
  }

  const EGraph& g_;
  Budget& budget_;
  Levels& levels_;
};

}  // namespace

std::optional<eqsat::Label> evaluate_loop(const EGraph& egraph, Id x, Id pass, unsigned loop) {
  const LoopEvalMemo& memo = loop_eval_memo(egraph);
  const LoopEvalMemo::Key key{eqsat::index(egraph.find(x)), eqsat::index(egraph.find(pass))};
  if (memo.gave_up(key.second)) return std::nullopt;
  for (const LoopEvalMemo::Blocker* blocker : {memo.loop_blocker(key.second), memo.blocker(key)})
    if (blocker && still_blocked(egraph, *blocker, loop)) return std::nullopt;
  Budget budget;
  std::optional<Label> out = Simulator(egraph, budget).run(x, pass, loop);
  if (!out && budget.exhausted) memo.give_up(key.second);
  if (!out && budget.blocker) {
    if (budget.blocks_loop)
      memo.block_loop(key.second, *budget.blocker);
    else
      memo.block(key, *budget.blocker);
  }
  return out;
}

}  // namespace augur::peg
