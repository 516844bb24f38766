// Depth: staged programs as tall as a first stage can make them (a 100,000-deep
// expression, 100,000 straight-line statements, statements nested up to the
// IR's limit) extract, compile and run, on the calling thread and on smaller
// stacks; deeper nesting, and rules nested past the parser's limit, are
// refused with the limit named.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "jit/jit.h"
#include "tests/support/small_stack.h"

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

// e = x > i ? e : i, n times: a chain of `?:` n tall, nested in its first arm
// (the backend asks whether each level's arms may be evaluated eagerly).
jit::dyn<double> select_chain(jit::dyn<double> x, int n) {
  jit::dyn_expr<double> e(x);
  for (int i = 0; i < n; ++i) e = jit::select(x > double(i), e, double(i));
  return e;
}

double plain_select_chain(double x, int n) {
  double e = x;
  for (int i = 0; i < n; ++i) e = x > i ? e : i;
  return e;
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

// The backend cuts the chain into statements (docs/cpu.md, "Depth"); at O2,
// a fifth of kDeep keeps the test short.
TEST(Depth, AChainOfSelectsCompiles) {
  for (auto [level, n] : {std::pair{0, kDeep}, std::pair{2, kDeep / 5}}) {
    const jit::function<double(double)> f = jit::compile(at(level), select_chain, n);
    for (double x : {0.5, n / 2 + 0.5, n + 0.5})
      EXPECT_EQ(f(x), plain_select_chain(x, n)) << "O" << level << " x " << x;
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

// A dyn break out of a loop unrolled n times nests the rest of the program
// once per iteration: `if (a[0] == key) found = 0; else if (a[1] == key) ...`,
// statements n + 1 deep.
jit::dyn<int> first_match(jit::dyn<const int*> a, jit::dyn<int> key, int n) {
  jit::dyn<int> found = -1;
  for (jit::stat<int> i = 0; i < n; ++i) {
    if (a[i] == key) {
      found = i;
      break;
    }
  }
  found = found * 2;
  return found;
}

constexpr int kNestingLimit = 1000;  // ir::kMaxNesting

// Each key found, and one that is not.
void expect_finds_each(const jit::function<int(const int*, int)>& f, int n, int level) {
  std::vector<int> a(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i)] = 3 * i;
  for (int i : {0, 1, n / 2, n - 1}) EXPECT_EQ(f(a.data(), 3 * i), 2 * i) << "O" << level;
  EXPECT_EQ(f(a.data(), 1), -2) << "O" << level;
}

TEST(Depth, StatementsNestedToTheLimitCompileOnASmallStack) {
  const int n = kNestingLimit - 1;
  for (int level : {0, 2}) {
    augur::testing::on_small_stack(
        [&] { expect_finds_each(jit::compile(at(level), first_match, n), n, level); });
  }
}

TEST(Depth, StatementsNestedToTheLimitCompileOnTheBackgroundPool) {
  const int n = kNestingLimit - 2;
  for (int level : {0, 2}) {
    expect_finds_each(jit::compile_async(at(level), first_match, n).get(), n, level);
  }
}

TEST(Depth, StatementsNestedPastTheLimitAreAStagingError) {
  for (int n : {kNestingLimit, 3 * kNestingLimit}) {
    try {
      jit::compile(first_match, n);
      FAIL() << n << " iterations compiled";
    } catch (const jit::staging_error& e) {
      EXPECT_NE(e.message().find("more than 1000 deep"), std::string::npos) << e.what();
      EXPECT_NE(e.message().find("dyn loop"), std::string::npos) << e.what();
    }
  }
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
