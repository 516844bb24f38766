// An e-graph set up for PEGs: constant folding with the IR's semantics
// (peg_fold.h) and loop invariance with the PEG's loop operators.
#pragma once

#include <memory>

#include "runtime/eqsat/constant_folding.h"
#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/loop_invariance.h"
#include "runtime/peg/loop_eval.h"

namespace augur::peg {

// θ_ℓ, eval_ℓ (index child 1) and pass_ℓ as LoopInvariance sees them.
eqsat::LoopRole loop_role(const eqsat::EGraph& g, const eqsat::ENodeView& node);

// A new e-graph with its analyses: constant folding first, then loop
// invariance, then the memo of constant loops given up on (loop_eval.h).
// Its commutative operators are peg::commutative's (so not with
// explanations).
std::unique_ptr<eqsat::EGraph> make_peg_egraph(eqsat::EGraphOptions options = {});

// The analyses of an e-graph make_peg_egraph made, by their places (rules'
// guards ask for them at every match).
inline const eqsat::ConstantFolding& constants(const eqsat::EGraph& g) {
  return static_cast<const eqsat::ConstantFolding&>(g.analysis_at(0));
}
inline const eqsat::LoopInvariance& invariance(const eqsat::EGraph& g) {
  return static_cast<const eqsat::LoopInvariance&>(g.analysis_at(1));
}
inline const LoopEvalMemo& loop_eval_memo(const eqsat::EGraph& g) {
  return static_cast<const LoopEvalMemo&>(g.analysis_at(2));
}

}  // namespace augur::peg
