// Structured control-flow facts the verifier and later stages share.
#pragma once

#include "runtime/ir/ir.h"

namespace augur::ir {

// Whether control can reach the end of `block` (fall through it). A return,
// break or continue ends a path; `while (true)` — a condition that is the
// constant true — ends it too unless a reachable break leaves that loop.
bool can_fall_through(const Block& block);

// A condition written as the constant `true`.
bool is_constant_true(const ExprPtr& cond);

}  // namespace augur::ir
