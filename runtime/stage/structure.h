// From the graph of an exploration to a structured IR function body.
//
// An irreducible graph is made reducible first (reducible.h). Loops are the
// natural loops of its back-edges (a target that dominates its source); each
// becomes `while (true) { ... }` whose exits are `break` (to the loop's
// follow, the node where its non-returning exits meet) and whose back-edges
// are the end of the body or `continue`; a jump to the follow or header of a
// loop further out is `break N` / `continue N`. A branch becomes if/else; the
// arms stop at the branch's join (its merge child in the dominator tree, so
// the common continuation is emitted once, after the if). Where the arms meet
// at several merge children, each is emitted once after a block (a loop that
// runs once) that the paths reaching it leave by `break N`. Arms that leave by
// return, break or continue need no join. What the dominator tree does not
// nest (static state set under a dyn branch can merge paths across
// structure: code reached from both arms that neither arm's branch
// dominates) is emitted once per path (finalize.h repairs the declarations
// this duplicates).
//
// The result uses the graph's variables; tidy.h makes it readable and
// finalize.h names and renumbers them.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/ir/ir.h"
#include "runtime/stage/graph.h"
#include "runtime/stage/reducible.h"

namespace augur::stage {

struct StructureOptions {
  std::string name;
  ir::Type result;
  std::uint64_t max_statements = 0;   // a staging_error past it
  bool kernel = false;                // a GPU entry point
  std::uint64_t max_split_nodes = 0;  // nodes node splitting may copy (reducible.h)
};

// An irreducible graph is made reducible first (reducible.h), on a copy;
// `stats` says how.
ir::Function structure(const Graph& graph, const StructureOptions& options, ReducibleStats& stats);

}  // namespace augur::stage
