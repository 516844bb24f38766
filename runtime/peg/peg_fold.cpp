#include "runtime/peg/peg_fold.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "runtime/ir/const_fold.h"
#include "runtime/peg/peg_ops.h"

namespace augur::peg {

namespace {

using eqsat::Label;
using u64 = std::uint64_t;

Label constant(const ir::Constant& c) {
  return label(Kind::Const, PegType(c.type), c.bits);
}

// The IR operator a value kind spells (ir/const_fold.h folds those).
std::optional<ir::Constant> fold_value(Kind k, ir::Type t, std::span<const u64> c) {
  switch (k) {
    case Kind::Neg:
      return ir::fold_unary(ir::UnaryOp::Neg, t, c[0]);
    case Kind::BitNot:
      return ir::fold_unary(ir::UnaryOp::BitNot, t, c[0]);
    case Kind::Not:
      return ir::fold_unary(ir::UnaryOp::Not, t, c[0]);
    case Kind::Sqrt:
      return ir::fold_math(ir::MathOp::Sqrt, t, c);
    case Kind::Fabs:
      return ir::fold_math(ir::MathOp::Fabs, t, c);
    case Kind::Floor:
      return ir::fold_math(ir::MathOp::Floor, t, c);
    case Kind::Min:
      return ir::fold_math(ir::MathOp::Min, t, c);
    case Kind::Max:
      return ir::fold_math(ir::MathOp::Max, t, c);
    case Kind::Fma:
      return ir::fold_math(ir::MathOp::Fma, t, c);
    default:
      break;
  }
  // Add .. Ge are in BinaryOp's order.
  static_assert(static_cast<int>(Kind::Ge) - static_cast<int>(Kind::Add) ==
                static_cast<int>(ir::BinaryOp::Ge) - static_cast<int>(ir::BinaryOp::Add));
  if (k >= Kind::Add && k <= Kind::Ge && c.size() == 2) {
    const auto op = static_cast<ir::BinaryOp>(static_cast<int>(k) - static_cast<int>(Kind::Add));
    return ir::fold_binary(op, t, c[0], c[1]);
  }
  return std::nullopt;
}

bool is_nan(PegType type, u64 bits) {
  if (!type.is_ir()) return false;
  if (type.ir() == ir::Type::f32()) return std::isnan(ir::Value{bits}.as<float>());
  return type.ir() == ir::Type::f64() && std::isnan(ir::Value{bits}.as<double>());
}

}  // namespace

bool same_constant(Label a, Label b) {
  if (a == b) return true;
  return a.op == b.op && kind_of(a.op) == Kind::Const && is_nan(type_slot(a.op), a.payload) &&
         is_nan(type_slot(b.op), b.payload);
}

std::optional<Label> fold(Label node, std::span<const Label> children) {
  const Kind k = kind_of(node.op);
  if (k == Kind::Const) return node;
  for (const Label& c : children)
    if (kind_of(c.op) != Kind::Const) return std::nullopt;
  const PegType slot = type_slot(node.op);
  if (k == Kind::Phi) return children[0].payload != 0 ? children[1] : children[2];
  if (!slot.is_ir() || children.empty()) return std::nullopt;
  const ir::Type t = slot.ir();
  std::optional<ir::Constant> folded;
  if (k == Kind::Cast) {
    const PegType from = PegType::from_code(static_cast<std::uint8_t>(node.payload));
    if (!from.is_ir()) return std::nullopt;
    folded = ir::fold_cast(t, from.ir(), children[0].payload);
  } else {
    if (!is_pure_value_op(k) || k == Kind::CallPure) return std::nullopt;
    std::array<u64, 3> values{};
    if (children.size() > values.size()) return std::nullopt;
    for (std::size_t i = 0; i < children.size(); ++i) values[i] = children[i].payload;
    folded = fold_value(k, t, std::span<const u64>(values.data(), children.size()));
  }
  if (!folded) return std::nullopt;
  return constant(*folded);
}

}  // namespace augur::peg
