#include "runtime/ir/const_fold.h"

#include <bit>
#include <cmath>
#include <limits>

#include "runtime/ir/saturate.h"
#include "runtime/ir/value.h"

namespace augur::ir {

namespace {

using u64 = std::uint64_t;
using i64 = std::int64_t;

// Every foldable operation, whichever node kind spells it.
// clang-format off
enum class Op {
  Neg, BitNot, Not,
  Add, Sub, Mul, Div, Rem, BitAnd, BitOr, BitXor, Shl, Shr,
  Eq, Ne, Lt, Le, Gt, Ge, And, Or,
  Sqrt, Fabs, Floor, Min, Max, Fma,
};
// clang-format on

Constant constant(Type type, u64 bits) {
  return {type, canonical_bits(type, bits)};
}
Constant truth(bool v) {
  return {Type::bool_(), v ? 1u : 0u};
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
u64 float_to_int(Type to, F x) {
  switch (to.scalar()) {
    case Scalar::I8:
      return static_cast<u64>(saturate<std::int8_t>(x));
    case Scalar::I16:
      return static_cast<u64>(saturate<std::int16_t>(x));
    case Scalar::I32:
      return static_cast<u64>(saturate<std::int32_t>(x));
    case Scalar::I64:
      return static_cast<u64>(saturate<std::int64_t>(x));
    case Scalar::U8:
      return saturate<std::uint8_t>(x);
    case Scalar::U16:
      return saturate<std::uint16_t>(x);
    case Scalar::U32:
      return saturate<std::uint32_t>(x);
    default:
      return saturate<std::uint64_t>(x);
  }
}

template <class F>
std::optional<Constant> fold_float(Op op, Type t, std::span<const u64> c) {
  const F a = Value{c[0]}.as<F>();
  const F b = c.size() > 1 ? Value{c[1]}.as<F>() : F{0};
  const auto out = [&](F v) { return constant(t, float_bits(v)); };
  switch (op) {
    case Op::Neg:
      // Flips the sign bit, NaNs included, as the backends' fneg does.
      return constant(t, c[0] ^ (u64{1} << (sizeof(F) * 8 - 1)));
    case Op::Add:
      return out(a + b);
    case Op::Sub:
      return out(a - b);
    case Op::Mul:
      return out(a * b);
    case Op::Div:
      return out(a / b);
    case Op::Rem:
      return out(std::fmod(a, b));
    case Op::Eq:
      return truth(a == b);
    case Op::Ne:
      return truth(a != b);
    case Op::Lt:
      return truth(a < b);
    case Op::Le:
      return truth(a <= b);
    case Op::Gt:
      return truth(a > b);
    case Op::Ge:
      return truth(a >= b);
    case Op::Sqrt:
      return out(std::sqrt(a));
    case Op::Fabs:
      return out(std::fabs(a));
    case Op::Floor:
      return out(std::floor(a));
    case Op::Min:
    case Op::Max:
      // The sign of min/max(+0, -0) is not pinned down (docs/ir.md: IEEE
      // minNum/maxNum; implementations differ): leave it to run time.
      if (a == 0 && b == 0) return std::nullopt;
      return out(op == Op::Min ? std::fmin(a, b) : std::fmax(a, b));
    case Op::Fma:
      return out(std::fma(a, b, Value{c[2]}.as<F>()));
    default:
      return std::nullopt;
  }
}

std::optional<Constant> fold_int(Op op, Type t, std::span<const u64> c) {
  const u64 a = c[0];
  const u64 b = c.size() > 1 ? c[1] : 0;
  const unsigned w = t.bits();
  const bool is_signed = t.is_signed();
  const auto out = [&](u64 v) { return constant(t, v); };
  const i64 sa = sign_extend(a, w), sb = sign_extend(b, w);
  const bool less = is_signed ? sa < sb : a < b;
  const bool greater = is_signed ? sa > sb : a > b;
  switch (op) {
    case Op::Neg:
      return out(0 - a);
    case Op::BitNot:
      return out(~a);
    case Op::Not:
      return out(a ^ 1);
    case Op::Add:
      return out(a + b);
    case Op::Sub:
      return out(a - b);
    case Op::Mul:
      return out(a * b);
    case Op::Div:
    case Op::Rem: {
      if (b == 0) return std::nullopt;
      if (!is_signed) return out(op == Op::Div ? a / b : a % b);
      const i64 min = w == 64 ? std::numeric_limits<i64>::min() : -(i64{1} << (w - 1));
      if (sa == min && sb == -1) return std::nullopt;
      return out(static_cast<u64>(op == Op::Div ? sa / sb : sa % sb));
    }
    case Op::BitAnd:
    case Op::And:
      return out(a & b);
    case Op::BitOr:
    case Op::Or:
      return out(a | b);
    case Op::BitXor:
      return out(a ^ b);
    case Op::Shl:
      return out(a << (b % w));
    case Op::Shr:
      return out(is_signed ? static_cast<u64>(sa >> (b % w)) : a >> (b % w));
    case Op::Eq:
      return truth(a == b);
    case Op::Ne:
      return truth(a != b);
    case Op::Lt:
      return truth(less);
    case Op::Le:
      return truth(!greater);
    case Op::Gt:
      return truth(greater);
    case Op::Ge:
      return truth(!less);
    case Op::Min:
      return out(greater ? b : a);
    case Op::Max:
      return out(less ? b : a);
    default:
      return std::nullopt;
  }
}

std::optional<Constant> fold(Op op, Type t, std::span<const u64> c) {
  if (c.empty()) return std::nullopt;
  if (t == Type::f32()) return fold_float<float>(op, t, c);
  if (t == Type::f64()) return fold_float<double>(op, t, c);
  if (t.is_integer() || t.is_bool()) return fold_int(op, t, c);
  if (t.is_pointer() && (op == Op::Eq || op == Op::Ne))
    return truth((c[0] == c[1]) == (op == Op::Eq));
  return std::nullopt;
}

}  // namespace

std::optional<Constant> fold_unary(UnaryOp op, Type operand, u64 a) {
  const u64 args[] = {a};
  switch (op) {
    case UnaryOp::Neg:
      return fold(Op::Neg, operand, args);
    case UnaryOp::BitNot:
      return fold(Op::BitNot, operand, args);
    case UnaryOp::Not:
      return fold(Op::Not, operand, args);
  }
  return std::nullopt;
}

std::optional<Constant> fold_binary(BinaryOp op, Type operand, u64 a, u64 b) {
  // BinaryOp lists Add .. Ge and then And, Or in Op's order.
  static_assert(static_cast<int>(BinaryOp::Ge) - static_cast<int>(BinaryOp::Add) ==
                static_cast<int>(Op::Ge) - static_cast<int>(Op::Add));
  static_assert(static_cast<int>(BinaryOp::Or) - static_cast<int>(BinaryOp::Add) ==
                static_cast<int>(Op::Or) - static_cast<int>(Op::Add));
  const u64 args[] = {a, b};
  return fold(static_cast<Op>(static_cast<int>(Op::Add) + static_cast<int>(op)), operand, args);
}

std::optional<Constant> fold_math(MathOp op, Type operand, std::span<const u64> args) {
  switch (op) {
    case MathOp::Sqrt:
      return fold(Op::Sqrt, operand, args);
    case MathOp::Fabs:
      return fold(Op::Fabs, operand, args);
    case MathOp::Floor:
      return fold(Op::Floor, operand, args);
    case MathOp::Min:
      return fold(Op::Min, operand, args);
    case MathOp::Max:
      return fold(Op::Max, operand, args);
    case MathOp::Fma:
      return fold(Op::Fma, operand, args);
    case MathOp::Exp:
    case MathOp::Log:
    case MathOp::Pow:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Constant> fold_cast(Type to, Type from, u64 bits) {
  if (to.is_pointer() || from.is_pointer()) {
    // Only null has a spelling; it converts to null or to the integer 0.
    if (bits != 0 || to.is_bool() || to.is_float()) return std::nullopt;
    return constant(to, 0);
  }
  if (to.is_bool()) {
    if (from.is_float()) {
      return truth(from == Type::f32() ? Value{bits}.as<float>() != 0.0f
                                       : Value{bits}.as<double>() != 0.0);
    }
    return truth(bits != 0);
  }
  if (from.is_float()) {
    const bool f32 = from == Type::f32();
    if (to.is_float()) {
      if (to == from) return constant(to, bits);
      return f32 ? constant(to, float_bits(static_cast<double>(Value{bits}.as<float>())))
                 : constant(to, float_bits(static_cast<float>(Value{bits}.as<double>())));
    }
    return f32 ? constant(to, float_to_int(to, Value{bits}.as<float>()))
               : constant(to, float_to_int(to, Value{bits}.as<double>()));
  }
  // From an integer or bool: extend by the source's signedness.
  const bool sign = from.is_signed();
  const i64 s = sign_extend(bits, from.bits());
  if (to.is_float()) {
    if (to == Type::f32())
      return constant(to, float_bits(sign ? static_cast<float>(s) : static_cast<float>(bits)));
    return constant(to, float_bits(sign ? static_cast<double>(s) : static_cast<double>(bits)));
  }
  return constant(to, sign ? static_cast<u64>(s) : bits);
}

}  // namespace augur::ir
