// A 100,000-deep expression through the IR's own passes: printer, content
// hash, verifier, structural equality and release (each walks on a stack of
// its own); the interpreter's lowering refuses it with a jit::error.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "jit/error.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/hash.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"

namespace augur::ir {
namespace {

constexpr int kDeep = 100'000;

// fn tall(x: f64) -> f64 { return x + 1.0 + ... + last; }
Module tall(double last) {
  FunctionBuilder b("tall", Type::f64());
  ExprPtr e = b.read(b.param("x", Type::f64()));
  for (int i = 1; i < kDeep; ++i) e = binary(BinaryOp::Add, e, constant(1.0));
  b.return_(binary(BinaryOp::Add, e, constant(last)));
  Module m;
  m.functions.push_back(std::move(b).finish());
  return m;
}

TEST(Depth, ATallExpressionPrints) {
  const std::string text = print(tall(1.0));
  EXPECT_EQ(std::count(text.begin(), text.end(), '+'), kDeep);
  EXPECT_EQ(text.rfind("fn tall(x: f64) -> f64 {\n  return x + 1.0f64 + 1.0f64", 0), 0u)
      << text.substr(0, 80);
}

TEST(Depth, ATallExpressionHashesAndComparesByContent) {
  EXPECT_EQ(content_hash(tall(1.0)), content_hash(tall(1.0)));
  EXPECT_NE(content_hash(tall(1.0)), content_hash(tall(2.0)));
  EXPECT_TRUE(tall(1.0) == tall(1.0));
  EXPECT_FALSE(tall(1.0) == tall(2.0));
}

TEST(Depth, ATallExpressionVerifies) {
  EXPECT_NO_THROW(verify(tall(1.0)));
}

// fn nested() -> i32 { var r = 0; if (true) { if (true) { ... r = 1; } } return r; },
// statements `depth` levels deep.
Module nested(std::size_t depth) {
  FunctionBuilder b("nested", Type::i32());
  const VarId r = b.declare("r", Type::i32(), constant(std::int32_t{0}));
  Block inner{Stmt::assign(r, constant(std::int32_t{1}))};
  for (std::size_t level = 1; level < depth; ++level) {
    Block outer;
    outer.push_back(Stmt::if_(constant(true), std::move(inner)));
    inner = std::move(outer);
  }
  for (Stmt& s : inner) b.emit(std::move(s));
  b.return_(b.read(r));
  Module m;
  m.functions.push_back(std::move(b).finish());
  return m;
}

TEST(Depth, StatementsNestedToTheLimitVerify) {
  EXPECT_NO_THROW(verify(nested(kMaxNesting)));
}

TEST(Depth, StatementsNestedPastTheLimitAreAVerifyError) {
  try {
    verify(nested(kMaxNesting + 1));
    FAIL() << "verified";
  } catch (const jit::verify_error& e) {
    EXPECT_NE(e.message().find("statements nest 1001 deep; the limit is 1000"), std::string::npos)
        << e.what();
  }
}

TEST(Depth, TheInterpreterRefusesATallExpression) {
  const Module m = tall(1.0);
  try {
    Interpreter interpreter(m, "tall");
    FAIL() << "lowered";
  } catch (const jit::error& e) {
    EXPECT_NE(e.message().find("limit is 1000"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace augur::ir
