// Operator precedence of the IR text form (docs/ir.md): shared by the printer,
// which adds the minimal parentheses, and the parser.
#pragma once

#include <optional>
#include <string_view>

#include "runtime/ir/ir.h"

namespace augur::ir {

// Levels from the loosest binding to the tightest. Binary operators are
// left-associative; `?:` is right-associative.
inline constexpr int kSelect = 1;
inline constexpr int kLoosest = kSelect;
inline constexpr int kLoosestBinary = 2;  // ||
inline constexpr int kPrefix = 12;        // - ~ !
inline constexpr int kPostfix = 13;       // p[i]
inline constexpr int kPrimary = 14;

constexpr int level_of(BinaryOp op) {
  switch (op) {
    case BinaryOp::Or:
      return 2;
    case BinaryOp::And:
      return 3;
    case BinaryOp::BitOr:
      return 4;
    case BinaryOp::BitXor:
      return 5;
    case BinaryOp::BitAnd:
      return 6;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      return 7;
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      return 8;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      return 9;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 10;
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem:
      return 11;
  }
  return kPrimary;
}

inline int precedence(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Select:
      return kSelect;
    case ExprKind::Binary:
      return level_of(e.binary_op());
    case ExprKind::Unary:
      return kPrefix;
    case ExprKind::Load:
      return kPostfix;
    default:
      return kPrimary;
  }
}

// The binary operator spelled `punct`, if any.
inline std::optional<BinaryOp> binary_op_named(std::string_view punct) {
  for (int i = 0; i <= static_cast<int>(BinaryOp::Or); ++i) {
    const auto op = static_cast<BinaryOp>(i);
    if (name_of(op) == punct) return op;
  }
  return std::nullopt;
}

}  // namespace augur::ir
