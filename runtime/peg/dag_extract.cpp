#include "runtime/peg/dag_extract.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/peg/cost.h"
#include "runtime/peg/peg_ops.h"

namespace augur::peg {

namespace {

using eqsat::EGraph;
using eqsat::Id;

// The search's choices by class index (a hash lookup per node visit was most
// of its time); kNone where a class has no finite-cost program.
constexpr Id kNone = kNoChoice;
using FlatChoices = Choices;

class Search {
 public:
  Search(const EGraph& g, FlatChoices& choice, std::vector<Id> roots,
         const std::unordered_set<std::uint32_t>* banned, std::size_t budget)
      : g_(g),
        choice_(choice),
        roots_(std::move(roots)),
        banned_(banned),
        budget_(budget),
        stamp_(g.id_count(), 0),
        state_(g.id_count(), 0),
        node_costs_(g.id_count(), std::numeric_limits<double>::quiet_NaN()) {}

  // Whether the search ended before the budget.
  bool run() {
    std::optional<double> best = evaluate();
    if (!best) return visits_ <= budget_;
    std::vector<Id> candidates;
    for (Id c : reached_)
      if (g_.nodes_of(c).size() > 1) candidates.push_back(c);
    for (int round = 0; round < 3; ++round) {
      bool improved = false;
      for (Id c : candidates) {
        for (Id m : g_.nodes_of(c)) {
          if (visits_ > budget_) return false;
          Id& chosen = choice_[eqsat::index(c)];
          if (m == chosen || !usable(m) || cannot_improve(chosen, m)) continue;
          const Id before = chosen;
          chosen = m;
          const std::optional<double> total = evaluate();
          if (total && *total < *best - 1e-9) {
            best = total;
            improved = true;
          } else {
            choice_[eqsat::index(c)] = before;
          }
        }
      }
      if (!improved) break;
    }
    return visits_ <= budget_;
  }

  std::size_t visits() const { return visits_; }

 private:
  double cost_of(Id n) {
    double& c = node_costs_[eqsat::index(n)];
    if (std::isnan(c)) c = node_cost(g_, g_.node(n), banned_);
    return c;
  }

  // Whether switching a class from `before` to `m` cannot make the program
  // cheaper, seen without evaluating it: when `m` has every child of
  // `before` (as often), leaves aside, no class but those leaves can drop
  // out of the program, so it gets cheaper only if `before` and the leaves
  // together cost more than `m`. A commuted operation, most of a saturated
  // e-graph's alternatives, is so.
  bool cannot_improve(Id before, Id m) {
    double saved = cost_of(before) - cost_of(m);
    if (saved > 0) return false;
    const std::span<const Id> from = g_.node(before).children;
    const std::span<const Id> to = g_.node(m).children;
    visits_ += from.size() + to.size();
    for (std::size_t i = 0; i < from.size(); ++i) {
      const Id child = g_.find(from[i]);
      const auto same = [&](Id other) { return g_.find(other) == child; };
      // Each child once, however often it appears.
      if (std::any_of(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(i), same)) continue;
      const auto kept = std::count_if(to.begin(), to.end(), same);
      if (kept >= std::count_if(from.begin(), from.end(), same)) continue;
      const Id leaf = choice_[eqsat::index(child)];
      if (!g_.node(leaf).children.empty()) return false;
      saved += cost_of(leaf);
    }
    return saved <= 0;
  }

  bool usable(Id n) {
    if (cost_of(n) == std::numeric_limits<double>::infinity()) return false;
    for (Id child : g_.node(n).children)
      if (!has_choice(g_.find(child))) return false;
    return true;
  }

  // The DAG cost of the current choice, or nothing if it has a cycle that
  // avoids θ's second child.
  std::optional<double> evaluate() {
    ++generation_;
    reached_.clear();
    double total = 0;
    later_.assign(roots_.begin(), roots_.end());
    while (!later_.empty()) {
      const Id start = g_.find(later_.back());
      later_.pop_back();
      if (stamp_[eqsat::index(start)] == generation_) continue;
      if (!has_choice(start)) return std::nullopt;
      stack_.clear();
      push(start);
      while (!stack_.empty()) {
        Frame& f = stack_.back();
        ++visits_;
        if (f.next == f.node.children.size()) {
          state_[eqsat::index(f.cls)] = 2;
          total += cost_of(f.node.id);
          stack_.pop_back();
          continue;
        }
        const std::size_t i = f.next++;
        const Id child = g_.find(f.node.children[i]);
        if (f.theta && i == 1) {
          later_.push_back(child);
          continue;
        }
        if (stamp_[eqsat::index(child)] == generation_) {
          if (state_[eqsat::index(child)] == 1) return std::nullopt;  // a θ-free cycle
          continue;
        }
        if (!has_choice(child)) return std::nullopt;
        push(child);
      }
    }
    return total;
  }

  // A class on the DFS stack with its chosen e-node, read once.
  struct Frame {
    Id cls;
    eqsat::ENodeView node;
    bool theta;
    std::size_t next = 0;
  };
  void push(Id cls) {
    enter(cls);
    const eqsat::ENodeView v = g_.node(choice_[eqsat::index(cls)]);
    stack_.push_back(Frame{cls, v, kind_of(v.label.op) == Kind::Theta});
  }

  bool has_choice(Id cls) const { return choice_[eqsat::index(cls)] != kNone; }

  void enter(Id cls) {
    stamp_[eqsat::index(cls)] = generation_;
    state_[eqsat::index(cls)] = 1;
    reached_.push_back(cls);
  }

  const EGraph& g_;
  FlatChoices& choice_;
  std::vector<Id> roots_;
  const std::unordered_set<std::uint32_t>* banned_;
  std::size_t budget_;
  std::size_t visits_ = 0;
  std::uint32_t generation_ = 0;
  std::vector<std::uint32_t> stamp_;
  std::vector<char> state_;  // 1: on the DFS stack, 2: done
  std::vector<double> node_costs_;
  std::vector<Id> reached_;
  std::vector<Id> later_;     // evaluate()'s classes reached through θ's second child
  std::vector<Frame> stack_;  // evaluate()'s DFS
};

}  // namespace

ImprovedChoices improve_choices(const EGraph& egraph, const eqsat::Extractor& greedy,
                                const PegRoots& peg_roots,
                                const std::unordered_set<std::uint32_t>* banned,
                                std::size_t budget) {
  ImprovedChoices out;
  FlatChoices& flat = out.choices;
  flat.assign(egraph.id_count(), kNone);
  for (Id c : egraph.classes())
    if (greedy.cost(c)) flat[eqsat::index(c)] = greedy.choice(c);
  std::vector<Id> roots{peg_roots.state};
  if (peg_roots.result) roots.push_back(*peg_roots.result);
  roots.insert(roots.end(), peg_roots.outputs.begin(), peg_roots.outputs.end());
  for (Id r : roots)
    if (flat[eqsat::index(egraph.find(r))] == kNone) return out;
  Search search(egraph, flat, std::move(roots), banned, budget);
  out.out_of_budget = !search.run();
  out.work = search.visits();
  return out;
}

}  // namespace augur::peg
