// Depth: staged programs as tall as a first stage can make them (a 100,000-deep
// expression, 100,000 straight-line statements) extract, compile and run, on
// the calling thread and on the TBB pool's smaller stacks; rules nested past
// the parser's limit are refused at registration.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "jit/jit.h"

namespace {

constexpr int kDeep = 100'000;

// e + 1 + 1 + ... : one expression kDeep operators tall.
jit::dyn<double> tall_expression(jit::dyn<double> x, int n) {
  jit::dyn_expr<double> e(x);
  for (int i = 0; i < n; ++i) e = e + 1.0;
  return e;
}

// acc = acc + x in a plain C++ loop: a tall expression with a leaf at every level.
jit::dyn<double> accumulate(jit::dyn<double> x, int n) {
  jit::dyn_expr<double> acc(x);
  for (int i = 1; i < n; ++i) acc = acc + x;
  return acc;
}

// r = r * x in a stat loop: n statements, each using the one before.
jit::dyn<double> straight_line(jit::dyn<double> x, int n) {
  jit::dyn<double> r = 1.0;
  for (jit::stat<int> i = 0; i < n; ++i) r = r * x;
  return r;
}

double plain_power(double x, int n) {
  double r = 1.0;
  for (int i = 0; i < n; ++i) r *= x;
  return r;
}

jit::compile_options at(int opt_level) {
  jit::compile_options options;
  options.opt_level = opt_level;
  return options;
}

TEST(Depth, ATallExpressionExtracts) {
  const jit::extraction e = jit::extract(tall_expression, kDeep);
  EXPECT_GE(e.report().ir_statements, 1u);
}

TEST(Depth, ATallExpressionCompilesAndRunsAtO0AndO2) {
  for (int level : {0, 2}) {
    const jit::function<double(double)> f = jit::compile(at(level), tall_expression, kDeep);
    EXPECT_EQ(f(0.5), 0.5 + kDeep) << "O" << level;
  }
}

TEST(Depth, ATallExpressionCompilesOnTheBackgroundPool) {
  for (int level : {0, 2}) {
    const jit::function<double(double)> f =
        jit::compile_async(at(level), tall_expression, kDeep + 1).get();
    EXPECT_EQ(f(0.5), 0.5 + kDeep + 1) << "O" << level;
  }
}

TEST(Depth, AnAccumulationInAPlainLoopCompiles) {
  constexpr int n = 60'000;
  for (int level : {0, 2}) {
    const jit::function<double(double)> f = jit::compile(at(level), accumulate, n);
    EXPECT_EQ(f(0.5), 0.5 * n) << "O" << level;
  }
}

TEST(Depth, StraightLineStatementsCompileAtO2) {
  const jit::function<double(double)> f = jit::compile(at(2), straight_line, kDeep);
  EXPECT_EQ(f(1.0001), plain_power(1.0001, kDeep));
}

TEST(Depth, StraightLineStatementsCompileOnTheBackgroundPool) {
  const jit::function<double(double)> f = jit::compile_async(at(2), straight_line, kDeep + 1).get();
  EXPECT_EQ(f(1.0001), plain_power(1.0001, kDeep + 1));
}

// (neg.f64 (neg.f64 ... ?a)) => ?a, `depth` operators deep.
std::string nested_rule(int depth) {
  std::string lhs;
  for (int i = 0; i < depth; ++i) lhs += "(neg.f64 ";
  lhs += "?a";
  lhs.append(static_cast<std::size_t>(depth), ')');
  return lhs + " => ?a";
}

TEST(Depth, ARuleNestedPastTheLimitIsAParseError) {
  try {
    jit::register_rule("too-deep", nested_rule(30'000));
    FAIL() << "registered";
  } catch (const jit::parse_error& e) {
    EXPECT_NE(e.message().find("too-deep"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("1000"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(jit::unregister_rule("too-deep"));
}

jit::dyn<double> negate_twice(jit::dyn<double> x, int k) {
  return -(-x) + static_cast<double>(k);
}

TEST(Depth, ARuleNestedJustInsideTheLimitWorksOnTheBackgroundPool) {
  jit::register_rule("deep-but-fine", nested_rule(900));
  const jit::function<double(double)> f = jit::compile_async(at(2), negate_twice, 7).get();
  jit::unregister_rule("deep-but-fine");
  EXPECT_EQ(f(2.5), 9.5);
}

}  // namespace
