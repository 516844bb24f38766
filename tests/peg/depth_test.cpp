// Depth and the PEG optimizer: a function deeper than kMaxPegDepth (a tall
// expression, or a long chain of statements, inside a loop) is kept as it is
// with the reason in its report; one just inside the limit is optimized on a
// thread with a 1 MiB stack (4 MiB under AddressSanitizer).
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <string>

#include "runtime/ir/builder.h"
#include "runtime/ir/verifier.h"
#include "runtime/peg/optimize.h"
#include "tests/support/small_stack.h"

namespace augur::peg {
namespace {

// fn f(x: f64, n: i32) -> f64: a loop of n iterations whose body is `chain`
// statements acc = acc * x, or (tall) one statement acc = acc + x + ... + x
// `chain` operators deep.
ir::Module looped(int chain, bool tall) {
  using namespace ir;
  FunctionBuilder b("f", Type::f64());
  const VarId x = b.param("x", Type::f64());
  const VarId n = b.param("n", Type::i32());
  const VarId acc = b.declare("acc", Type::f64(), constant(1.0));
  const VarId i = b.declare("i", Type::i32(), constant<std::int32_t>(0));
  b.while_(binary(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
    if (tall) {
      ExprPtr e = b.read(acc);
      for (int k = 0; k < chain; ++k) e = binary(BinaryOp::Add, e, b.read(x));
      b.assign(acc, e);
    } else {
      for (int k = 0; k < chain; ++k) b.assign(acc, binary(BinaryOp::Mul, b.read(acc), b.read(x)));
    }
    b.assign(i, binary(BinaryOp::Add, b.read(i), constant<std::int32_t>(1)));
  });
  b.return_(b.read(acc));
  Module m;
  m.functions.push_back(std::move(b).finish());
  return m;
}

// Whole functions, not regions: the depth is the function's.
PegOptions whole() {
  PegOptions options;
  options.region_nodes = 1'000'000;
  // Enough reversion work to reach the bottom of the PEG, and time nets no
  // machine reaches: a slow or loaded one must not decide the outcome.
  options.revert_work_base = 10'000'000;
  options.limits.time = std::chrono::seconds(60);
  return options;
}

TEST(PegDepth, ATallExpressionIsKeptWithTheReason) {
  const ir::Module m = looped(100'000, true);
  const PegResult r = optimize(m, whole());
  ASSERT_EQ(r.report.functions.size(), 1u);
  EXPECT_FALSE(r.report.functions[0].optimized);
  EXPECT_NE(r.report.functions[0].fallback.find("an expression 100001 deep"), std::string::npos)
      << r.report.functions[0].fallback;
  EXPECT_TRUE(r.module == m);
}

TEST(PegDepth, ALongChainOfStatementsIsKeptWithTheReason) {
  const ir::Module m = looped(100'000, false);
  const PegResult r = optimize(m, whole());
  ASSERT_EQ(r.report.functions.size(), 1u);
  EXPECT_FALSE(r.report.functions[0].optimized);
  EXPECT_NE(r.report.functions[0].fallback.find("limit of 1000"), std::string::npos)
      << r.report.functions[0].fallback;
  EXPECT_TRUE(r.module == m);
}

using augur::testing::on_small_stack;

TEST(PegDepth, DepthsJustInsideTheLimitAreOptimizedOnASmallStack) {
  for (const bool tall : {true, false}) {
    const ir::Module m = looped(900, tall);
    PegResult r;
    on_small_stack([&] { r = optimize(m, whole()); });
    ASSERT_EQ(r.report.functions.size(), 1u);
    EXPECT_TRUE(r.report.functions[0].optimized) << tall << ": " << r.report.functions[0].fallback;
    EXPECT_NO_THROW(ir::verify(r.module));
  }
}

}  // namespace
}  // namespace augur::peg
