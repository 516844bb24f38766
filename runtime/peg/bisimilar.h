// Merging e-classes whose PEGs unfold to the same infinite terms, where
// classes may hold several e-nodes (translation validation: a program put
// back into a saturated e-graph). It relates candidate pairs and removes
// unsupported ones, so it costs O(pairs × rounds): for a fresh translation,
// whose classes hold one e-node each, eqsat::merge_bisimilar_classes
// (runtime/eqsat/bisimulation.h) does the same in O(e-nodes × log classes).
//
// Hash-consing and congruence find equal acyclic terms, but two θ loops built
// separately (two source loops with the same bounds, or a program and its
// optimized version) are cycles that congruence never relates. Classes a and
// b are bisimilar when some e-node of a and some e-node of b have the same
// label and pairwise bisimilar (or equal) children; the largest such relation
// is computed by removing unsupported pairs until none is left, and every
// remaining pair is merged. For a well-formed PEG this is sound: both unfold
// to the same term, whose value is unique.
#pragma once

#include <cstddef>
#include <span>

#include "runtime/eqsat/egraph.h"

namespace augur::peg {

// Pairs each of `seeds` with the classes it is bisimilar to (other seeds
// only, when `seeds_only`) and merges them; the e-graph must be clean and is
// rebuilt. Returns the number of merges.
std::size_t merge_bisimilar(eqsat::EGraph& egraph, std::span<const eqsat::Id> seeds,
                            bool seeds_only);

}  // namespace augur::peg
