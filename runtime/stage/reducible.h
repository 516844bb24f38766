// Making an irreducible first-stage graph reducible, so that any control flow
// the first stage makes can be structured.
//
// A loop entered at more than one point (a strongly connected region with
// several entries: static state chosen under a dyn branch before a dyn loop,
// a DFA whose start state depends on the input) has no header that dominates
// it. Regions are found outermost first, and each is fixed in one of two ways:
//  - node splitting: the entry reached first stays the header; for every other
//    entry, the nodes of the region it reaches without passing the header are
//    copied, and the edges from outside into that entry go to the copy. It
//    duplicates code, so it is used only while the copies made in all stay
//    within a bound: extract_options::max_split_nodes, and at most as many
//    nodes as the graph had (so splitting at most doubles it);
//  - a dispatch loop, past the bound: a new dyn variable holds which entry is
//    taken; every edge into an entry sets it and goes to a chain of branches
//    on it (`if (state == 0) ... else if (state == 1) ...`) that becomes the
//    single header. Nothing is copied.
// The work is linear in the graph per region fixed, and iterative.
#pragma once

#include <cstdint>

#include "runtime/stage/graph.h"

namespace augur::stage {

struct ReducibleStats {
  std::uint32_t split = 0;       // regions fixed by node splitting
  std::uint32_t dispatched = 0;  // regions fixed by a dispatch loop
  std::uint64_t copied = 0;      // nodes node splitting copied
};

// Makes `graph` (all of whose edges are explored) reducible, copying at most
// `max_copies` nodes, and at most graph.size(), by node splitting in all.
void make_reducible(Graph& graph, std::uint64_t max_copies, ReducibleStats& stats);

}  // namespace augur::stage
