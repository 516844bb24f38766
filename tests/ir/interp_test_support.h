// Test helpers for the interpreter: operator overloads over the IR builder,
// so test programs read like the code they stand for, and value generators.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/ir/interp.h"

namespace augur::ir::testing {

// An IR expression with C++ operators. A plain C++ number on either side of
// an operator becomes a constant of the other side's type (an i64 index for
// pointers).
struct E {
  ExprPtr p;
  E(ExprPtr e) : p(std::move(e)) {}  // NOLINT: implicit on purpose
  operator ExprPtr() const { return p; }
  Type type() const { return p->type; }
};

template <class T>
E lit(T v) {
  return constant<T>(v);
}

// A constant of type t holding v.
template <class T>
E like(Type t, T v) {
  if (t.is_pointer()) return constant<std::int64_t>(static_cast<std::int64_t>(v));
  if (t.scalar() == Scalar::F32) return constant(static_cast<float>(v));
  if (t.scalar() == Scalar::F64) return constant(static_cast<double>(v));
  if (t.is_bool()) return constant(v != 0);
  return constant(t, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
}

template <class T>
concept Number = std::is_arithmetic_v<T>;

#define AUGUR_TEST_BINARY(sym, op)                     \
  inline E operator sym(E a, E b) {                    \
    return binary(BinaryOp::op, a, b);                 \
  }                                                    \
  template <Number T>                                  \
  E operator sym(E a, T b) {                           \
    return binary(BinaryOp::op, a, like(a.type(), b)); \
  }                                                    \
  template <Number T>                                  \
  E operator sym(T a, E b) {                           \
    return binary(BinaryOp::op, like(b.type(), a), b); \
  }
AUGUR_TEST_BINARY(+, Add)
AUGUR_TEST_BINARY(-, Sub)
AUGUR_TEST_BINARY(*, Mul)
AUGUR_TEST_BINARY(/, Div)
AUGUR_TEST_BINARY(%, Rem)
AUGUR_TEST_BINARY(&, BitAnd)
AUGUR_TEST_BINARY(|, BitOr)
AUGUR_TEST_BINARY(^, BitXor)
AUGUR_TEST_BINARY(<<, Shl)
AUGUR_TEST_BINARY(>>, Shr)
AUGUR_TEST_BINARY(==, Eq)
AUGUR_TEST_BINARY(!=, Ne)
AUGUR_TEST_BINARY(<, Lt)
AUGUR_TEST_BINARY(<=, Le)
AUGUR_TEST_BINARY(>, Gt)
AUGUR_TEST_BINARY(>=, Ge)
AUGUR_TEST_BINARY(&&, And)
AUGUR_TEST_BINARY(||, Or)
#undef AUGUR_TEST_BINARY

inline E operator-(E a) {
  return unary(UnaryOp::Neg, a);
}
inline E operator~(E a) {
  return unary(UnaryOp::BitNot, a);
}
inline E operator!(E a) {
  return unary(UnaryOp::Not, a);
}

// p[i]
template <class I>
E at(E p, I i) {
  if constexpr (std::is_same_v<I, E>) {
    return load(p, i);
  } else {
    return load(p, constant<std::int32_t>(static_cast<std::int32_t>(i)));
  }
}
inline E to(Type t, E x) {
  return cast(t, x);
}
inline E sel(E c, E a, E b) {
  return select(c, a, b);
}
inline E null_of(Type pointer) {
  return null_pointer(pointer);
}
inline E thread_x() {
  return gpu_index(GpuIndex::ThreadIdx, 0);
}
inline E block_x() {
  return gpu_index(GpuIndex::BlockIdx, 0);
}
inline E block_dim_x() {
  return gpu_index(GpuIndex::BlockDim, 0);
}

// A module holding `fn` and the externs it calls.
inline Module module_of(Function fn, std::vector<ExternRef> externs = {}) {
  Module m;
  m.externs = std::move(externs);
  m.functions.push_back(std::move(fn));
  return m;
}

inline InterpOptions calling(const ExternTable& externs) {
  InterpOptions options;
  options.externs = &externs;
  return options;
}

inline Interpreter interpreter(Function fn, InterpOptions options = {},
                               std::vector<ExternRef> externs = {}) {
  const std::string name = fn.name;
  return Interpreter(module_of(std::move(fn), std::move(externs)), name, std::move(options));
}

// Interesting values of T first (bounds, zeros, signs, specials), then random
// ones, always the same for a given seed.
template <class T>
std::vector<T> sample(std::size_t random_count, std::uint64_t seed = 1) {
  using L = std::numeric_limits<T>;
  std::vector<T> out;
  if constexpr (std::is_floating_point_v<T>) {
    out = {T(0),
           -T(0),
           T(1),
           T(-1),
           T(0.5),
           T(-2.5),
           T(3.75),
           L::infinity(),
           -L::infinity(),
           L::quiet_NaN(),
           -L::quiet_NaN(),
           L::max(),
           L::lowest(),
           L::min(),
           L::denorm_min(),
           T(1e10),
           T(-1e10),
           T(2147483647.0),
           T(-2147483648.0),
           T(4294967296.0),
           T(9.3e18),
           T(-9.3e18),
           T(1.9e19),
           T(255.5),
           T(-128.5)};
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> small(-1000.0, 1000.0);
    std::uniform_int_distribution<int> exponent(-60, 70);
    for (std::size_t i = 0; i < random_count; ++i) {
      out.push_back(
          static_cast<T>(i % 2 == 0 ? small(rng) : std::ldexp(small(rng), exponent(rng))));
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    out = {false, true};
  } else {
    out = {
        T(0),  T(1),  T(2),  T(3),     T(7),     T(31),           T(32),           T(33),
        T(63), T(64), T(65), L::max(), L::min(), T(L::max() - 1), T(L::min() + 1), T(L::max() / 2)};
    if constexpr (std::is_signed_v<T>) {
      for (T v : {T(-1), T(-2), T(-7), T(-31), T(-32), T(-33), T(-64), T(-65)}) out.push_back(v);
    }
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < random_count; ++i) {
      const std::uint64_t bits = rng();
      // Mix full-width values with small ones, which divide and shift more often.
      out.push_back(static_cast<T>(i % 3 == 0 ? bits % 100 : bits));
      if constexpr (std::is_signed_v<T>) {
        if (i % 3 == 0) out.back() = static_cast<T>(-out.back());
      }
    }
  }
  return out;
}

// Same bits, or both NaN (NaN payloads are not part of the contract).
template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return Value::of(a).bits == Value::of(b).bits;
  } else {
    return a == b;
  }
}

}  // namespace augur::ir::testing
