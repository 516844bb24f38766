// Readability rewrites of structured IR, each an exact equivalence:
//  - `while (true) { if (!c) break; B }`  ->  `while (c) { B }`
//  - `if (c) { while (true) { B; if (!c) break; } }`  ->  `while (c) { B }`
//    (the test before the loop and after each iteration is the while's test)
//  - `init; while (c) { B; step }`  ->  `for (init; c; step) { B }` when init
//    sets the variable from other values, c and step use it, B has no continue
//    of its own, a declared variable is not used after the loop, and the step
//    shares no subexpression (let_insertion.h could not bind it there)
//  - `if (c) { ...; jump } else { E }`  ->  `if (c) { ...; jump } E`
//  - `if (c) {} else { E }`  ->  `if (!c) { E }`; empty ifs on pure conditions go
//  - a `continue` ending a loop body, a `return;` ending a void function go
// Negations of integer comparisons are flipped (`!(a < b)` is `a >= b`).
#pragma once

#include "runtime/ir/ir.h"

namespace augur::stage {

void tidy(ir::Function& fn);

// !e, simplified where that is exact.
ir::ExprPtr negate(const ir::ExprPtr& e);

}  // namespace augur::stage
