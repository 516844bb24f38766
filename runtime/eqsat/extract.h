// Extraction: choosing one e-node per class to get the cheapest program.
//
// Greedy bottom-up (egg's Extractor), computed in Knuth's generalization of
// Dijkstra's algorithm: a class is settled when its cheapest e-node whose
// children are all settled is the cheapest thing left. So the choice is
// optimal for costs that are at least their children's (a sum, a max), and
// the chosen e-nodes never form a cycle, except through the edges the client
// allows: for PEGs, a θ's second child. Such a "cycle edge" does not have to
// be settled first and its child counts 0 in the parent's cost; it is
// extracted after. Ties go to the smaller class id, then the smaller e-node id.
//
// The e-graph must be clean, and stay unchanged while the Extractor is used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/term.h"

namespace augur::eqsat {

// The cost of an e-node given its children's costs. It must be finite and
// not negative; +infinity means "never choose this e-node".
using CostFunction =
    std::function<double(const EGraph&, const ENodeView&, std::span<const double> child_costs)>;
// The cost of an e-node by itself.
using NodeCost = std::function<double(const EGraph&, const ENodeView&)>;

// egg's AstSize: 1 per e-node of the tree.
CostFunction ast_size();
// egg's AstDepth.
CostFunction ast_depth();
// node_cost of the e-node plus its children's costs.
CostFunction sum_cost(NodeCost node_cost);
// Tate's cost for PEGs: node_cost × base^depth, where depth is the deepest
// loop the e-node varies in (LoopInvariance), plus the children's costs.
CostFunction loop_depth_cost(NodeCost node_cost, double base = 20);

// The (operator, child index) edges a chosen program may cycle through.
class CycleEdges {
 public:
  CycleEdges() = default;
  CycleEdges(std::initializer_list<std::pair<Op, std::uint32_t>> edges) {
    for (const auto& [op, child] : edges) allow(op, child);
  }
  void allow(Op op, std::uint32_t child);
  // Asked for every child of every e-node extracted: a bit per operator and
  // child (below 64; the list beyond).
  bool allows(Op op, std::uint32_t child) const {
    if (child < 64) return op < by_op_.size() && ((by_op_[op] >> child) & 1) != 0;
    return allows_far(op, child);
  }
  bool empty() const { return edges_.empty(); }

 private:
  bool allows_far(Op op, std::uint32_t child) const;
  std::vector<std::pair<Op, std::uint32_t>> edges_;
  std::vector<std::uint64_t> by_op_;  // bit c of by_op_[op]: (op, c) is allowed
};

class Extractor {
 public:
  Extractor(const EGraph& egraph, CostFunction cost, CycleEdges cycles = {});

  // The best cost of a class; nullopt when it has no finite-cost program.
  std::optional<double> cost(Id cls) const;
  // The e-node chosen for a class (it must have a cost).
  Id choice(Id cls) const;

  // The chosen program for the roots, shared subterms once; roots[i] of the
  // term is the i-th root. Throws jit::error if a root cannot be extracted.
  Term extract(std::span<const Id> roots) const;
  Term extract(Id root) const { return extract(std::span<const Id>(&root, 1)); }

  // The steps the choice took: e-nodes costed plus classes settled (linear
  // in the e-graph's size, up to the priority queue's logarithm).
  std::size_t work() const { return work_; }

 private:
  const EGraph& egraph_;
  CycleEdges cycles_;
  std::vector<double> cost_;  // by class id
  std::vector<Id> choice_;    // by class id
  std::size_t work_ = 0;
};

}  // namespace augur::eqsat
