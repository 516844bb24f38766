// Operator-level semantics (docs/ir.md "Semantics") against C++ references
// that spell the rules out: integer wraparound, shifts, division, IEEE floats,
// every cast, memory indexing.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <tuple>

#include "tests/ir/interp_test_support.h"

namespace augur::ir {
namespace {

using namespace augur::ir::testing;

template <class T>
Interpreter binary_function(BinaryOp op) {
  const Type t = type_of<T>();
  FunctionBuilder b("f", check_binary(op, t, t).type);
  E x = b.read(b.param("a", t));
  E y = b.read(b.param("b", t));
  b.return_(binary(op, x, y));
  return interpreter(std::move(b).finish());
}

// The comparison `op` as a branch condition: if (a op b) return true; return
// false; or, negated, if (!(a op b)) return false; return true. Conditions
// lower to fused compare-and-branch operations, unlike comparison values.
template <class T>
Interpreter branch_function(BinaryOp op, bool negated) {
  const Type t = type_of<T>();
  FunctionBuilder b("f", Type::bool_());
  E x = b.read(b.param("a", t));
  E y = b.read(b.param("b", t));
  E condition = binary(op, x, y);
  b.if_(negated ? !condition : condition, [&] { b.return_(lit(!negated)); });
  b.return_(lit(negated));
  return interpreter(std::move(b).finish());
}

// Checks comparison `op` as a value and as both kinds of branch.
template <class T>
void expect_comparison(BinaryOp op, bool (*reference)(T, T), const std::vector<T>& values) {
  Interpreter value = binary_function<T>(op);
  Interpreter branch = branch_function<T>(op, false);
  Interpreter negated = branch_function<T>(op, true);
  for (T a : values) {
    for (T b : values) {
      const bool expected = reference(a, b);
      ASSERT_EQ(value.call<bool>(a, b), expected) << +a << " " << name_of(op) << " " << +b;
      ASSERT_EQ(branch.call<bool>(a, b), expected)
          << "if (" << +a << " " << name_of(op) << " " << +b << ")";
      ASSERT_EQ(negated.call<bool>(a, b), expected)
          << "if !(" << +a << " " << name_of(op) << " " << +b << ")";
    }
  }
}

// fn f(x: T, y: T, z: T) -> T { return x * y + z; } or { return z + x * y; }
template <class T>
Interpreter multiply_add_function(bool product_first) {
  const Type t = type_of<T>();
  FunctionBuilder b("f", t);
  E x = b.read(b.param("x", t));
  E y = b.read(b.param("y", t));
  E z = b.read(b.param("z", t));
  b.return_(product_first ? x * y + z : z + x * y);
  return interpreter(std::move(b).finish());
}

template <class T>
Interpreter unary_function(UnaryOp op) {
  const Type t = type_of<T>();
  FunctionBuilder b("f", t);
  b.return_(unary(op, b.read(b.param("a", t))));
  return interpreter(std::move(b).finish());
}

template <class T>
Interpreter math_function(MathOp op) {
  const Type t = type_of<T>();
  FunctionBuilder b("f", t);
  std::vector<ExprPtr> args;
  for (unsigned i = 0; i < arity(op); ++i)
    args.push_back(b.read(b.param("x" + std::to_string(i), t)));
  b.return_(math(op, std::move(args)));
  return interpreter(std::move(b).finish());
}

// ---------------------------------------------------------------- integers

template <class T>
class IntegerSemantics : public ::testing::Test {};
using IntegerTypes = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t,
                                      std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(IntegerSemantics, IntegerTypes);

// Modular arithmetic in 64 bits, truncated to T (C++20 conversions are modular).
template <class T>
T wrapped(std::uint64_t v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
}
template <class T>
std::uint64_t u(T v) {
  return static_cast<std::make_unsigned_t<T>>(v);
}
template <class T>
unsigned shift_count(T b) {
  return static_cast<unsigned>(u(b) % (sizeof(T) * 8));
}

TYPED_TEST(IntegerSemantics, ArithmeticWrapsAndShiftsTakeTheCountModuloTheWidth) {
  using T = TypeParam;
  struct Case {
    BinaryOp op;
    T (*reference)(T, T);
  };
  const Case cases[] = {
      {BinaryOp::Add, [](T a, T b) { return wrapped<T>(u(a) + u(b)); }},
      {BinaryOp::Sub, [](T a, T b) { return wrapped<T>(u(a) - u(b)); }},
      {BinaryOp::Mul, [](T a, T b) { return wrapped<T>(u(a) * u(b)); }},
      {BinaryOp::BitAnd, [](T a, T b) { return static_cast<T>(a & b); }},
      {BinaryOp::BitOr, [](T a, T b) { return static_cast<T>(a | b); }},
      {BinaryOp::BitXor, [](T a, T b) { return static_cast<T>(a ^ b); }},
      {BinaryOp::Shl, [](T a, T b) { return wrapped<T>(u(a) << shift_count(b)); }},
      // >> on a signed C++ value is arithmetic; on an unsigned one, logical.
      {BinaryOp::Shr, [](T a, T b) { return static_cast<T>(a >> shift_count(b)); }},
  };
  const std::vector<T> values = sample<T>(24);
  for (const Case& c : cases) {
    Interpreter f = binary_function<T>(c.op);
    for (T a : values) {
      for (T b : values) {
        ASSERT_EQ(f.template call<T>(a, b), c.reference(a, b))
            << +a << " " << name_of(c.op) << " " << +b;
      }
    }
  }
}

TYPED_TEST(IntegerSemantics, MultiplyAddWraps) {
  using T = TypeParam;
  Interpreter product_first = multiply_add_function<T>(true);
  Interpreter sum_first = multiply_add_function<T>(false);
  const std::vector<T> values = sample<T>(8);
  for (T x : values) {
    for (T y : values) {
      for (T z : values) {
        const T expected = wrapped<T>(u(x) * u(y) + u(z));
        ASSERT_EQ(product_first.template call<T>(x, y, z), expected)
            << +x << " " << +y << " " << +z;
        ASSERT_EQ(sum_first.template call<T>(x, y, z), expected) << +x << " " << +y << " " << +z;
      }
    }
  }
}

TYPED_TEST(IntegerSemantics, NegationAndComplementWrap) {
  using T = TypeParam;
  Interpreter neg = unary_function<T>(UnaryOp::Neg);
  Interpreter bit_not = unary_function<T>(UnaryOp::BitNot);
  for (T a : sample<T>(40)) {
    EXPECT_EQ(neg.template call<T>(a), wrapped<T>(0 - u(a))) << +a;
    EXPECT_EQ(bit_not.template call<T>(a), wrapped<T>(~u(a))) << +a;
  }
}

TYPED_TEST(IntegerSemantics, DivisionTruncatesAndRemainderFollowsTheDividend) {
  using T = TypeParam;
  Interpreter div = binary_function<T>(BinaryOp::Div);
  Interpreter rem = binary_function<T>(BinaryOp::Rem);
  const std::vector<T> values = sample<T>(24);
  for (T a : values) {
    for (T b : values) {
      if (b == 0) continue;
      if (std::is_signed_v<T> && a == std::numeric_limits<T>::min() && b == T(-1)) continue;
      ASSERT_EQ(div.template call<T>(a, b), static_cast<T>(a / b)) << +a << " / " << +b;
      ASSERT_EQ(rem.template call<T>(a, b), static_cast<T>(a % b)) << +a << " % " << +b;
    }
  }
}

TYPED_TEST(IntegerSemantics, ComparisonsAndMinMaxFollowSignedness) {
  using T = TypeParam;
  struct Case {
    BinaryOp op;
    bool (*reference)(T, T);
  };
  const Case cases[] = {
      {BinaryOp::Eq, [](T a, T b) { return a == b; }},
      {BinaryOp::Ne, [](T a, T b) { return a != b; }},
      {BinaryOp::Lt, [](T a, T b) { return a < b; }},
      {BinaryOp::Le, [](T a, T b) { return a <= b; }},
      {BinaryOp::Gt, [](T a, T b) { return a > b; }},
      {BinaryOp::Ge, [](T a, T b) { return a >= b; }},
  };
  const std::vector<T> values = sample<T>(16);
  for (const Case& c : cases) expect_comparison<T>(c.op, c.reference, values);
  Interpreter min = math_function<T>(MathOp::Min);
  Interpreter max = math_function<T>(MathOp::Max);
  for (T a : values) {
    for (T b : values) {
      ASSERT_EQ(min.template call<T>(a, b), std::min(a, b)) << +a << ", " << +b;
      ASSERT_EQ(max.template call<T>(a, b), std::max(a, b)) << +a << ", " << +b;
    }
  }
}

// ---------------------------------------------------------------- floats

template <class T>
class FloatSemantics : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FloatSemantics, FloatTypes);

TYPED_TEST(FloatSemantics, ArithmeticIsIeee) {
  using T = TypeParam;
  struct Case {
    BinaryOp op;
    T (*reference)(T, T);
  };
  const Case cases[] = {
      {BinaryOp::Add, [](T a, T b) { return a + b; }},
      {BinaryOp::Sub, [](T a, T b) { return a - b; }},
      {BinaryOp::Mul, [](T a, T b) { return a * b; }},
      {BinaryOp::Div, [](T a, T b) { return a / b; }},
      {BinaryOp::Rem, [](T a, T b) { return std::fmod(a, b); }},
  };
  const std::vector<T> values = sample<T>(20);
  for (const Case& c : cases) {
    Interpreter f = binary_function<T>(c.op);
    for (T a : values) {
      for (T b : values) {
        const T got = f.template call<T>(a, b);
        ASSERT_TRUE(same_value(got, c.reference(a, b)))
            << a << " " << name_of(c.op) << " " << b << " gave " << got;
      }
    }
  }
}

TYPED_TEST(FloatSemantics, MultiplyAddRoundsTwiceAndKeepsOperandOrder) {
  using T = TypeParam;
  Interpreter product_first = multiply_add_function<T>(true);
  Interpreter sum_first = multiply_add_function<T>(false);
  const std::vector<T> values = sample<T>(8);
  for (T x : values) {
    for (T y : values) {
      for (T z : values) {
        const T product = x * y;
        const T after = product + z;
        const T before = z + product;
        ASSERT_TRUE(same_value(product_first.template call<T>(x, y, z), after));
        ASSERT_TRUE(same_value(sum_first.template call<T>(x, y, z), before));
      }
    }
  }
  // (1 + e)(1 - e) rounds to 1, so adding -1 gives 0; a fused multiply-add
  // would give -e^2.
  const T e = std::numeric_limits<T>::epsilon();
  EXPECT_EQ(product_first.template call<T>(T(1) + e, T(1) - e, T(-1)), T(0));
  EXPECT_EQ(sum_first.template call<T>(T(1) + e, T(1) - e, T(-1)), T(0));
}

TYPED_TEST(FloatSemantics, ComparisonsWithNanAreFalseExceptNotEqual) {
  using T = TypeParam;
  struct Case {
    BinaryOp op;
    bool (*reference)(T, T);
  };
  const Case cases[] = {
      {BinaryOp::Eq, [](T a, T b) { return a == b; }},
      {BinaryOp::Ne, [](T a, T b) { return a != b; }},
      {BinaryOp::Lt, [](T a, T b) { return a < b; }},
      {BinaryOp::Le, [](T a, T b) { return a <= b; }},
      {BinaryOp::Gt, [](T a, T b) { return a > b; }},
      {BinaryOp::Ge, [](T a, T b) { return a >= b; }},
  };
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> values = sample<T>(10);
  for (const Case& c : cases) {
    expect_comparison<T>(c.op, c.reference, values);
    Interpreter f = binary_function<T>(c.op);
    EXPECT_EQ(f.template call<bool>(nan, nan), c.op == BinaryOp::Ne);
    EXPECT_EQ(f.template call<bool>(T(1), nan), c.op == BinaryOp::Ne);
    // Signed zeros compare equal.
    EXPECT_EQ(f.template call<bool>(T(0), -T(0)), c.reference(T(0), -T(0)));
  }
}

TYPED_TEST(FloatSemantics, SignedZerosInfinitiesAndNegation) {
  using T = TypeParam;
  Interpreter neg = unary_function<T>(UnaryOp::Neg);
  Interpreter mul = binary_function<T>(BinaryOp::Mul);
  Interpreter div = binary_function<T>(BinaryOp::Div);
  Interpreter add = binary_function<T>(BinaryOp::Add);
  const auto bits = [](T v) { return Value::of(v).bits; };
  for (T a : sample<T>(30)) {
    // Negation flips the sign bit only, NaNs included.
    EXPECT_EQ(bits(neg.template call<T>(a)), bits(a) ^ bits(-T(0))) << a;
  }
  EXPECT_TRUE(std::signbit(mul.template call<T>(T(0), T(-1))));
  EXPECT_TRUE(std::signbit(add.template call<T>(-T(0), -T(0))));
  EXPECT_FALSE(std::signbit(add.template call<T>(-T(0), T(0))));
  EXPECT_EQ(div.template call<T>(T(1), T(0)), std::numeric_limits<T>::infinity());
  EXPECT_EQ(div.template call<T>(T(1), -T(0)), -std::numeric_limits<T>::infinity());
  EXPECT_TRUE(std::isnan(div.template call<T>(T(0), T(0))));
  EXPECT_TRUE(std::isnan(add.template call<T>(std::numeric_limits<T>::infinity(),
                                              -std::numeric_limits<T>::infinity())));
}

TYPED_TEST(FloatSemantics, MathIntrinsicsMatchLibm) {
  using T = TypeParam;
  const std::vector<T> values = sample<T>(30);
  struct Unary {
    MathOp op;
    T (*reference)(T);
  };
  const Unary unaries[] = {
      {MathOp::Sqrt, [](T x) { return std::sqrt(x); }},
      {MathOp::Fabs, [](T x) { return std::fabs(x); }},
      {MathOp::Floor, [](T x) { return std::floor(x); }},
      {MathOp::Exp, [](T x) { return std::exp(x); }},
      {MathOp::Log, [](T x) { return std::log(x); }},
  };
  for (const Unary& c : unaries) {
    Interpreter f = math_function<T>(c.op);
    for (T x : values) {
      ASSERT_TRUE(same_value(f.template call<T>(x), c.reference(x))) << name_of(c.op) << " " << x;
    }
  }
  Interpreter pow = math_function<T>(MathOp::Pow);
  Interpreter fma = math_function<T>(MathOp::Fma);
  for (T x : values) {
    for (T y : values) {
      ASSERT_TRUE(same_value(pow.template call<T>(x, y), std::pow(x, y))) << x << ", " << y;
      ASSERT_TRUE(same_value(fma.template call<T>(x, y, T(0.25)), std::fma(x, y, T(0.25))));
    }
  }
  // fma rounds once: (1 + e)(1 - e) - 1 is -e^2 exactly, which a separate
  // multiply would round to 0.
  const T e = std::numeric_limits<T>::epsilon();
  EXPECT_EQ(fma.template call<T>(T(1) + e, T(1) - e, T(-1)), -e * e);
}

TYPED_TEST(FloatSemantics, MinAndMaxAreMinNumAndMaxNum) {
  using T = TypeParam;
  Interpreter min = math_function<T>(MathOp::Min);
  Interpreter max = math_function<T>(MathOp::Max);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> values = sample<T>(12);
  for (T a : values) {
    for (T b : values) {
      if (std::isnan(a) || std::isnan(b) || a == b) continue;
      EXPECT_EQ(min.template call<T>(a, b), a < b ? a : b) << a << ", " << b;
      EXPECT_EQ(max.template call<T>(a, b), a < b ? b : a) << a << ", " << b;
    }
    if (std::isnan(a)) continue;
    EXPECT_EQ(min.template call<T>(a, nan), a);
    EXPECT_EQ(min.template call<T>(nan, a), a);
    EXPECT_EQ(max.template call<T>(a, nan), a);
    EXPECT_EQ(max.template call<T>(nan, a), a);
  }
  EXPECT_TRUE(std::isnan(min.template call<T>(nan, nan)));
  // -0 < +0 whatever the operand order.
  for (auto [a, b] : {std::pair{T(0), T(-0.0)}, std::pair{T(-0.0), T(0)}}) {
    EXPECT_TRUE(std::signbit(min.template call<T>(a, b)));
    EXPECT_FALSE(std::signbit(max.template call<T>(a, b)));
  }
}

// ---------------------------------------------------------------- casts

// docs/ir.md "Casts", written out independently of the interpreter.
template <class From, class To>
To reference_cast(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(x)) return 0;
    // long double holds every 64-bit integer exactly.
    const long double t = std::trunc(static_cast<long double>(x));
    if (t < static_cast<long double>(std::numeric_limits<To>::min())) {
      return std::numeric_limits<To>::min();
    }
    if (t > static_cast<long double>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(t);
  } else {
    // Integer conversions are modular (C++20); to float, round to nearest.
    return static_cast<To>(x);
  }
}

template <class From, class To>
void check_cast() {
  FunctionBuilder b("cast", type_of<To>());
  b.return_(to(type_of<To>(), b.read(b.param("x", type_of<From>()))));
  Interpreter f = interpreter(std::move(b).finish());
  for (From x : sample<From>(40, 5)) {
    const To got = f.call<To>(x);
    const To expected = reference_cast<From, To>(x);
    ASSERT_TRUE(same_value(got, expected))
        << type_of<From>().name() << " " << +x << " to " << type_of<To>().name() << ": got " << +got
        << ", expected " << +expected;
  }
}

using Scalars =
    std::tuple<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
               std::uint16_t, std::uint32_t, std::uint64_t, float, double>;

template <class From, class... To>
void check_casts_from(std::tuple<To...>*) {
  (check_cast<From, To>(), ...);
}

TEST(InterpCasts, EveryScalarToEveryScalar) {
  []<class... From>(std::tuple<From...>*) {
    (check_casts_from<From>(static_cast<Scalars*>(nullptr)), ...);
  }(static_cast<Scalars*>(nullptr));
}

TEST(InterpCasts, FloatToIntSaturatesAndNanBecomesZero) {
  // A few spelled out, beside the exhaustive comparison above.
  const auto cast_f64 = [](Type to_type) {
    FunctionBuilder b("c", Type::i64());
    b.return_(to(Type::i64(), to(to_type, b.read(b.param("x", Type::f64())))));
    return interpreter(std::move(b).finish());
  };
  Interpreter to_i8 = cast_f64(Type::i8());
  Interpreter to_u32 = cast_f64(Type::u32());
  Interpreter to_i64 = cast_f64(Type::i64());
  EXPECT_EQ(to_i8.call<std::int64_t>(1000.0), 127);
  EXPECT_EQ(to_i8.call<std::int64_t>(-1000.0), -128);
  EXPECT_EQ(to_i8.call<std::int64_t>(-7.9), -7);
  EXPECT_EQ(to_i8.call<std::int64_t>(std::nan("")), 0);
  EXPECT_EQ(to_u32.call<std::int64_t>(-1.0), 0);
  EXPECT_EQ(to_u32.call<std::int64_t>(1e20), 4294967295);
  EXPECT_EQ(to_i64.call<std::int64_t>(9.3e18), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(to_i64.call<std::int64_t>(-std::numeric_limits<double>::infinity()),
            std::numeric_limits<std::int64_t>::min());
}

// ---------------------------------------------------------------- memory

TEST(InterpMemory, IndexesAreSignOrZeroExtendedByTheirType) {
  // fn addr(p: i32*, i: T) -> i64 { return i64(p + i); } and p[i] for each index type.
  std::vector<std::int32_t> data(600);
  for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<std::int32_t>(k * 7);
  std::int32_t* const middle = data.data() + 300;
  const Type ip = Type::pointer_to(Scalar::I32);
  for (Type index : {Type::i8(), Type::i16(), Type::i32(), Type::i64(), Type::u8(), Type::u16(),
                     Type::u32(), Type::u64()}) {
    FunctionBuilder ba("addr", Type::i64());
    E p = ba.read(ba.param("p", ip));
    ba.return_(to(Type::i64(), p + E(ba.read(ba.param("i", index)))));
    Interpreter addr = interpreter(std::move(ba).finish());
    FunctionBuilder bl("get", Type::i32());
    E q = bl.read(bl.param("p", ip));
    bl.return_(at(q, E(bl.read(bl.param("i", index)))));
    Interpreter get = interpreter(std::move(bl).finish());
    for (std::int64_t raw : {0, 1, 5, -1, -2, -128, 127, 200, 255, -300, 299}) {
      const std::uint64_t bits = canonical_bits(index, static_cast<std::uint64_t>(raw));
      const std::int64_t extended =
          index.is_signed() ? sign_extend(bits, index.bits()) : static_cast<std::int64_t>(bits);
      const Value args[] = {Value::of(middle), Value{bits}};
      const auto expected = reinterpret_cast<std::intptr_t>(middle) + 4 * extended;
      EXPECT_EQ(addr.run(args).as<std::int64_t>(), expected) << index.name() << " " << raw;
      if (extended >= -300 && extended < 300) {
        EXPECT_EQ(get.run(args).as<std::int32_t>(), middle[extended]) << index.name() << " " << raw;
      }
    }
  }
}

TEST(InterpMemory, PointerCastsArithmeticAndBoolElements) {
  // b[i] = bool(x); return i32(u8*(p)[1]) + i32*(i64(p) + 4i64)[0] + i32((p - 1i32)[1]) + i32(b[i])
  const Type ip = Type::pointer_to(Scalar::I32);
  FunctionBuilder b("mix", Type::i32());
  E p = b.read(b.param("p", ip));
  E flags = b.read(b.param("b", Type::pointer_to(Scalar::Bool)));
  E i = b.read(b.param("i", Type::i64()));
  E x = b.read(b.param("x", Type::i32()));
  b.store(flags, i, to(Type::bool_(), x));
  E byte1 = to(Type::i32(), at(to(Type::pointer_to(Scalar::U8), p), 1));
  E next = at(to(ip, to(Type::i64(), p) + 4), 0);
  E back = at(p - lit<std::int32_t>(1), 1);
  b.return_(byte1 + next + back + to(Type::i32(), at(flags, i)));
  Interpreter f = interpreter(std::move(b).finish());
  std::int32_t words[2] = {0x11223344, 1000};
  bool bools[4] = {false, false, false, false};
  for (std::int32_t xv : {0, 7}) {
    for (std::int64_t k = 0; k < 4; ++k) {
      const std::int32_t result = f.call<std::int32_t>(&words[0], &bools[0], k, xv);
      EXPECT_EQ(result, 0x33 + 1000 + 0x11223344 + (xv != 0 ? 1 : 0));
      EXPECT_EQ(bools[k], xv != 0);
    }
  }
}

}  // namespace
}  // namespace augur::ir
