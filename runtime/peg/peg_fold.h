// Constant folding with the IR's semantics (docs/ir.md): wrapping integers,
// shift counts modulo the width, IEEE floats without fast-math, saturating
// float-to-integer casts. It folds nothing that could trap (a division by
// zero, MIN / -1) or that the platform may compute differently (exp, log,
// pow), and no pointer other than null. The arithmetic is ir/const_fold.h's,
// which the first stage's smart constructors fold with too.
#pragma once

#include <optional>
#include <span>

#include "runtime/eqsat/id.h"

namespace augur::peg {

// The constant an e-node with label `node` denotes when its children are the
// constants `children` (ConstantFolding's fold function); a Const leaf folds
// to itself.
std::optional<eqsat::Label> fold(eqsat::Label node, std::span<const eqsat::Label> children);

// Whether two constants are one value: equal, or two NaNs of one type. IEEE
// leaves the sign and payload of an operation's NaN open (x * -1.0 and -x,
// a + b and b + a, may differ in them), so rules that hold put NaNs that
// differ so in one class (ConstantFolding::Options::same).
bool same_constant(eqsat::Label a, eqsat::Label b);

}  // namespace augur::peg
