// Optimizing a function too large for one e-graph, region by region.
//
// A region is a run of consecutive statements of one block, of at most
// PegOptions::region_nodes IR nodes, that control leaves only by falling off
// its end (no return, no break or continue, of one loop or several, to a loop
// outside it), nested at most kMaxRegionNesting deep, without GPU barriers or
// shared arrays. Each region becomes a void function whose parameters are the
// variables it uses from outside and whose outputs are those it assigns (a
// declaration at the top of the run is hoisted before it, so the variable is an
// output); it goes through optimize_function under budgets proportional to its
// own size, and the optimized body replaces the run. A statement too large for
// a region stays, and the blocks it holds are split in turn; a region the
// optimizer keeps stays as it was.
//
// So every part of a function but the conditions of its largest statements is
// optimized, each e-graph is bounded, and the work is linear in the function's
// size. The price: rewrites across region boundaries (fusing two loops of
// different regions) are not found.
#pragma once

#include "runtime/ir/ir.h"
#include "runtime/peg/optimize.h"

namespace augur::peg {

// Statement nesting within one region: deeper statements are split instead,
// so the optimizer's recursion over a region stays shallow.
inline constexpr unsigned kMaxRegionNesting = 48;

// Whether `function` is optimized whole (at most options.region_nodes IR nodes).
bool fits_one_region(const ir::Function& function, const PegOptions& options);

// `function` with each of its regions optimized; `report` sums the regions'
// phases and counts them.
ir::Function optimize_regions(const ir::Module& module, const ir::Function& function,
                              const PegOptions& options, PegFunctionReport& report, bool dump);

}  // namespace augur::peg
