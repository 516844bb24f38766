// Tall expressions cut into statements before code generation
// (jit/cpu/tall_expressions.h): a tall chain becomes declarations of bounded
// size that compute what the interpreter does, at O0 and O2 and split; an
// operand of `?:` that may trap stays where it is, and a statement with a
// call stays whole.
#include <cstdint>
#include <string>
#include <vector>

#include "jit/cpu/tall_expressions.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/verifier.h"
#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

using namespace ir;

constexpr std::size_t kMaxNodes = 200;

// return e, where e = x > i ? e : i, `levels` times over e = x.
Module select_chain(int levels) {
  FunctionBuilder b("chain", Type::f64());
  const VarId x = b.param("x", Type::f64());
  ExprPtr e = b.read(x);
  for (int i = 0; i < levels; ++i) {
    e = select(binary(BinaryOp::Gt, b.read(x), constant(double(i))), e, constant(double(i)));
  }
  b.return_(e);
  return module_of({std::move(b).finish()});
}

double plain_select_chain(double x, int levels) {
  double e = x;
  for (int i = 0; i < levels; ++i) e = x > i ? e : i;
  return e;
}

std::size_t tree_nodes(const ExprPtr& e) {
  if (!e) return 0;
  std::size_t n = 1;
  for (const ExprPtr& a : e->args) n += tree_nodes(a);
  return n;
}

Options split_at(int opt_level) {
  Options options;
  options.opt_level = opt_level;
  options.split_nodes = kMaxNodes;
  options.verify = true;
  return options;
}

TEST(TallExpressions, AChainIsCutIntoBoundedDeclarations) {
  constexpr int kLevels = 900;  // the interpreter takes expressions up to 1,000 deep
  const Module module = select_chain(kLevels);
  const std::optional<Module> cut = cut_tall_expressions(module, kMaxNodes);
  ASSERT_TRUE(cut.has_value());
  verify(*cut);
  const Block& body = cut->functions.front().body;
  EXPECT_GE(body.size(), 4u * kLevels / kMaxNodes);
  for (const Stmt& s : body) EXPECT_LE(tree_nodes(s.expr), kMaxNodes);

  const Interpreter interpreter(module, "chain");
  const Interpreter interpret_cut(*cut, "chain");
  for (int level : {0, 2}) {
    const auto code = compile(module, {}, split_at(level));
    for (double x : {0.5, kLevels / 2 + 0.5, kLevels + 0.5}) {
      const double want = plain_select_chain(x, kLevels);
      const std::vector<Value> args{Value::of(x)};
      EXPECT_EQ(interpreter.run(args).as<double>(), want);
      EXPECT_EQ(interpret_cut.run(args).as<double>(), want);
      EXPECT_EQ(call_native<double>(*code, "chain", x), want) << "O" << level << " x " << x;
    }
  }
}

// return n > 0 ? p[0] + p[1] + ... : 0: the loads may trap (p is null when
// n is 0), so the arm is evaluated in the statement or not at all.
TEST(TallExpressions, AnOperandThatMayTrapStaysInItsBranch) {
  constexpr int kTerms = 1000;
  FunctionBuilder b("sum", Type::i64());
  const VarId p = b.param("p", Type::pointer_to(Scalar::I64));
  const VarId n = b.param("n", Type::i64());
  ExprPtr sum = load(b.read(p), constant<std::uint64_t>(0));
  for (int i = 1; i < kTerms; ++i)
    sum = binary(BinaryOp::Add, sum,
                 load(b.read(p), constant<std::uint64_t>(static_cast<std::uint64_t>(i % 8))));
  b.return_(select(binary(BinaryOp::Gt, b.read(n), constant<std::int64_t>(0)), sum,
                   constant<std::int64_t>(0)));
  const Module module = module_of({std::move(b).finish()});
  EXPECT_FALSE(cut_tall_expressions(module, kMaxNodes).has_value());

  std::vector<std::int64_t> cells(8);
  for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<std::int64_t>(i + 1);
  std::int64_t want = 0;
  for (int i = 0; i < kTerms; ++i) want += cells[static_cast<std::size_t>(i % 8)];
  for (int level : {0, 2}) {
    const auto code = compile(module, {}, split_at(level));
    EXPECT_EQ((call_native<std::int64_t>(*code, "sum", static_cast<std::int64_t*>(nullptr),
                                         std::int64_t{0})),
              0);
    EXPECT_EQ((call_native<std::int64_t>(*code, "sum", cells.data(), std::int64_t{1})), want);
  }
}

// Binding a piece before the statement would move it across the call.
TEST(TallExpressions, AStatementWithACallStaysWhole) {
  Module module = select_chain(kMaxNodes);
  const ExternRef tick =
      module.declare_extern(ExternFn{"tick", Type::f64(), {Type::f64()}, Effect::Effectful});
  Stmt& ret = module.functions.front().body.back();
  ret.expr = binary(BinaryOp::Add, ret.expr, call(tick, {constant(1.0)}));
  verify(module);
  EXPECT_FALSE(cut_tall_expressions(module, kMaxNodes).has_value());
}

}  // namespace
}  // namespace augur::cpu::test
