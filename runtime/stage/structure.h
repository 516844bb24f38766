// From the graph of an exploration to a structured IR function body.
//
// The graph is a reducible CFG of single-statement nodes. Loops are the
// natural loops of its back-edges (a target that dominates its source); each
// becomes `while (true) { ... }` whose exits are `break` (to the loop's
// follow, the node where its non-returning exits meet) and whose back-edges
// are the end of the body or `continue`. A branch becomes if/else; the arms
// stop at the branch's join (its last merge child in the dominator tree, so
// the common continuation is emitted once, after the if). Arms that leave by
// return, break or continue need no join. Where control flow has no nested
// shape (static state set under a dyn branch can merge paths across
// structure), the parts that do not nest are emitted once per path
// (finalize.h repairs the declarations this duplicates).
//
// The result uses the graph's variables; tidy.h makes it readable and
// finalize.h names and renumbers them.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/ir/ir.h"
#include "runtime/stage/graph.h"

namespace augur::stage {

struct StructureOptions {
  std::string name;
  ir::Type result;
  std::uint64_t max_statements = 0;  // a staging_error past it
  bool kernel = false;               // a GPU entry point
};

ir::Function structure(const Graph& graph, const StructureOptions& options);

}  // namespace augur::stage
