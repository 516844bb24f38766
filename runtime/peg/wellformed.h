// Well-formedness of a PEG (Tate, Definition 6.1), plus what reversion needs
// of an extracted one:
//  1. every cycle passes through the second child of a θ;
//  2. a path from θ_ℓ, eval_ℓ or pass_ℓ to θ_ℓ' with ℓ' > ℓ goes through the
//     first child of an eval_ℓ' or pass_ℓ' (an inner loop is seen only
//     through its evals and pass);
//  3. every cycle through an eval_ℓ or pass_ℓ contains a θ_ℓ' with ℓ' < ℓ;
// and, for extraction (Tate, §10.3): every eval's second child is a pass of
// the same loop. (σ's linearity is reversion's to check: it emits effects in
// σ's order and fails on a σ that is not the current one, revert.h.)
#pragma once

#include <optional>
#include <string>

#include "runtime/peg/peg_graph.h"

namespace augur::peg {

// Empty when `graph` is well-formed; otherwise the first violation found,
// and in `blame` (if given) the e-node whose edge breaks the rule, for the
// caller to ban before extracting again.
std::string check_well_formed(const PegGraph& graph, std::optional<eqsat::Id>* blame = nullptr);

}  // namespace augur::peg
