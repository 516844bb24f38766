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
         const std::unordered_set<std::uint32_t>* banned, std::size_t budget, bool pruning)
      : g_(g),
        choice_(choice),
        roots_(std::move(roots)),
        banned_(banned),
        budget_(budget),
        pruning_(pruning),
        stamp_(g.id_count(), 0),
        state_(g.id_count(), 0),
        node_costs_(g.id_count(), std::numeric_limits<double>::quiet_NaN()),
        best_mark_(g.id_count(), 0),
        walked_(g.id_count(), 0),
        best_number_(g.id_count(), 0),
        joined_(g.id_count(), 0),
        has_eval_(g.id_count(), 0) {}

  // Whether the search ended before the budget.
  bool run() {
    std::optional<double> best = evaluate();
    if (!best) return visits_ <= budget_;
    mark_best();
    std::vector<Id> candidates;
    for (Id c : reached_)
      if (g_.nodes_of(c).size() > 1) candidates.push_back(c);
    for (int round = 0; round < 3; ++round) {
      bool improved = false;
      for (Id c : candidates) {
        // A class the program no longer reaches changes nothing.
        if (pruning_ && !in_best(c)) continue;
        for (Id m : g_.nodes_of(c)) {
          if (visits_ > budget_) return false;
          Id& chosen = choice_[eqsat::index(c)];
          if (m == chosen || !usable(m)) continue;
          if (!(pruning_ && rules_out(c, chosen, m))) {
            const Id before = chosen;
            chosen = m;
            if (cheaper(best)) {
              improved = true;
              continue;
            }
            choice_[eqsat::index(c)] = before;
          }
          if (improves_as_recurrence(c, m, best) || improves_reading_loops_run(c, m, best))
            improved = true;
        }
      }
      if (!improved) break;
    }
    return visits_ <= budget_;
  }

  std::size_t visits() const { return visits_; }

 private:
  // Whether the choices as they stand make a program cheaper than `best`;
  // if so, it is the program the search holds.
  bool cheaper(std::optional<double>& best) {
    const std::optional<double> total = evaluate();
    ++evaluations_since_best_;
    if (!total || *total >= *best - 1e-9) return false;
    best = total;
    mark_best();
    return true;
  }

  // Switches class `c` to the θ `m` together with its next value's class to
  // an e-node that reads `c` (x = θ(a, x - 1)), when that makes the program
  // cheaper. One switch at a time cannot get there once `c` is another
  // loop's form (1 - i) and the next value's class, out of the program,
  // keeps its greedy choice: a θ of its own (θ(0, y + -1)), which costs
  // the greedy extractor nothing past its start.
  bool improves_as_recurrence(Id c, Id m, std::optional<double>& best) {
    const eqsat::ENodeView theta = g_.node(m);
    if (kind_of(theta.label.op) != Kind::Theta) return false;
    const Id next = g_.find(theta.children[1]);
    if (next == c) return false;
    Id& next_choice = choice_[eqsat::index(next)];
    const Id next_before = next_choice;
    const Id before = choice_[eqsat::index(c)];
    for (Id r : g_.nodes_of(next)) {
      ++visits_;
      if (visits_ > budget_) break;
      const eqsat::ENodeView v = g_.node(r);
      if (r == next_before ||
          std::none_of(v.children.begin(), v.children.end(),
                       [&](Id child) { return g_.find(child) == c; }) ||
          !usable(r))
        continue;
      choice_[eqsat::index(c)] = m;
      next_choice = r;
      if (cheaper(best)) return true;
    }
    choice_[eqsat::index(c)] = before;
    next_choice = next_before;
    return false;
  }

  // Switches class `c` to `m` together with each class `m` brings in to a
  // value of a loop the program runs anyway (an eval whose children are all
  // in it), when that makes the program cheaper. Saturation gives a loop's
  // value a peeled form (φ(leaves at once, 0, a loop of its own)), which the
  // greedy extractor may prefer wherever it is used: one switch at a time
  // cannot get back to the loop's own value, since switching a use costs as
  // much while that value keeps its peeled form, and that value is no part
  // of the program until a use is switched.
  bool improves_reading_loops_run(Id c, Id m, std::optional<double>& best) {
    switched_.clear();
    for (Id child : g_.node(m).children) {
      const Id k = g_.find(child);
      if (k == c || in_best(k) || !has_eval(k) ||
          std::any_of(switched_.begin(), switched_.end(), [&](auto& s) { return s.first == k; }))
        continue;
      for (Id r : g_.nodes_of(k)) {
        ++visits_;
        const eqsat::ENodeView v = g_.node(r);
        if (kind_of(v.label.op) != Kind::Eval || r == choice_[eqsat::index(k)] || !usable(r) ||
            !std::all_of(v.children.begin(), v.children.end(),
                         [&](Id x) { return in_best(g_.find(x)); }))
          continue;
        switched_.emplace_back(k, choice_[eqsat::index(k)]);
        choice_[eqsat::index(k)] = r;
        break;
      }
    }
    if (switched_.empty() || visits_ > budget_) return restore_switched();
    // At most what `c` dominates leaves the program, and at least `m` and the
    // evals join it (dominance as in bound_rules_out()).
    if (pruning_) {
      if (measured_generation_ != best_generation_) measure_best();
      double joining = cost_of(m);
      for (const auto& [k, before] : switched_) joining += cost_of(choice_[eqsat::index(k)]);
      if (joining >= dominated_cost_[best_number_[eqsat::index(c)]]) return restore_switched();
    }
    const Id before = choice_[eqsat::index(c)];
    choice_[eqsat::index(c)] = m;
    if (cheaper(best)) return true;
    choice_[eqsat::index(c)] = before;
    return restore_switched();
  }
  // Whether class `k` has an eval e-node (looked at once: most have none).
  bool has_eval(Id k) {
    std::uint8_t& known = has_eval_[eqsat::index(k)];
    if (known == 0) {
      const auto nodes = g_.nodes_of(k);
      visits_ += nodes.size();
      known = std::any_of(nodes.begin(), nodes.end(),
                          [&](Id r) { return kind_of(g_.node(r).label.op) == Kind::Eval; })
                  ? 2
                  : 1;
    }
    return known == 2;
  }
  bool restore_switched() {
    for (const auto& [k, chosen] : switched_) choice_[eqsat::index(k)] = chosen;
    return false;
  }

  double cost_of(Id n) {
    double& c = node_costs_[eqsat::index(n)];
    if (std::isnan(c)) c = node_cost(g_, g_.node(n), banned_);
    return c;
  }

  // Whether switching class `c` from `before` to `m` cannot make a program
  // evaluate() accepts and is cheaper, seen without evaluating it.
  bool rules_out(Id c, Id before, Id m) {
    const double joining = joining_cost(m);
    return cannot_improve(before, m, joining) || bound_rules_out(c, m, joining) ||
           closes_cycle(c, m);
  }

  // Whether `m` as class `c`'s e-node would close a cycle that avoids θ's
  // second child through `c` itself or one of its parents, which
  // evaluate() would refuse: a load of the store of `c` is `c` (forwarding),
  // and most such alternatives are that.
  bool closes_cycle(Id c, Id m) {
    const auto edges = [&](Id node, auto&& each) {
      const eqsat::ENodeView v = g_.node(node);
      const bool theta = kind_of(v.label.op) == Kind::Theta;
      for (std::size_t i = 0; i < v.children.size(); ++i)
        if (!(theta && i == 1)) each(g_.find(v.children[i]));
    };
    bool closes = false;
    edges(m, [&](Id child) {
      ++visits_;
      if (closes || child == c) {
        closes = true;
        return;
      }
      if (in_best(child))
        edges(choice_[eqsat::index(child)], [&](Id grandchild) { closes |= grandchild == c; });
    });
    return closes;
  }

  // What `m` brings into the program at least: the chosen e-nodes of the
  // classes the program does not reach that `m` reaches through such
  // classes, each once (a bounded walk: a lower bound past its end). The
  // classes of the program where the walk meets it are left in `met_`.
  double joining_cost(Id m) {
    double joining = 0;
    met_.clear();
    joining_walk_.assign(1, m);
    ++join_generation_;
    for (std::size_t walked = 0; !joining_walk_.empty() && walked < kJoiningWalk; ++walked) {
      const std::span<const Id> children = g_.node(joining_walk_.back()).children;
      joining_walk_.pop_back();
      visits_ += children.size();
      for (Id c : children) {
        const Id child = g_.find(c);
        if (joined_[eqsat::index(child)] == join_generation_) continue;
        joined_[eqsat::index(child)] = join_generation_;
        if (in_best(child)) {
          met_.push_back(child);
          continue;
        }
        // A class without a program (one a θ's second child reaches, which
        // the greedy extractor prices through the cycle): evaluate() would
        // refuse the alternative.
        const Id chosen = choice_[eqsat::index(child)];
        if (chosen == kNone) return std::numeric_limits<double>::infinity();
        joining += cost_of(chosen);
        joining_walk_.push_back(chosen);
      }
    }
    return joining;
  }

  // Whether switching a class from `before` to `m` cannot make the program
  // cheaper, seen without evaluating it: when `m` has every child of
  // `before` (as often), leaves aside, no class but those leaves can drop
  // out of the program, so it gets cheaper only if `before` and the leaves
  // together cost more than `m` and what it brings in. A commuted
  // operation, most of a saturated e-graph's alternatives, is so, and so
  // is x - 1 against x + -1.
  bool cannot_improve(Id before, Id m, double joining) {
    double saved = cost_of(before) - cost_of(m) - joining;
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

  // Whether switching class `c` to `m` cannot make the program cheaper, by
  // a bound: at least `m` and what it brings in join the program, and at
  // most the classes `c` dominates leave it (every other class keeps a path
  // from a root that avoids `c`), less those dominated by a class `k` of
  // the program that `c` dominates and `m` reaches through new classes. A
  // path from `k` to each of those avoids the edges from `c` that `m`
  // drops: every way from `c`'s children to them passes through `k`, so a
  // path through such an edge would reach `k` again. Most alternatives deep
  // in a program dominate little, or keep what they dominate.
  bool bound_rules_out(Id c, Id m, double joining) {
    // Measuring costs a few evaluations: not before one has found nothing
    // since the program last changed (most regions evaluate one
    // alternative, if any).
    if (evaluations_since_best_ < kEvaluationsBeforeBound) return false;
    if (measured_generation_ != best_generation_) measure_best();
    const std::uint32_t at = best_number_[eqsat::index(c)];
    double leaving = dominated_cost_[at];
    kept_.clear();
    for (Id met : met_) {
      ++visits_;
      const std::uint32_t k = best_number_[eqsat::index(met)];
      if (k != at && dominates(at, k)) kept_.push_back(k);
    }
    // Subtrees of the dominator tree nest or are apart: each outermost once.
    std::sort(kept_.begin(), kept_.end(),
              [&](std::uint32_t a, std::uint32_t b) { return dom_enter_[a] < dom_enter_[b]; });
    std::uint32_t outer = 0;
    for (std::uint32_t k : kept_) {
      if (outer != 0 && dominates(outer, k)) continue;
      outer = k;
      leaving -= dominated_cost_[k];
    }
    return cost_of(m) + joining >= leaving;
  }

  // Whether class number `a` dominates class number `b` (or is it).
  bool dominates(std::uint32_t a, std::uint32_t b) const {
    return dom_enter_[a] <= dom_enter_[b] && dom_exit_[b] <= dom_exit_[a];
  }

  // Records the classes evaluate() just reached as the program the search
  // holds.
  void mark_best() {
    ++best_generation_;
    evaluations_since_best_ = 0;
    for (Id c : reached_) best_mark_[eqsat::index(c)] = best_generation_;
  }

  bool in_best(Id cls) const { return best_mark_[eqsat::index(cls)] == best_generation_; }

  // Measures the program the search holds for bound_rules_out(): each
  // class's immediate dominator and the cost of the classes it dominates
  // (itself included), over every edge, θ's second child included.
  void measure_best() {
    measured_generation_ = best_generation_;
    number_in_reverse_postorder();
    find_immediate_dominators();
    dominated_cost_.assign(order_.size(), 0);
    for (std::uint32_t v = static_cast<std::uint32_t>(order_.size()) - 1; v > 0; --v) {
      dominated_cost_[v] += cost_of(choice_[eqsat::index(order_[v])]);
      dominated_cost_[idom_[v]] += dominated_cost_[v];
    }
    number_dominator_tree();
  }

  // Numbers the program's classes in reverse postorder of a walk from a
  // virtual root (number 0) above the roots.
  void number_in_reverse_postorder() {
    order_.assign(1, kNone);
    postorder_.clear();
    walk_.clear();
    ++walk_generation_;
    const auto discover = [&](Id cls) {
      if (walked_[eqsat::index(cls)] == walk_generation_) return;
      walked_[eqsat::index(cls)] = walk_generation_;
      walk_.push_back(WalkFrame{cls, g_.node(choice_[eqsat::index(cls)]).children, 0});
    };
    for (Id r : roots_) {
      discover(g_.find(r));
      while (!walk_.empty()) {
        WalkFrame& f = walk_.back();
        ++visits_;
        if (f.next == f.children.size()) {
          postorder_.push_back(f.cls);
          walk_.pop_back();
          continue;
        }
        discover(g_.find(f.children[f.next++]));
      }
    }
    order_.insert(order_.end(), postorder_.rbegin(), postorder_.rend());
    for (std::uint32_t i = 1; i < order_.size(); ++i) best_number_[eqsat::index(order_[i])] = i;
  }

  // Immediate dominators by number (Cooper, Harvey and Kennedy's
  // iteration over the predecessors, the virtual root before each root).
  void find_immediate_dominators() {
    const auto number = [&](Id child) { return best_number_[eqsat::index(g_.find(child))]; };
    pred_start_.assign(order_.size() + 1, 0);
    for (Id r : roots_) ++pred_start_[number(r) + 1];
    for (std::uint32_t i = 1; i < order_.size(); ++i)
      for (Id child : g_.node(choice_[eqsat::index(order_[i])]).children)
        ++pred_start_[number(child) + 1];
    for (std::size_t i = 1; i < pred_start_.size(); ++i) pred_start_[i] += pred_start_[i - 1];
    preds_.resize(pred_start_.back());
    fill_.assign(pred_start_.begin(), pred_start_.end() - 1);
    for (Id r : roots_) preds_[fill_[number(r)]++] = 0;
    for (std::uint32_t i = 1; i < order_.size(); ++i)
      for (Id child : g_.node(choice_[eqsat::index(order_[i])]).children)
        preds_[fill_[number(child)]++] = i;
    visits_ += 2 * preds_.size();
    constexpr std::uint32_t kUnknown = std::numeric_limits<std::uint32_t>::max();
    idom_.assign(order_.size(), kUnknown);
    idom_[0] = 0;
    const auto intersect = [&](std::uint32_t a, std::uint32_t b) {
      while (a != b) {
        ++visits_;
        while (a > b) a = idom_[a];
        while (b > a) b = idom_[b];
      }
      return a;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (std::uint32_t v = 1; v < order_.size(); ++v) {
        std::uint32_t dom = kUnknown;
        for (std::uint32_t k = pred_start_[v]; k < pred_start_[v + 1]; ++k) {
          ++visits_;
          const std::uint32_t p = preds_[k];
          if (idom_[p] == kUnknown) continue;
          dom = dom == kUnknown ? p : intersect(p, dom);
        }
        if (dom != idom_[v]) {
          idom_[v] = dom;
          changed = true;
        }
      }
    }
  }

  // Each class's interval in a preorder of the dominator tree: `a`
  // dominates `b` where b's interval lies within a's.
  void number_dominator_tree() {
    const std::size_t n = order_.size();
    tree_start_.assign(n + 1, 0);
    for (std::uint32_t v = 1; v < n; ++v) ++tree_start_[idom_[v] + 1];
    for (std::size_t i = 1; i <= n; ++i) tree_start_[i] += tree_start_[i - 1];
    tree_children_.resize(n);
    fill_.assign(tree_start_.begin(), tree_start_.end() - 1);
    for (std::uint32_t v = 1; v < n; ++v) tree_children_[fill_[idom_[v]]++] = v;
    dom_enter_.assign(n, 0);
    dom_exit_.assign(n, 0);
    std::uint32_t clock = 0;
    tree_walk_.assign(1, {0, tree_start_[0]});
    dom_enter_[0] = clock++;
    while (!tree_walk_.empty()) {
      auto& [v, next] = tree_walk_.back();
      ++visits_;
      if (next == tree_start_[v + 1]) {
        dom_exit_[v] = clock++;
        tree_walk_.pop_back();
        continue;
      }
      const std::uint32_t child = tree_children_[next++];
      dom_enter_[child] = clock++;
      tree_walk_.push_back({child, tree_start_[child]});
    }
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
  bool pruning_;
  std::size_t visits_ = 0;
  std::uint32_t generation_ = 0;
  std::vector<std::uint32_t> stamp_;
  std::vector<char> state_;  // 1: on the DFS stack, 2: done
  std::vector<double> node_costs_;
  std::vector<Id> reached_;
  std::vector<Id> later_;     // evaluate()'s classes reached through θ's second child
  std::vector<Frame> stack_;  // evaluate()'s DFS

  // The program the search holds: its classes (marked with
  // best_generation_) and, as measure_best() left them, their numbers in
  // reverse postorder, the classes by number, their predecessors, immediate
  // dominators and dominated costs by number.
  struct WalkFrame {
    Id cls;
    std::span<const Id> children;
    std::size_t next;
  };
  static constexpr std::size_t kEvaluationsBeforeBound = 1;
  std::size_t evaluations_since_best_ = 0;
  std::uint32_t best_generation_ = 0;
  std::uint32_t measured_generation_ = 0;
  std::uint32_t walk_generation_ = 0;
  std::vector<std::uint32_t> best_mark_;
  std::vector<std::uint32_t> walked_;
  std::vector<std::uint32_t> best_number_;
  std::vector<Id> order_;
  std::vector<Id> postorder_;
  std::vector<WalkFrame> walk_;
  std::vector<std::uint32_t> pred_start_;
  std::vector<std::uint32_t> fill_;
  std::vector<std::uint32_t> preds_;
  std::vector<std::uint32_t> idom_;
  std::vector<double> dominated_cost_;
  std::vector<std::uint32_t> tree_start_;  // the dominator tree's children by number
  std::vector<std::uint32_t> tree_children_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> tree_walk_;
  std::vector<std::uint32_t> dom_enter_;
  std::vector<std::uint32_t> dom_exit_;
  std::vector<std::uint32_t> kept_;
  // joining_cost()'s walk, its classes (stamped join_generation_) and the
  // classes of the program it met.
  static constexpr std::size_t kJoiningWalk = 16;
  std::uint32_t join_generation_ = 0;
  std::vector<std::uint32_t> joined_;
  std::vector<Id> joining_walk_;
  std::vector<Id> met_;
  // improves_reading_loops_run()'s classes switched with their choices
  // before, and by class whether it has an eval (0 not looked at, 1 no, 2 yes).
  std::vector<std::pair<Id, Id>> switched_;
  std::vector<std::uint8_t> has_eval_;
};

}  // namespace

ImprovedChoices improve_choices(const EGraph& egraph, const eqsat::Extractor& greedy,
                                const PegRoots& peg_roots,
                                const std::unordered_set<std::uint32_t>* banned, std::size_t budget,
                                bool pruning) {
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
  Search search(egraph, flat, std::move(roots), banned, budget, pruning);
  out.out_of_budget = !search.run();
  out.work = search.visits();
  return out;
}

}  // namespace augur::peg
