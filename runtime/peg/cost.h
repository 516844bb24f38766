// The extraction cost model for PEGs (Tate, §10.3): an e-node costs its basic
// cost × 20^(deepest loop it varies in), plus its children. `pass` is
// expensive, so fewer loops win; operators reversion cannot turn into code
// (Z, S, peel, and φ over iteration counts) cost +infinity, so every chosen
// eval sits over a pass; banned e-nodes (those that made a previous choice
// impossible to revert, e.g. a σ used twice) cost +infinity too. θ-free
// cycles are excluded by the extractor itself (only θ's second child may
// close a cycle).
#pragma once

#include <unordered_set>

#include "runtime/eqsat/extract.h"
#include "runtime/peg/peg_ops.h"

namespace augur::peg {

// The cost of one e-node of this label, before the loop-depth factor.
double basic_cost(eqsat::Label label);

// One e-node's cost: basic × 20^(deepest loop it varies in); +infinity if banned.
double node_cost(const eqsat::EGraph& egraph, const eqsat::ENodeView& node,
                 const std::unordered_set<std::uint32_t>* banned = nullptr);

// Tate's cost with the bans: node_cost plus the children's costs.
eqsat::CostFunction peg_cost(const std::unordered_set<std::uint32_t>* banned = nullptr);

// θ's second child, the only edge a PEG may cycle through.
eqsat::CycleEdges peg_cycle_edges();

}  // namespace augur::peg
