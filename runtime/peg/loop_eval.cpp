#include "runtime/peg/loop_eval.h"

#include <map>
#include <tuple>
#include <unordered_map>
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

using Values = std::unordered_map<std::uint32_t, Label>;  // class -> constant
using Thetas = std::vector<std::pair<Id, Id>>;            // class, θ e-node

// Limits shared by a loop and the loops nested in it.
struct Budget {
  unsigned work = 0;
  unsigned depth = 0;
  std::vector<bool> active;  // by class index: being evaluated (cycles fail)
  // Each loop's θs by (value, condition, loop), found once: an inner loop
  // runs again at every outer iteration (nullopt: not a constant loop).
  std::map<std::tuple<std::uint32_t, std::uint32_t, unsigned>, std::optional<Thetas>> thetas;
};

class Simulator {
 public:
  Simulator(const EGraph& g, Budget& budget) : g_(g), budget_(budget) {}

  std::optional<Label> run(Id x, Id pass, unsigned loop, const Values& outer) {
    std::optional<Id> cond;
    for (Id n : g_.nodes_of(pass)) {
      const eqsat::ENodeView v = g_.node(n);
      if (kind_of(v.label.op) == Kind::Pass && v.label.payload == loop) cond = v.children[0];
    }
    if (!cond) return std::nullopt;
    const auto key = std::make_tuple(eqsat::index(g_.find(x)), eqsat::index(g_.find(*cond)), loop);
    auto found = budget_.thetas.find(key);
    if (found == budget_.thetas.end()) {
      Thetas discovered;
      found = budget_.thetas
                  .emplace(key, discover(x, *cond, loop, discovered)
                                    ? std::optional<Thetas>(std::move(discovered))
                                    : std::nullopt)
                  .first;
    }
    if (!found->second) return std::nullopt;
    const Thetas& thetas = *found->second;

    Values env = outer;
    Values memo;
    for (const auto& [cls, theta] : thetas) {
      const std::optional<Label> init = value(g_.node(theta).children[0], env, memo);
      if (!init) return std::nullopt;
      env[eqsat::index(cls)] = *init;
    }
    for (unsigned i = 0; i < kMaxIterations; ++i) {
      memo.clear();
      const std::optional<Label> c = value(*cond, env, memo);
      if (!c) return std::nullopt;
      if (c->payload != 0) return value(x, env, memo);
      std::vector<Label> next;
      for (const auto& [cls, theta] : thetas) {
        const std::optional<Label> v = value(g_.node(theta).children[1], env, memo);
        if (!v) return std::nullopt;
        next.push_back(*v);
      }
      for (std::size_t k = 0; k < thetas.size(); ++k) env[eqsat::index(thetas[k].first)] = next[k];
    }
    return std::nullopt;
  }

 private:
  // The classes with a θ_loop the loop's values reach.
  bool discover(Id x, Id cond, unsigned loop, Thetas& thetas) const {
    const eqsat::LoopInvariance& inv = invariance(g_);
    // One per thread, reused (the walk is not reentrant): the rule walks a
    // loop for every eval, every iteration.
    thread_local eqsat::StampedSet seen;
    seen.clear(g_.id_count());
    std::vector<Id> todo{g_.find(x), g_.find(cond)};
    while (!todo.empty()) {
      const Id c = g_.find(todo.back());
      todo.pop_back();
      if (!seen.insert(eqsat::index(c)) || inv.invariant(c, loop)) continue;
      if (seen.size() > kMaxClasses || opaque(c)) return false;
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

  // A class varying in the loop that no e-node can fold (a load of the
  // loop's memory, a call): the loop is not constant, and looking further
  // would cost a walk of the whole loop for every eval, every iteration.
  bool opaque(Id c) const {
    if (constants(g_).constant(c)) return false;
    for (Id n : g_.nodes_of(c)) {
      const Kind k = kind_of(g_.node(n).label.op);
      if (k == Kind::Phi || k == Kind::Eval || k == Kind::Theta || k == Kind::Pass ||
          (is_pure_value_op(k) && k != Kind::CallPure))
        return false;
    }
    return true;
  }

  std::optional<Label> value(Id cls, Values& env, Values& memo) {
    const Id c = g_.find(cls);
    if (std::optional<Label> k = constants(g_).constant(c)) return k;
    if (auto it = env.find(eqsat::index(c)); it != env.end()) return it->second;
    if (auto it = memo.find(eqsat::index(c)); it != memo.end()) return it->second;
    const std::uint32_t i = eqsat::index(c);
    if (i >= budget_.active.size()) budget_.active.resize(i + 1);
    if (++budget_.work > kMaxWork || budget_.active[i]) return std::nullopt;
    budget_.active[i] = true;
    std::optional<Label> out;
    for (Id n : g_.nodes_of(c)) {
      out = node_value(g_.node(n), env, memo);
      if (out) break;
    }
    budget_.active[i] = false;
    if (out) memo[eqsat::index(c)] = *out;
    return out;
  }

  std::optional<Label> node_value(const eqsat::ENodeView& v, Values& env, Values& memo) {
    const Kind k = kind_of(v.label.op);
    if (k == Kind::Phi) {
      const std::optional<Label> c = value(v.children[0], env, memo);
      if (!c) return std::nullopt;
      return value(v.children[c->payload != 0 ? 1 : 2], env, memo);
    }
    if (k == Kind::Eval) {
      if (budget_.depth >= 8) return std::nullopt;
      ++budget_.depth;
      const std::optional<Label> r =
          run(v.children[0], v.children[1], static_cast<unsigned>(v.label.payload), env);
      --budget_.depth;
      return r;
    }
    if (!is_pure_value_op(k) || k == Kind::CallPure) return std::nullopt;
    std::vector<Label> children;
    for (Id child : v.children) {
      const std::optional<Label> c = value(child, env, memo);
      if (!c) return std::nullopt;
      children.push_back(*c);
    }
    return fold(v.label, children);
  }

  const EGraph& g_;
  Budget& budget_;
};

}  // namespace

std::optional<eqsat::Label> evaluate_loop(const EGraph& egraph, Id x, Id pass, unsigned loop) {
  Budget budget;
  return Simulator(egraph, budget).run(x, pass, loop, {});
}

}  // namespace augur::peg
