// The coarsest bisimulation of a deterministic labelled graph, by partition
// refinement (Valmari & Lehtinen's O(m log n) algorithm for DFAs with partial
// transition functions, "Efficient minimization of DFAs with partial
// transition functions", 2008), and its use on an e-graph.
//
// Hash-consing and congruence find equal acyclic terms, but two cycles built
// separately (two θ loops with the same bounds) are never related by them.
// Two states are bisimilar when they start in the same initial block and, for
// every label, either both have no transition or both move to bisimilar
// states; in an e-graph whose classes hold one e-node each (a translation
// before any rewrite), a class is a state, its e-node's label and arity its
// initial block and its i-th child its transition labelled i. Bisimilar
// classes unfold to the same infinite term, so merging them is sound.
//
// Refinement never compares two states: each round splits blocks by the
// predecessors of a smaller block, so the work is O(transitions × log states)
// whatever the graph's shape (many similar sibling loops, deep nests).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/eqsat/egraph.h"

namespace augur::eqsat {

struct Transition {
  std::uint32_t tail = 0;
  std::uint32_t label = 0;
  std::uint32_t head = 0;
};

// The block of each state in the coarsest bisimulation that refines
// `initial` (a block number per state, any numbering). The transitions must
// be deterministic: at most one per (tail, label). Blocks are numbered from 0
// in no particular order.
std::vector<std::uint32_t> coarsest_bisimulation(std::span<const std::uint32_t> initial,
                                                 std::span<const Transition> transitions);

// Merges every set of bisimilar classes of a clean e-graph and rebuilds it.
// Only classes holding exactly one e-node take part; any other class is
// related to no class but itself. Returns the number of merges.
std::size_t merge_bisimilar_classes(EGraph& egraph);

}  // namespace augur::eqsat
