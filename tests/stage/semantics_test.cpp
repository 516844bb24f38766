// dyn<T> operators, conversions, calls and intrinsics: each staged expression
// runs in the IR interpreter and must agree with the same C++ expression.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "jit/jit.h"
#include "support.h"

namespace augur::stage::testing {
namespace {

template <class F, class... S>
ir::Interpreter compile(F&& fn, S&&... statics) {
  const jit::extraction e = jit::extract(std::forward<F>(fn), std::forward<S>(statics)...);
  return interpreter(e);
}

template <class F>
ir::Type result_type(F&& fn) {
  return function_of(jit::extract(std::forward<F>(fn))).ret;
}

TEST(Semantics, IntegerPromotionAndUsualArithmeticConversions) {
  auto add8 = [](jit::dyn<std::int8_t> a, jit::dyn<std::int8_t> b) { return a + b; };
  EXPECT_EQ(result_type(add8), ir::Type::i32());
  auto mul_u8 = [](jit::dyn<std::uint8_t> a, jit::dyn<int> b) { return a * b; };
  auto fd = [](jit::dyn<float> a, jit::dyn<double> b) { return a * b; };
  EXPECT_EQ(result_type(fd), ir::Type::f64());
  auto ul = [](jit::dyn<unsigned> a, jit::dyn<long long> b) { return a - b; };
  EXPECT_EQ(result_type(ul), ir::Type::i64());

  const ir::Interpreter i_add8 = compile(add8);
  const ir::Interpreter i_mul = compile(mul_u8);
  const ir::Interpreter i_fd = compile(fd);
  const ir::Interpreter i_ul = compile(ul);
  std::mt19937 rng(11);
  for (int k = 0; k < 300; ++k) {
    const auto a8 = static_cast<std::int8_t>(rng()), b8 = static_cast<std::int8_t>(rng());
    EXPECT_EQ(run<int>(i_add8, a8, b8), a8 + b8);
    const auto u8 = static_cast<std::uint8_t>(rng());
    const int b = static_cast<int>(rng() % 20000) - 10000;
    EXPECT_EQ(run<int>(i_mul, u8, b), u8 * b);
    const float f = static_cast<float>(rng() % 1000) / 7.0f;
    const double d = static_cast<double>(rng() % 1000) / 3.0;
    EXPECT_EQ(run<double>(i_fd, f, d), f * d);
    const unsigned u = rng();
    const long long l = static_cast<long long>(rng()) - (1ll << 31);
    EXPECT_EQ(run<long long>(i_ul, u, l), u - l);
  }
}

TEST(Semantics, ComparisonsFollowCxxConversions) {
  // int vs unsigned compares as unsigned: -1 < 1u is false.
  auto lt = [](jit::dyn<int> a, jit::dyn<unsigned> b) { return a < b; };
  auto eq8 = [](jit::dyn<std::int8_t> a, jit::dyn<std::uint8_t> b) { return a == b; };
  auto fle = [](jit::dyn<float> a, jit::dyn<float> b) { return a <= b; };
  const ir::Interpreter i_lt = compile(lt);
  const ir::Interpreter i_eq8 = compile(eq8);
  const ir::Interpreter i_fle = compile(fle);
  EXPECT_FALSE(run<bool>(i_lt, -1, 1u));
  EXPECT_TRUE(run<bool>(i_lt, 1, 2u));
  EXPECT_FALSE(run<bool>(i_eq8, std::int8_t{-1}, std::uint8_t{255}));
  EXPECT_TRUE(run<bool>(i_eq8, std::int8_t{7}, std::uint8_t{7}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(run<bool>(i_fle, nan, 1.0f));
  EXPECT_TRUE(run<bool>(i_fle, 1.0f, 1.0f));
}

TEST(Semantics, DivisionShiftsAndBitOperations) {
  auto ops = [](jit::dyn<int> a, jit::dyn<int> b) {
    jit::dyn<int> r = a / b;
    r = r ^ (a % b);
    r = r + (~a & (b | 12));
    r = r + -a;
    return r;
  };
  auto shifts = [](jit::dyn<std::uint8_t> a, jit::dyn<int> s, jit::dyn<std::int64_t> w) {
    return (a << s) + (w >> s);
  };
  const ir::Interpreter i_ops = compile(ops);
  const ir::Interpreter i_shifts = compile(shifts);
  std::mt19937 rng(12);
  for (int k = 0; k < 300; ++k) {
    const int a = static_cast<int>(rng() % 200001) - 100000;
    int b = static_cast<int>(rng() % 2001) - 1000;
    if (b == 0) b = 3;
    int expected = a / b;
    expected = expected ^ (a % b);
    expected = expected + (~a & (b | 12));
    expected = expected + -a;
    EXPECT_EQ(run<int>(i_ops, a, b), expected) << a << " " << b;
    const auto u8 = static_cast<std::uint8_t>(rng());
    const int s = static_cast<int>(rng() % 24);
    const std::int64_t w = static_cast<std::int64_t>(rng()) * (rng() % 2 ? 1 : -1);
    EXPECT_EQ(run<std::int64_t>(i_shifts, u8, s, w), (u8 << s) + (w >> s));
  }
}

TEST(Semantics, CompoundAssignmentIncrementAndDecrement) {
  auto compound = [](jit::dyn<std::int8_t> x, jit::dyn<int> y) {
    x += 100;
    x *= y;
    x -= 3;
    x <<= 1;
    x |= 1;
    jit::dyn<int> post = x++;
    jit::dyn<int> pre = --x;
    return post * 1000 + pre;
  };
  const ir::Interpreter interp = compile(compound);
  for (int x0 = -128; x0 < 128; x0 += 7) {
    for (int y = -5; y <= 5; ++y) {
      std::int8_t x = static_cast<std::int8_t>(x0);
      x += 100;
      x *= y;
      x -= 3;
      x <<= 1;
      x |= 1;
      const int post = x++;
      const int pre = --x;
      EXPECT_EQ(run<int>(interp, static_cast<std::int8_t>(x0), y), post * 1000 + pre);
    }
  }
  auto floats = [](jit::dyn<double> d) {
    jit::dyn<double> old = d++;
    d /= 4.0;
    return old + d;
  };
  const ir::Interpreter i_floats = compile(floats);
  EXPECT_EQ(run<double>(i_floats, 2.5), 2.5 + 3.5 / 4.0);
}

TEST(Semantics, PointersLoadsAndStores) {
  auto shift_left = [](jit::dyn<int*> p, jit::dyn<std::int64_t> n) {
    jit::dyn<int*> q = p + 1;
    for (jit::dyn<std::int64_t> i = 0; i < n - 1; ++i) p[i] = q[i];
    *(p + (n - 1)) = 0;
    jit::dyn<int*> last = q + (n - 2);
    return *last + (last - 1)[std::uint8_t{0}];
  };
  const ir::Interpreter interp = compile(shift_left);
  std::array<int, 6> v{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(run<int>(interp, v.data(), std::int64_t{6}), 0 + 6);
  EXPECT_EQ(v, (std::array<int, 6>{2, 3, 4, 5, 6, 0}));
}

TEST(Semantics, LogicalOperatorsShortCircuitInTheStagedProgram) {
  auto positive_first = [](jit::dyn<const int*> p, jit::dyn<int> limit) {
    return (p != nullptr && p[0] > 0) || !(limit < 10);
  };
  const ir::Interpreter interp = compile(positive_first);
  const int one = 1, minus = -1;
  EXPECT_FALSE(run<bool>(interp, static_cast<const int*>(nullptr), 3));  // no load through null
  EXPECT_TRUE(run<bool>(interp, static_cast<const int*>(nullptr), 30));
  EXPECT_TRUE(run<bool>(interp, &one, 3));
  EXPECT_FALSE(run<bool>(interp, &minus, 3));
}

TEST(Semantics, PlainOperandsOfLogicalOperatorsAreDecidedNow) {
  auto guarded = [](jit::dyn<int> x, bool flag) {
    jit::dyn<int> r = 0;
    if (flag && x > 0) r = 1;
    if (x > 5 || flag) r = r + 2;
    return r;
  };
  const jit::extraction off = jit::extract(guarded, false);
  EXPECT_EQ(count_statements(function_of(off).body, ir::StmtKind::If), 1);
  EXPECT_EQ(off.report().control_flow_runs, 2u);
  const jit::extraction on = jit::extract(guarded, true);
  EXPECT_EQ(count_statements(function_of(on).body, ir::StmtKind::If), 1);
  for (int x = -2; x < 9; ++x) {
    EXPECT_EQ(run<int>(interpreter(off), x), x > 5 ? 2 : 0);
    EXPECT_EQ(run<int>(interpreter(on), x), (x > 0 ? 1 : 0) + 2);
  }
}

TEST(Semantics, CastsAndSelect) {
  auto casts = [](jit::dyn<float> f, jit::dyn<std::int64_t> l, jit::dyn<int> c) {
    jit::dyn<double> r = jit::cast<int>(f);
    r = r + jit::cast<double>(l);
    r = r + jit::cast<int>(jit::cast<bool>(f));
    return jit::select(c > 0, r, -r);
  };
  const ir::Interpreter interp = compile(casts);
  std::mt19937 rng(13);
  for (int k = 0; k < 200; ++k) {
    const float f = static_cast<float>(static_cast<int>(rng() % 20001) - 10000) / 9.0f;
    const std::int64_t l = static_cast<std::int64_t>(rng()) << 8;
    const int c = static_cast<int>(rng() % 3) - 1;
    double r = static_cast<int>(f);
    r = r + static_cast<double>(l);
    r = r + static_cast<int>(static_cast<bool>(f));
    EXPECT_EQ(run<double>(interp, f, l, c), c > 0 ? r : -r);
  }
  // IR float-to-integer casts saturate (docs/ir.md).
  auto saturate = [](jit::dyn<double> d) { return jit::cast<std::int8_t>(d); };
  EXPECT_EQ(run<std::int8_t>(compile(saturate), 1e9), 127);
}

TEST(Semantics, MathIntrinsics) {
  auto math = [](jit::dyn<double> x, jit::dyn<float> y, jit::dyn<int> n) {
    jit::dyn<double> r =
        jit::sqrt(jit::fabs(x)) + jit::floor(x) + jit::exp(y) + jit::log(jit::fabs(x) + 1.0);
    r = r + jit::pow(y, 2.0f) + jit::sqrt(n * n);
    r = r + jit::min(x, 0.5) + jit::max(n, 3) + jit::fma(x, y, 1.0);
    return r;
  };
  const ir::Interpreter interp = compile(math);
  std::mt19937 rng(14);
  std::uniform_real_distribution<double> value(-4.0, 4.0);
  for (int k = 0; k < 200; ++k) {
    const double x = value(rng);
    const float y = static_cast<float>(value(rng));
    const int n = static_cast<int>(rng() % 21) - 10;
    double r = std::sqrt(std::fabs(x)) + std::floor(x) + static_cast<double>(std::exp(y)) +
               std::log(std::fabs(x) + 1.0);
    r = r + static_cast<double>(std::pow(y, 2.0f)) + std::sqrt(static_cast<double>(n * n));
    r = r + std::min(x, 0.5) + std::max(n, 3) + std::fma(x, static_cast<double>(y), 1.0);
    EXPECT_NEAR(run<double>(interp, x, y, n), r, 1e-9 * (1 + std::fabs(r)));
  }
}

TEST(Semantics, StaticValuesAreConstants) {
  auto scaled = [](jit::dyn<int> x, int k) {
    jit::stat<int> twice = 2 * k;
    return x * twice + k;
  };
  const jit::extraction e = jit::extract(scaled, 7);
  EXPECT_NE(e.ir().find("14i32"), std::string::npos);
  EXPECT_EQ(run<int>(interpreter(e), 5), 5 * 14 + 7);
}

TEST(Semantics, GeneratorSignatures) {
  // A dyn parameter by reference, statics by const reference and by value,
  // and a plain result (a constant of the IR function).
  auto generator = [](jit::dyn<int*> out, jit::dyn<int>& x, const std::vector<int>& table,
                      int scale) {
    for (jit::stat<std::size_t> i = 0; i < table.size(); ++i) x = x + table[i] * scale;
    out[0] = x;
    return 7;
  };
  const jit::extraction e = jit::extract(generator, std::vector<int>{1, 2, 3}, 10);
  EXPECT_EQ(function_of(e).ret, ir::Type::i32());
  int out = 0;
  EXPECT_EQ(run<int>(interpreter(e), &out, 5), 7);
  EXPECT_EQ(out, 5 + 60);
}

TEST(Semantics, ConditionsOnNonBoolValuesTestAgainstZero) {
  auto truthy = [](jit::dyn<int> x, jit::dyn<double*> p) {
    jit::dyn<int> r = 0;
    if (x) r = r + 1;
    if (p) r = r + 10;
    if (!x) r = r + 100;
    return r;
  };
  const ir::Interpreter interp = compile(truthy);
  double d = 0;
  EXPECT_EQ(run<int>(interp, 3, &d), 11);
  EXPECT_EQ(run<int>(interp, 0, static_cast<double*>(nullptr)), 100);
}

// ---------------------------------------------------------------- external functions

int g_effects = 0;
double twice(double x) {
  return 2 * x;
}
int bump(int by) {
  g_effects += by;
  return g_effects;
}
void record(std::int64_t v) {
  g_effects = static_cast<int>(v);
}

TEST(Semantics, ExternalCallsByEffect) {
  const auto twice_fn = jit::register_external("test_twice", &twice, jit::effect::pure);
  const auto bump_fn = jit::register_external("test_bump", &bump, jit::effect::effectful);
  const auto record_fn = jit::register_external("test_record", &record, jit::effect::effectful);
  auto program = [&](jit::dyn<float> x, jit::dyn<int> n) {
    jit::dyn<double> y = twice_fn(x);  // float converted to the double parameter
    auto b = bump_fn(n);               // effectful: made into a variable at once
    jit::dyn<int> both = b + b;        // ... so using it twice calls once
    record_fn(both);                   // a statement
    return y + both;
  };
  const jit::extraction e = jit::extract(program);
  EXPECT_EQ(count_calls(function_of(e), "test_bump"), 1);
  EXPECT_EQ(count_calls(function_of(e), "test_record"), 1);
  EXPECT_EQ(module_of(e).externs.size(), 3u);
  const ir::Interpreter interp = interpreter(e);
  g_effects = 5;
  EXPECT_EQ(run<double>(interp, 1.5f, 2), 3.0 + 14);
  EXPECT_EQ(g_effects, 14);

  // The same name again with the same function is fine; with another is not.
  EXPECT_NO_THROW(jit::register_external("test_twice", &twice, jit::effect::pure));
  EXPECT_THROW(jit::register_external("test_twice", &bump, jit::effect::pure), jit::staging_error);
}

}  // namespace
}  // namespace augur::stage::testing
