#include "runtime/peg/peg_fold.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "runtime/ir/saturate.h"
#include "runtime/ir/value.h"
#include "runtime/peg/peg_ops.h"

namespace augur::peg {

namespace {

using eqsat::Label;
using u64 = std::uint64_t;
using i64 = std::int64_t;

Label constant(ir::Type type, u64 bits) {
  return label(Kind::Const, PegType(type), ir::canonical_bits(type, bits));
}

i64 signed_value(ir::Type t, u64 bits) {
  return ir::sign_extend(bits, t.bits());
}

template <class F>
F as_float(u64 bits) {
  if constexpr (sizeof(F) == 4) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  } else {
    return std::bit_cast<double>(bits);
  }
}

template <class F>
u64 float_bits(F value) {
  if constexpr (sizeof(F) == 4) {
    return std::bit_cast<std::uint32_t>(value);
  } else {
    return std::bit_cast<u64>(value);
  }
}

template <class F>
u64 float_to_int(ir::Type to, F x) {
  switch (to.scalar()) {
    case ir::Scalar::I8:
      return static_cast<u64>(ir::saturate<std::int8_t>(x));
    case ir::Scalar::I16:
      return static_cast<u64>(ir::saturate<std::int16_t>(x));
    case ir::Scalar::I32:
      return static_cast<u64>(ir::saturate<std::int32_t>(x));
    case ir::Scalar::I64:
      return static_cast<u64>(ir::saturate<std::int64_t>(x));
    case ir::Scalar::U8:
      return ir::saturate<std::uint8_t>(x);
    case ir::Scalar::U16:
      return ir::saturate<std::uint16_t>(x);
    case ir::Scalar::U32:
      return ir::saturate<std::uint32_t>(x);
    default:
      return ir::saturate<std::uint64_t>(x);
  }
}

template <class F>
std::optional<Label> fold_float(Kind k, ir::Type t, std::span<const Label> c) {
  const F a = as_float<F>(c[0].payload);
  const F b = c.size() > 1 ? as_float<F>(c[1].payload) : F{0};
  const auto out = [&](F v) { return constant(t, float_bits(v)); };
  const auto truth = [](bool v) { return constant(ir::Type::bool_(), v); };
  switch (k) {
    case Kind::Neg:
      return out(-a);
    case Kind::Add:
      return out(a + b);
    case Kind::Sub:
      return out(a - b);
    case Kind::Mul:
      return out(a * b);
    case Kind::Div:
      return out(a / b);
    case Kind::Rem:
      return out(std::fmod(a, b));
    case Kind::Eq:
      return truth(a == b);
    case Kind::Ne:
      return truth(a != b);
    case Kind::Lt:
      return truth(a < b);
    case Kind::Le:
      return truth(a <= b);
    case Kind::Gt:
      return truth(a > b);
    case Kind::Ge:
      return truth(a >= b);
    case Kind::Sqrt:
      return out(std::sqrt(a));
    case Kind::Fabs:
      return out(std::fabs(a));
    case Kind::Floor:
      return out(std::floor(a));
    case Kind::Min:
    case Kind::Max:
      // The sign of min/max(+0, -0) is not pinned down (docs/ir.md: IEEE
      // minNum/maxNum; implementations differ): leave it to run time.
      if (a == 0 && b == 0) return std::nullopt;
      return out(k == Kind::Min ? std::fmin(a, b) : std::fmax(a, b));
    case Kind::Fma:
      return out(std::fma(a, b, as_float<F>(c[2].payload)));
    default:
      return std::nullopt;
  }
}

std::optional<Label> fold_int(Kind k, ir::Type t, std::span<const Label> c) {
  const u64 a = c[0].payload;
  const u64 b = c.size() > 1 ? c[1].payload : 0;
  const unsigned w = t.bits();
  const bool is_signed = t.is_signed();
  const auto out = [&](u64 v) { return constant(t, v); };
  const auto truth = [](bool v) { return constant(ir::Type::bool_(), v); };
  const i64 sa = signed_value(t, a), sb = signed_value(t, b);
  const bool less = is_signed ? sa < sb : a < b;
  const bool greater = is_signed ? sa > sb : a > b;
  switch (k) {
    case Kind::Neg:
      return out(0 - a);
    case Kind::BitNot:
      return out(~a);
    case Kind::Not:
      return out(a ^ 1);
    case Kind::Add:
      return out(a + b);
    case Kind::Sub:
      return out(a - b);
    case Kind::Mul:
      return out(a * b);
    case Kind::Div:
    case Kind::Rem: {
      if (b == 0) return std::nullopt;
      if (!is_signed) return out(k == Kind::Div ? a / b : a % b);
      const i64 min = w == 64 ? std::numeric_limits<i64>::min() : -(i64{1} << (w - 1));
      if (sa == min && sb == -1) return std::nullopt;
      return out(static_cast<u64>(k == Kind::Div ? sa / sb : sa % sb));
    }
    case Kind::BitAnd:
      return out(a & b);
    case Kind::BitOr:
      return out(a | b);
    case Kind::BitXor:
      return out(a ^ b);
    case Kind::Shl:
      return out(a << (b % w));
    case Kind::Shr:
      return out(is_signed ? static_cast<u64>(sa >> (b % w)) : a >> (b % w));
    case Kind::Eq:
      return truth(a == b);
    case Kind::Ne:
      return truth(a != b);
    case Kind::Lt:
      return truth(less);
    case Kind::Le:
      return truth(!greater);
    case Kind::Gt:
      return truth(greater);
    case Kind::Ge:
      return truth(!less);
    case Kind::Min:
      return out(greater ? b : a);
    case Kind::Max:
      return out(less ? b : a);
    default:
      return std::nullopt;
  }
}

std::optional<Label> fold_cast(ir::Type to, ir::Type from, u64 bits) {
  if (to.is_pointer() || from.is_pointer()) {
    // Only null has a spelling; it converts to null or to the integer 0.
    if (bits != 0 || to.is_bool() || to.is_float()) return std::nullopt;
    return constant(to, 0);
  }
  if (to.is_bool()) {
    if (from.is_float()) {
      return constant(to, from == ir::Type::f32() ? as_float<float>(bits) != 0.0f
                                                  : as_float<double>(bits) != 0.0);
    }
    return constant(to, bits != 0);
  }
  if (from.is_float()) {
    const bool f32 = from == ir::Type::f32();
    if (to.is_float()) {
      if (to == from) return constant(to, bits);
      return f32 ? constant(to, float_bits(static_cast<double>(as_float<float>(bits))))
                 : constant(to, float_bits(static_cast<float>(as_float<double>(bits))));
    }
    return f32 ? constant(to, float_to_int(to, as_float<float>(bits)))
               : constant(to, float_to_int(to, as_float<double>(bits)));
  }
  // From an integer or bool: extend by the source's signedness.
  const bool sign = from.is_signed();
  const i64 s = signed_value(from, bits);
  if (to.is_float()) {
    if (to == ir::Type::f32())
      return constant(to, float_bits(sign ? static_cast<float>(s) : static_cast<float>(bits)));
    return constant(to, float_bits(sign ? static_cast<double>(s) : static_cast<double>(bits)));
  }
  return constant(to, sign ? static_cast<u64>(s) : bits);
}

bool is_nan(PegType type, u64 bits) {
  if (!type.is_ir()) return false;
  if (type.ir() == ir::Type::f32()) return std::isnan(as_float<float>(bits));
  return type.ir() == ir::Type::f64() && std::isnan(as_float<double>(bits));
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
  if (k == Kind::Cast) {
    const PegType from = PegType::from_code(static_cast<std::uint8_t>(node.payload));
    if (!from.is_ir()) return std::nullopt;
    return fold_cast(t, from.ir(), children[0].payload);
  }
  if (!is_pure_value_op(k) || k == Kind::CallPure) return std::nullopt;
  if (t == ir::Type::f32()) return fold_float<float>(k, t, children);
  if (t == ir::Type::f64()) return fold_float<double>(k, t, children);
  if (t.is_integer() || t.is_bool()) return fold_int(k, t, children);
  if (t.is_pointer() && (k == Kind::Eq || k == Kind::Ne))
    return constant(ir::Type::bool_(),
                    (children[0].payload == children[1].payload) == (k == Kind::Eq));
  return std::nullopt;
}

}  // namespace augur::peg
