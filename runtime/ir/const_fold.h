// Constant folding with the IR's semantics (docs/ir.md): wrapping integers,
// shift counts modulo the width, IEEE floats without fast-math, saturating
// float-to-integer casts. It folds nothing that could trap (a division or
// remainder by zero, MIN / -1) or that libms may compute differently (exp,
// log, pow), and no pointer other than null. One evaluator serves the first
// stage's smart constructors and the PEG optimizer's constant analysis, so
// the two can never disagree on a value.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "runtime/ir/ir.h"

namespace augur::ir {

// A folded value: its type and canonical bits (value.h).
struct Constant {
  Type type;
  std::uint64_t bits = 0;
};

// `op` applied to constants whose (common) operand type is `operand`; the
// result type is bool for comparisons and logical operators, else `operand`.
// Operands are canonical bits. nullopt: the operation must not fold.
std::optional<Constant> fold_unary(UnaryOp op, Type operand, std::uint64_t a);
std::optional<Constant> fold_binary(BinaryOp op, Type operand, std::uint64_t a, std::uint64_t b);
std::optional<Constant> fold_math(MathOp op, Type operand, std::span<const std::uint64_t> args);
std::optional<Constant> fold_cast(Type to, Type from, std::uint64_t bits);

}  // namespace augur::ir
