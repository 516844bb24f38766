// Lowering a structured IR function to the interpreter's register code.
#pragma once

#include <cstddef>

#include "runtime/ir/interp.h"
#include "runtime/ir/interp_code.h"
#include "runtime/ir/ir.h"

namespace augur::ir::interp {

// Lowers `function`, resolving its externs in options.externs. It checks only
// what lowering needs (variables exist, loop control is inside loops, kernel
// constructs are in kernels) and throws jit::verify_error naming the statement
// otherwise; an unbound extern throws jit::error.
// Expressions and statement nesting deeper than kMaxLoweringDepth (lowering
// recurses once per level, on any thread's stack) are a jit::error.
inline constexpr std::size_t kMaxLoweringDepth = 1000;

Program lower(const Function& function, const InterpOptions& options);

}  // namespace augur::ir::interp
