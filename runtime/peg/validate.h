// Translation validation (Tate, ch. 12): the optimized function's PEG is
// added to the e-graph that holds the original's (saturated) PEG; bisimilar
// loops are merged and the rules run again under the budget. The result is
// proved equal when its returned value and its final σ land in the
// original's e-classes.
#pragma once

#include <span>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/runner.h"
#include "runtime/ir/ir.h"
#include "runtime/peg/to_peg.h"

namespace augur::peg {

// `outputs`: a region's output variables (optimize_function.h).
bool validate(eqsat::EGraph& egraph, const PegFunction& original, const ir::Function& optimized,
              const eqsat::Limits& limits, std::span<const ir::VarId> outputs = {});

}  // namespace augur::peg
