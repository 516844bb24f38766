// Evaluating a loop whose inputs are all constants, inside the e-graph: the
// value eval_ℓ(x, pass_ℓ(c)) of a loop that reads no parameter and no memory
// is computed by running the loop (the θs' initial values, then their next
// values until c holds) with the IR's semantics (peg_fold.h). Inner loops are
// run the same way for each outer iteration. Bounded: it gives up past a few
// thousand iterations or node evaluations, or on anything it cannot fold.
#pragma once

#include <optional>

#include "runtime/eqsat/egraph.h"

namespace augur::peg {

// The constant eval_ℓ(x, pass) denotes, if it can be computed; `pass` is a
// class holding a pass_ℓ e-node.
std::optional<eqsat::Label> evaluate_loop(const eqsat::EGraph& egraph, eqsat::Id x, eqsat::Id pass,
                                          unsigned loop);

}  // namespace augur::peg
