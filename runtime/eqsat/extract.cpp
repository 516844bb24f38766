#include "runtime/eqsat/extract.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <tuple>

#include "jit/error.h"
#include "runtime/eqsat/loop_invariance.h"

namespace augur::eqsat {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}

CostFunction ast_size() {
  return [](const EGraph&, const ENodeView&, std::span<const double> children) {
    double c = 1;
    for (double x : children) c += x;
    return c;
  };
}

CostFunction ast_depth() {
  return [](const EGraph&, const ENodeView&, std::span<const double> children) {
    double c = 0;
    for (double x : children) c = std::max(c, x);
    return c + 1;
  };
}

CostFunction sum_cost(NodeCost node_cost) {
  return [node_cost = std::move(node_cost)](const EGraph& g, const ENodeView& n,
                                            std::span<const double> children) {
    double c = node_cost(g, n);
    for (double x : children) c += x;
    return c;
  };
}

CostFunction loop_depth_cost(NodeCost node_cost, double base) {
  return [node_cost = std::move(node_cost), base](const EGraph& g, const ENodeView& n,
                                                  std::span<const double> children) {
    const unsigned depth = g.analysis<LoopInvariance>().node_depth(n);
    double c = node_cost(g, n) * std::pow(base, depth);
    for (double x : children) c += x;
    return c;
  };
}

void CycleEdges::allow(Op op, std::uint32_t child) {
  edges_.emplace_back(op, child);
  if (child >= 64) return;
  if (op >= by_op_.size()) by_op_.resize(op + 1, 0);
  by_op_[op] |= std::uint64_t{1} << child;
}

bool CycleEdges::allows_far(Op op, std::uint32_t child) const {
  return std::find(edges_.begin(), edges_.end(), std::pair{op, child}) != edges_.end();
}

Extractor::Extractor(const EGraph& egraph, CostFunction cost_of, CycleEdges cycles)
    : egraph_(egraph),
      cycles_(std::move(cycles)),
      cost_(egraph.id_count(), kInfinity),
      choice_(egraph.id_count()) {
  if (!egraph.clean()) throw jit::error("extract: the e-graph must be rebuilt first");
  // Every live e-node, and per class the e-nodes waiting on it (CSR arrays).
  std::vector<Id> nodes;
  std::vector<std::uint32_t> waiting(egraph.id_count() + 1, 0);
  for (Id c : egraph.classes()) {
    for (Id n : egraph.nodes_of(c)) {
      nodes.push_back(n);
      const ENodeView v = egraph.node(n);
      for (std::uint32_t i = 0; i < v.children.size(); ++i)
        if (!cycles_.allows(v.label.op, i)) ++waiting[index(v.children[i]) + 1];
    }
  }
  for (std::size_t i = 1; i < waiting.size(); ++i) waiting[i] += waiting[i - 1];
  std::vector<std::uint32_t> waiters(waiting.back());
  std::vector<std::uint32_t> fill(waiting.begin(), waiting.end() - 1);
  std::vector<std::uint32_t> remaining(nodes.size(), 0);

  using Entry = std::tuple<double, Id, Id, std::uint32_t>;  // cost, class, e-node, position
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  std::vector<double> child_costs;
  const auto evaluate = [&](std::uint32_t k) {
    ++work_;
    const ENodeView v = egraph.node(nodes[k]);
    child_costs.clear();
    for (std::uint32_t i = 0; i < v.children.size(); ++i)
      child_costs.push_back(cycles_.allows(v.label.op, i) ? 0 : cost_[index(v.children[i])]);
    const double c = cost_of(egraph, v, child_costs);
    if (std::isnan(c) || c < 0)
      throw jit::error("extract: the cost function returned " + std::to_string(c));
    if (c < kInfinity) ready.emplace(c, egraph.find(v.id), v.id, k);
  };
  for (std::uint32_t k = 0; k < nodes.size(); ++k) {
    const ENodeView v = egraph.node(nodes[k]);
    for (std::uint32_t i = 0; i < v.children.size(); ++i) {
      if (cycles_.allows(v.label.op, i)) continue;
      waiters[fill[index(v.children[i])]++] = k;
      ++remaining[k];
    }
    if (remaining[k] == 0) evaluate(k);
  }
  while (!ready.empty()) {
    const auto [c, cls, node, k] = ready.top();
    ready.pop();
    ++work_;
    if (cost_[index(cls)] < kInfinity) continue;  // settled
    cost_[index(cls)] = c;
    choice_[index(cls)] = node;
    for (std::uint32_t w = waiting[index(cls)]; w < waiting[index(cls) + 1]; ++w)
      if (--remaining[waiters[w]] == 0) evaluate(waiters[w]);
  }
}

std::optional<double> Extractor::cost(Id cls) const {
  const Id c_id = egraph_.find(cls);
  if (index(c_id) >= cost_.size()) return std::nullopt;  // added after extraction
  const double c = cost_[index(c_id)];
  if (c == kInfinity) return std::nullopt;
  return c;
}

Id Extractor::choice(Id cls) const {
  const Id c = egraph_.find(cls);
  if (index(c) >= cost_.size() || cost_[index(c)] == kInfinity)
    throw jit::error("extract: e-class " + std::to_string(index(c)) +
                     " has no finite-cost program");
  return choice_[index(c)];
}

Term Extractor::extract(std::span<const Id> roots) const {
  // Post-order over the chosen e-nodes' ordinary edges puts children first;
  // the targets of cycle edges are visited afterwards, from a queue.
  constexpr std::uint32_t kUnvisited = ~0u;
  constexpr std::uint32_t kOpen = ~0u - 1;
  std::vector<std::uint32_t> position(egraph_.id_count(), kUnvisited);
  std::vector<Id> order;
  std::vector<Id> later;
  const auto visit = [&](Id start) {
    if (position[index(start)] != kUnvisited) return;
    std::vector<std::pair<Id, std::uint32_t>> stack{{start, 0}};
    position[index(start)] = kOpen;
    while (!stack.empty()) {
      auto& [cls, next] = stack.back();
      const ENodeView v = egraph_.node(choice(cls));
      if (next == v.children.size()) {
        position[index(cls)] = static_cast<std::uint32_t>(order.size());
        order.push_back(cls);
        stack.pop_back();
        continue;
      }
      const std::uint32_t i = next++;
      const Id child = v.children[i];
      if (cycles_.allows(v.label.op, i)) {
        later.push_back(child);
      } else if (position[index(child)] == kOpen) {
        throw jit::error("extract: the chosen program has a cycle outside the allowed edges");
      } else if (position[index(child)] == kUnvisited) {
        position[index(child)] = kOpen;
        stack.push_back({child, 0});
      }
    }
  };
  for (Id r : roots) visit(egraph_.find(r));
  while (!later.empty()) {
    const Id c = later.back();
    later.pop_back();
    visit(c);
  }
  Term term;
  for (Id cls : order) {
    const ENodeView v = egraph_.node(choice(cls));
    Term::Node n{v.label, {}};
    for (Id child : v.children) n.children.push_back(position[index(child)]);
    term.nodes.push_back(std::move(n));
  }
  for (Id r : roots) term.roots.push_back(position[index(egraph_.find(r))]);
  return term;
}

}  // namespace augur::eqsat
