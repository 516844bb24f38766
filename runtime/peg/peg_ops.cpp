#include "runtime/peg/peg_ops.h"

#include <array>
#include <cstdio>
#include <unordered_map>

#include "runtime/ir/builder.h"
#include "runtime/ir/literal.h"
#include "runtime/ir/value.h"
#include "runtime/peg/extern_names.h"

namespace augur::peg {

namespace {

// clang-format off
constexpr std::array<std::string_view, kKindCount> kNames = {
  "const", "param", "shared", "gpu", "state0", "zero", "table",
  "neg", "bitnot", "not",
  "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr",
  "eq", "ne", "lt", "le", "gt", "ge",
  "cast",
  "sqrt", "fabs", "floor", "exp", "log", "pow", "min", "max", "fma",
  "tload",
  "callp",
  "phi", "theta", "eval", "pass", "succ", "peel",
  "load", "callr", "store", "calle", "atomic", "rv", "rs", "demand", "barrier",
};
// clang-format on

}  // namespace

std::string PegType::name() const {
  switch (code_) {
    case kState:
      return "state";
    case kTuple:
      return "tuple";
    case kIndex:
      return "index";
    default:
      return ir().name();
  }
}

bool commutative(eqsat::Op op) {
  const PegType type = type_slot(op);
  if (!type.is_ir()) return false;
  const ir::Type t = type.ir();
  switch (kind_of(op)) {
    case Kind::Add:
    case Kind::Mul:
      return t.is_integer() || t.is_float();
    case Kind::Eq:
    case Kind::Ne:
      return t.is_integer() || t.is_float() || t.is_bool();
    case Kind::BitAnd:
    case Kind::BitOr:
    case Kind::BitXor:
      return t.is_integer() || t.is_bool();
    case Kind::Min:
    case Kind::Max:
      return t.is_integer();
    default:
      return false;
  }
}

int arity(Kind kind) {
  switch (kind) {
    case Kind::Const:
    case Kind::Param:
    case Kind::Shared:
    case Kind::GpuIndex:
    case Kind::StateIn:
    case Kind::Zero:
    case Kind::Table:
      return 0;
    case Kind::Neg:
    case Kind::BitNot:
    case Kind::Not:
    case Kind::Cast:
    case Kind::Sqrt:
    case Kind::Fabs:
    case Kind::Floor:
    case Kind::Exp:
    case Kind::Log:
    case Kind::Pass:
    case Kind::Succ:
    case Kind::Peel:
    case Kind::ProjValue:
    case Kind::ProjState:
    case Kind::Barrier:
      return 1;
    case Kind::Phi:
    case Kind::Load:
    case Kind::Fma:
      return 3;
    case Kind::Store:
      return 4;
    case Kind::CallPure:
    case Kind::CallRead:
    case Kind::CallEffect:
    case Kind::Atomic:
      return -1;
    default:
      return 2;
  }
}

std::string_view name_of(Kind kind) {
  return kNames[static_cast<unsigned>(kind)];
}

std::optional<Kind> kind_named(std::string_view name) {
  // Hashed once: parsing the built-in rules asks for every operator of every
  // rule.
  static const std::unordered_map<std::string_view, Kind> by_name = [] {
    std::unordered_map<std::string_view, Kind> kinds;
    for (unsigned k = 0; k < kKindCount; ++k) kinds.emplace(kNames[k], static_cast<Kind>(k));
    return kinds;
  }();
  const auto it = by_name.find(name);
  if (it == by_name.end()) return std::nullopt;
  return it->second;
}

Kind kind_of(ir::UnaryOp op) {
  switch (op) {
    case ir::UnaryOp::Neg:
      return Kind::Neg;
    case ir::UnaryOp::BitNot:
      return Kind::BitNot;
    case ir::UnaryOp::Not:
      return Kind::Not;
  }
  return Kind::Neg;
}

Kind kind_of(ir::BinaryOp op) {
  static constexpr std::array<Kind, 16> kinds = {Kind::Add, Kind::Sub,    Kind::Mul,   Kind::Div,
                                                 Kind::Rem, Kind::BitAnd, Kind::BitOr, Kind::BitXor,
                                                 Kind::Shl, Kind::Shr,    Kind::Eq,    Kind::Ne,
                                                 Kind::Lt,  Kind::Le,     Kind::Gt,    Kind::Ge};
  return kinds.at(static_cast<unsigned>(op));
}

Kind kind_of(ir::MathOp op) {
  return static_cast<Kind>(static_cast<unsigned>(Kind::Sqrt) + static_cast<unsigned>(op));
}

std::optional<ir::UnaryOp> unary_op(Kind k) {
  switch (k) {
    case Kind::Neg:
      return ir::UnaryOp::Neg;
    case Kind::BitNot:
      return ir::UnaryOp::BitNot;
    case Kind::Not:
      return ir::UnaryOp::Not;
    default:
      return std::nullopt;
  }
}

std::optional<ir::BinaryOp> binary_op(Kind k) {
  if (k < Kind::Add || k > Kind::Ge) return std::nullopt;
  return static_cast<ir::BinaryOp>(static_cast<unsigned>(k) - static_cast<unsigned>(Kind::Add));
}

std::optional<ir::MathOp> math_op(Kind k) {
  if (k < Kind::Sqrt || k > Kind::Fma) return std::nullopt;
  return static_cast<ir::MathOp>(static_cast<unsigned>(k) - static_cast<unsigned>(Kind::Sqrt));
}

std::string label_text(eqsat::Label l) {
  const Kind k = kind_of(l.op);
  const PegType t = type_slot(l.op);
  if (k == Kind::Const) {
    if (!t.is_ir() || t.ir().is_void()) return "?";  // a placeholder's label
    const std::string literal = ir::format_constant(*ir::constant(t.ir(), l.payload));
    if (literal.find_first_of("()") == std::string::npos) return literal;
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(l.payload));
    return "const." + t.name() + "@" + hex;
  }
  if (k == Kind::CallPure || k == Kind::CallRead || k == Kind::CallEffect)
    return std::string(name_of(k)) + "." + t.name() + "@" + extern_name(l.payload);
  if (k == Kind::Cast)
    return "cast." + t.name() + "@" +
           PegType::from_code(static_cast<std::uint8_t>(l.payload)).name();
  std::string text = std::string(name_of(k)) + "." + t.name();
  const bool shows_payload = k == Kind::Param || k == Kind::Shared || k == Kind::GpuIndex ||
                             k == Kind::Atomic || k == Kind::Table || is_loop_op(k);
  if (shows_payload || l.payload != 0) text += "@" + std::to_string(l.payload);
  return text;
}

std::optional<std::int64_t> integer_value(PegType type, std::uint64_t payload) {
  if (!type.is_ir() || !type.ir().is_integer()) return std::nullopt;
  const ir::Type t = type.ir();
  return t.is_signed() ? ir::sign_extend(payload, t.bits()) : static_cast<std::int64_t>(payload);
}

}  // namespace augur::peg
