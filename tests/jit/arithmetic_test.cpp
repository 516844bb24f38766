// Integer and float operators, comparisons and math intrinsics, compiled and
// compared with the same operations computed in C++ on edge and random values.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>

#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

using ir::BinaryOp;
using ir::MathOp;
using ir::UnaryOp;

template <class T>
std::vector<T> sample_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> values;
  if constexpr (std::is_integral_v<T>) {
    for (long long v : {0LL, 1LL, 2LL, 3LL, 7LL, 31LL, 32LL, 63LL, 64LL, 100LL, -1LL, -2LL, -8LL})
      values.push_back(static_cast<T>(v));
    for (T v : {L::min(), L::max(), static_cast<T>(L::min() + 1), static_cast<T>(L::max() - 1)})
      values.push_back(v);
    std::mt19937_64 rng(sizeof(T) * 7 + std::is_signed_v<T>);
    for (int i = 0; i < 12; ++i) values.push_back(static_cast<T>(rng()));
  } else {
    for (T v : {T(0), -T(0), T(1), T(-1), T(0.5), T(-2.75), T(3), T(1e30), T(-1e-30), T(7.25),
                L::denorm_min(), L::min(), L::max(), L::lowest(), L::infinity(), -L::infinity(),
                L::quiet_NaN(), L::epsilon()})
      values.push_back(v);
    std::mt19937_64 rng(sizeof(T));
    std::uniform_real_distribution<T> dist(-1000, 1000);
    for (int i = 0; i < 10; ++i) values.push_back(dist(rng));
  }
  return values;
}

ir::Function binary_function(const std::string& name, BinaryOp op, ir::Type type) {
  ir::FunctionBuilder b(name, ir::check_binary(op, type, type).type);
  ir::VarId x = b.param("x", type);
  ir::VarId y = b.param("y", type);
  b.return_(ir::binary(op, b.read(x), b.read(y)));
  return std::move(b).finish();
}

ir::Function unary_function(const std::string& name, UnaryOp op, ir::Type type) {
  ir::FunctionBuilder b(name, type);
  ir::VarId x = b.param("x", type);
  b.return_(ir::unary(op, b.read(x)));
  return std::move(b).finish();
}

ir::Function math_function(const std::string& name, MathOp op, ir::Type type) {
  ir::FunctionBuilder b(name, type);
  std::vector<ir::ExprPtr> args;
  for (unsigned i = 0; i < ir::arity(op); ++i) {
    args.push_back(b.read(b.param("x" + std::to_string(i), type)));
  }
  b.return_(ir::math(op, std::move(args)));
  return std::move(b).finish();
}

std::string op_name(BinaryOp op) {
  return "op" + std::to_string(static_cast<int>(op));
}

constexpr BinaryOp kIntegerOps[] = {
    BinaryOp::Add, BinaryOp::Sub,    BinaryOp::Mul,   BinaryOp::Div,
    BinaryOp::Rem, BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor,
    BinaryOp::Shl, BinaryOp::Shr,    BinaryOp::Eq,    BinaryOp::Ne,
    BinaryOp::Lt,  BinaryOp::Le,     BinaryOp::Gt,    BinaryOp::Ge};

// docs/ir.md's integer semantics, written with C++20's modular conversions.
// Empty where the operation traps.
template <class T>
std::optional<ir::Value> integer_reference(BinaryOp op, T a, T b) {
  constexpr unsigned width = sizeof(T) * 8;
  const auto wide_a = static_cast<std::uint64_t>(a);
  const auto wide_b = static_cast<std::uint64_t>(b);
  const bool traps = b == 0 || (std::is_signed_v<T> && a == std::numeric_limits<T>::min() &&
                                b == static_cast<T>(-1));
  switch (op) {
    case BinaryOp::Add:
      return ir::Value::of(static_cast<T>(wide_a + wide_b));
    case BinaryOp::Sub:
      return ir::Value::of(static_cast<T>(wide_a - wide_b));
    case BinaryOp::Mul:
      return ir::Value::of(static_cast<T>(wide_a * wide_b));
    case BinaryOp::Div:
      if (traps) return std::nullopt;
      return ir::Value::of(static_cast<T>(a / b));
    case BinaryOp::Rem:
      if (traps) return std::nullopt;
      return ir::Value::of(static_cast<T>(a % b));
    case BinaryOp::BitAnd:
      return ir::Value::of(static_cast<T>(a & b));
    case BinaryOp::BitOr:
      return ir::Value::of(static_cast<T>(a | b));
    case BinaryOp::BitXor:
      return ir::Value::of(static_cast<T>(a ^ b));
    case BinaryOp::Shl:
      return ir::Value::of(static_cast<T>(wide_a << (wide_b & (width - 1))));
    case BinaryOp::Shr:
      return ir::Value::of(static_cast<T>(a >> (wide_b & (width - 1))));
    case BinaryOp::Eq:
      return ir::Value::of(a == b);
    case BinaryOp::Ne:
      return ir::Value::of(a != b);
    case BinaryOp::Lt:
      return ir::Value::of(a < b);
    case BinaryOp::Le:
      return ir::Value::of(a <= b);
    case BinaryOp::Gt:
      return ir::Value::of(a > b);
    case BinaryOp::Ge:
      return ir::Value::of(a >= b);
    default:
      return std::nullopt;
  }
}

template <class T>
void check_integer_type(int opt) {
  const ir::Type type = ir::type_of<T>();
  SCOPED_TRACE(type.name());
  std::vector<ir::Function> functions;
  for (BinaryOp op : kIntegerOps) functions.push_back(binary_function(op_name(op), op, type));
  functions.push_back(unary_function("neg", UnaryOp::Neg, type));
  functions.push_back(unary_function("not", UnaryOp::BitNot, type));
  functions.push_back(math_function("min", MathOp::Min, type));
  functions.push_back(math_function("max", MathOp::Max, type));
  auto code = compile_at(opt, module_of(std::move(functions)));

  const std::vector<T> values = sample_values<T>();
  for (T a : values) {
    const ir::Value va = ir::Value::of(a);
    EXPECT_EQ(invoke(*code, "neg", {{va}}),
              ir::Value::of(static_cast<T>(0 - static_cast<std::uint64_t>(a))))
        << +a;
    EXPECT_EQ(invoke(*code, "not", {{va}}), ir::Value::of(static_cast<T>(~a))) << +a;
    for (T b : values) {
      const ir::Value args[] = {va, ir::Value::of(b)};
      for (BinaryOp op : kIntegerOps) {
        const std::optional<ir::Value> expected = integer_reference(op, a, b);
        if (!expected) continue;
        EXPECT_EQ(invoke(*code, op_name(op), args), *expected)
            << +a << " " << ir::name_of(op) << " " << +b;
      }
      EXPECT_EQ(invoke(*code, "min", args), ir::Value::of(std::min(a, b)));
      EXPECT_EQ(invoke(*code, "max", args), ir::Value::of(std::max(a, b)));
    }
  }
}

TEST_P(AtOptLevel, IntegerOperatorsWrapAndMaskShiftsForEveryWidth) {
  check_integer_type<std::int8_t>(opt());
  check_integer_type<std::int16_t>(opt());
  check_integer_type<std::int32_t>(opt());
  check_integer_type<std::int64_t>(opt());
  check_integer_type<std::uint8_t>(opt());
  check_integer_type<std::uint16_t>(opt());
  check_integer_type<std::uint32_t>(opt());
  check_integer_type<std::uint64_t>(opt());
}

TEST_P(AtOptLevel, ShiftCountsAreTakenModuloTheWidth) {
  auto code =
      compile_at(opt(), module_of({binary_function("shl", BinaryOp::Shl, ir::Type::i32()),
                                   binary_function("shr", BinaryOp::Shr, ir::Type::i32()),
                                   binary_function("ushr", BinaryOp::Shr, ir::Type::u8())}));
  EXPECT_EQ(call_native<std::int32_t>(*code, "shl", 1, 33), 2);
  EXPECT_EQ(call_native<std::int32_t>(*code, "shl", 1, -1),
            std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(call_native<std::int32_t>(*code, "shr", -64, 35), -8);
  EXPECT_EQ(call_native<std::uint8_t>(*code, "ushr", std::uint8_t{0x80}, std::uint8_t{9}), 0x40);
}

constexpr BinaryOp kFloatOps[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
                                  BinaryOp::Rem, BinaryOp::Eq,  BinaryOp::Ne,  BinaryOp::Lt,
                                  BinaryOp::Le,  BinaryOp::Gt,  BinaryOp::Ge};

template <class T>
ir::Value float_reference(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::Add:
      return ir::Value::of(static_cast<T>(a + b));
    case BinaryOp::Sub:
      return ir::Value::of(static_cast<T>(a - b));
    case BinaryOp::Mul:
      return ir::Value::of(static_cast<T>(a * b));
    case BinaryOp::Div:
      return ir::Value::of(static_cast<T>(a / b));
    case BinaryOp::Rem:
      return ir::Value::of(static_cast<T>(std::fmod(a, b)));
    case BinaryOp::Eq:
      return ir::Value::of(a == b);
    case BinaryOp::Ne:
      return ir::Value::of(a != b);
    case BinaryOp::Lt:
      return ir::Value::of(a < b);
    case BinaryOp::Le:
      return ir::Value::of(a <= b);
    case BinaryOp::Gt:
      return ir::Value::of(a > b);
    default:
      return ir::Value::of(a >= b);
  }
}

template <class T>
bool same_float(ir::Value expected, ir::Value actual) {
  const T e = expected.as<T>();
  const T a = actual.as<T>();
  if (std::isnan(e)) return std::isnan(a);
  return expected == actual;
}

// Within `ulps` units in the last place (libm's exp, log and pow are not
// required to be correctly rounded).
template <class T>
bool close_float(T expected, T actual, int ulps) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (expected == actual) return true;
  T x = expected;
  for (int i = 0; i < ulps; ++i) x = std::nextafter(x, actual);
  return x == actual;
}

// IEEE minNum/maxNum with -0 < +0 (std::fmin leaves the sign of zeros to libm).
template <class T>
T min_number(T a, T b) {
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return std::fmin(a, b);
}
template <class T>
T max_number(T a, T b) {
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return std::fmax(a, b);
}

template <class T>
void check_float_type(int opt) {
  const ir::Type type = ir::type_of<T>();
  SCOPED_TRACE(type.name());
  std::vector<ir::Function> functions;
  for (BinaryOp op : kFloatOps) functions.push_back(binary_function(op_name(op), op, type));
  functions.push_back(unary_function("neg", UnaryOp::Neg, type));
  const std::pair<const char*, MathOp> math_ops[] = {
      {"sqrt", MathOp::Sqrt}, {"fabs", MathOp::Fabs}, {"floor", MathOp::Floor},
      {"exp", MathOp::Exp},   {"log", MathOp::Log},   {"pow", MathOp::Pow},
      {"min", MathOp::Min},   {"max", MathOp::Max},   {"fma", MathOp::Fma}};
  for (auto [name, op] : math_ops) functions.push_back(math_function(name, op, type));
  auto code = compile_at(opt, module_of(std::move(functions)));

  const std::vector<T> values = sample_values<T>();
  for (T a : values) {
    const ir::Value va = ir::Value::of(a);
    EXPECT_EQ(invoke(*code, "neg", {{va}}), ir::Value::of(-a)) << a;
    EXPECT_TRUE(same_float<T>(ir::Value::of(std::sqrt(a)), invoke(*code, "sqrt", {{va}}))) << a;
    EXPECT_EQ(invoke(*code, "fabs", {{va}}), ir::Value::of(std::fabs(a))) << a;
    EXPECT_TRUE(same_float<T>(ir::Value::of(std::floor(a)), invoke(*code, "floor", {{va}}))) << a;
    EXPECT_TRUE(close_float(std::exp(a), invoke(*code, "exp", {{va}}).template as<T>(), 2)) << a;
    EXPECT_TRUE(close_float(std::log(a), invoke(*code, "log", {{va}}).template as<T>(), 2)) << a;
    for (T b : values) {
      const ir::Value args[] = {va, ir::Value::of(b)};
      for (BinaryOp op : kFloatOps) {
        EXPECT_TRUE(same_float<T>(float_reference(op, a, b), invoke(*code, op_name(op), args)))
            << a << " " << ir::name_of(op) << " " << b;
      }
      EXPECT_TRUE(close_float(std::pow(a, b), invoke(*code, "pow", args).template as<T>(), 2))
          << a << " pow " << b;
      EXPECT_TRUE(same_float<T>(ir::Value::of(min_number(a, b)), invoke(*code, "min", args)))
          << a << " min " << b;
      EXPECT_TRUE(same_float<T>(ir::Value::of(max_number(a, b)), invoke(*code, "max", args)))
          << a << " max " << b;
      const ir::Value fma_args[] = {va, ir::Value::of(b), ir::Value::of(static_cast<T>(0.1))};
      EXPECT_TRUE(same_float<T>(ir::Value::of(std::fma(a, b, static_cast<T>(0.1))),
                                invoke(*code, "fma", fma_args)))
          << a << " fma " << b;
    }
  }
}

TEST_P(AtOptLevel, FloatOperatorsFollowIeee) {
  check_float_type<float>(opt());
  check_float_type<double>(opt());
}

TEST_P(AtOptLevel, NoContractionIntoFma) {
  // a * b + c rounds twice; a contracted FMA would round once.
  ir::FunctionBuilder b("muladd", ir::Type::f64());
  ir::VarId x = b.param("x", ir::Type::f64());
  ir::VarId y = b.param("y", ir::Type::f64());
  ir::VarId z = b.param("z", ir::Type::f64());
  b.return_(ir::binary(BinaryOp::Add, ir::binary(BinaryOp::Mul, b.read(x), b.read(y)), b.read(z)));
  auto code = compile_at(opt(), module_of({std::move(b).finish()}));
  const double a = 1.0 + std::ldexp(1.0, -30);
  const double product = a * a;
  EXPECT_NE(product - 1.0, std::fma(a, a, -1.0));
  EXPECT_EQ(call_native<double>(*code, "muladd", a, a, -1.0), product - 1.0);
}

INSTANTIATE_TEST_SUITE_P(Jit, AtOptLevel, ::testing::Values(0, 2));

}  // namespace
}  // namespace augur::cpu::test
