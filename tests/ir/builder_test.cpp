#include <gtest/gtest.h>

#include "jit/error.h"
#include "runtime/ir/builder.h"

namespace augur::ir {
namespace {

TEST(Builder, ComputesResultTypes) {
  ExprPtr a = constant<std::int32_t>(3);
  ExprPtr b = constant<std::int32_t>(-4);
  EXPECT_EQ(binary(BinaryOp::Add, a, b)->type, Type::i32());
  EXPECT_EQ(binary(BinaryOp::Lt, a, b)->type, Type::bool_());
  EXPECT_EQ(cast(Type::f64(), a)->type, Type::f64());
  EXPECT_EQ(b->int_value(), -4);
  EXPECT_EQ(b->bits, 0xfffffffcu);
}

TEST(Builder, RejectsIllTypedOperands) {
  ExprPtr i = constant<std::int32_t>(1);
  ExprPtr f = constant(1.5f);
  EXPECT_THROW(binary(BinaryOp::Add, i, f), jit::verify_error);
  EXPECT_THROW(unary(UnaryOp::Not, i), jit::verify_error);
  EXPECT_THROW(load(i, i), jit::verify_error);
  EXPECT_THROW(math(MathOp::Sqrt, {i}), jit::verify_error);
  try {
    binary(BinaryOp::Shl, i, constant<std::int64_t>(2));
    FAIL() << "expected a type error";
  } catch (const jit::verify_error& e) {
    EXPECT_STREQ(e.what(), "operator '<<' needs operands of one type, got i32 and i64");
  }
}

TEST(Builder, BuildsStructuredFunctionsAndComparesStructurally) {
  auto build = [](std::int32_t k) {
    FunctionBuilder b("count", Type::i32());
    VarId n = b.param("n", Type::i32());
    VarId i = b.declare("i", Type::i32(), constant<std::int32_t>(0));
    b.while_(binary(BinaryOp::Lt, b.read(i), b.read(n)),
             [&] { b.assign(i, binary(BinaryOp::Add, b.read(i), constant<std::int32_t>(k))); });
    b.return_(b.read(i));
    return std::move(b).finish();
  };
  Function f = build(1);
  ASSERT_EQ(f.body.size(), 3u);
  EXPECT_EQ(f.body[1].kind, StmtKind::While);
  EXPECT_EQ(f.body[1].body.size(), 1u);
  EXPECT_EQ(f.params().size(), 1u);
  EXPECT_EQ(f, build(1));
  EXPECT_FALSE(f == build(2));
}

TEST(Builder, MakesLocalNamesUnique) {
  FunctionBuilder b("f", Type::void_());
  VarId x1 = b.declare("x", Type::i32());
  VarId x2 = b.declare("x", Type::i32());
  Function f = std::move(b).finish();
  EXPECT_EQ(f.var(x1).name, "x");
  EXPECT_EQ(f.var(x2).name, "x.1");
}

}  // namespace
}  // namespace augur::ir
