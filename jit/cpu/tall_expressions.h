// Tall expressions cut into statements before code generation.
//
// One statement's expression becomes straight-line LLVM code in one block,
// which the split plan (split_plan.h) cannot cut, and LLVM is superlinear on
// some tall ones: at O0 its constant pool is searched linearly for each
// distinct floating-point constant, at O2 the SLP vectorizer tries a block's
// compares together. So the operands of a statement with more than
// `max_nodes` expression nodes are bound, in pieces of about a quarter of
// that, to new variables declared just before it; the split plan then sees
// statements it can cut.
//
// Binding evaluates a piece before the statement instead of in it, which
// the program cannot tell apart when: the statement calls nothing and has no
// atomics (so its loads read the same memory either way), the piece is
// evaluated by the statement anyway (not in an operand of `&&`, `||` or `?:`
// that may be skipped, which code generation evaluates only when needed:
// speculation.h), and the statement evaluates its expression once (not the
// condition of a `while` or `for`). Kernels are left whole, as the split plan
// leaves them. No recursion: expressions may be as tall as the first stage
// makes them.
#pragma once

#include <cstddef>
#include <optional>

#include "runtime/ir/ir.h"

namespace augur::cpu {

// `module` with the tall expressions of its functions cut, or nullopt if it
// cut none (or max_nodes is 0).
std::optional<ir::Module> cut_tall_expressions(const ir::Module& module, std::size_t max_nodes);

}  // namespace augur::cpu
