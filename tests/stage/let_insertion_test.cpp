// Let-insertion (runtime/stage/let_insertion.h): a statement's shared
// subexpressions are bound once, so `acc = acc + acc` n times costs O(n)
// IR; bindings never move an evaluation past laziness or an effect.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "jit/jit.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/stage/finalize.h"
#include "runtime/stage/let_insertion.h"
#include "support.h"
#include "tests/peg/peg_check.h"
#include "tests/support/random_program.h"

namespace augur::stage::testing {
namespace {

using ir::BinaryOp;
using ir::ExprPtr;
using ir::Type;

// acc = acc + acc, n times, on a dyn_expr: a DAG of n + 1 nodes standing for
// a tree of 2^n leaves.
jit::dyn<double> doubled(jit::dyn<double> x, int n) {
  jit::dyn_expr<double> acc = x + 0;
  for (int i = 0; i < n; ++i) acc = acc + acc;
  return acc;
}

jit::compile_options at(int opt_level) {
  jit::compile_options options;
  options.opt_level = opt_level;
  return options;
}

int decls(const jit::extraction& e) {
  return count_statements(function_of(e).body, ir::StmtKind::Decl);
}

TEST(LetInsertion, DoublingTwentyFourTimesIsLinearIR) {
  const jit::extraction e = jit::extract(doubled, 24);
  // As a tree this printed 285 MB in 5 s.
  EXPECT_LT(e.ir().size(), 10'000u) << e.ir();
  // x + 0.0 and 23 sums bound; the last is the result's variable.
  EXPECT_EQ(decls(e), 25);
  // The report counts the graph: one node per binding and its two reads.
  EXPECT_LT(e.report().ir_expression_nodes, 100u);
  EXPECT_EQ(run<double>(interpreter(e), 3.0), 3.0 * std::ldexp(1.0, 24));
}

TEST(LetInsertion, DoublingTwentyFourTimesCompilesAtO0AndO2) {
  for (int level : {0, 2}) {
    const jit::function<double(double)> f = jit::compile(at(level), doubled, 24);
    EXPECT_EQ(f(3.0), 3.0 * std::ldexp(1.0, 24)) << "O" << level;
    ASSERT_NE(f.stage_report(), nullptr);
    EXPECT_LT(f.stage_report()->ir_expression_nodes, 100u);
  }
}

TEST(LetInsertion, DoublingCompilesOnTheBackgroundPool) {
  for (int level : {0, 2}) {
    const jit::function<double(double)> f = jit::compile_async(at(level), doubled, 25).get();
    EXPECT_EQ(f(-1.5), -1.5 * std::ldexp(1.0, 25)) << "O" << level;
  }
}

TEST(LetInsertion, ATreeOfTwoToTheSixtyLeavesExtracts) {
  const jit::extraction e = jit::extract(doubled, 60);
  EXPECT_LT(e.ir().size(), 25'000u);
  EXPECT_EQ(run<double>(interpreter(e), 0.75), 0.75 * std::ldexp(1.0, 60));
}

// e = e * 0.5 + e * 0.25, 100,000 times: tall and shared at every level.
jit::dyn<double> tall_and_shared(jit::dyn<double> x, int n) {
  jit::dyn_expr<double> e = x + 0;
  for (int i = 0; i < n; ++i) e = e * 0.5 + e * 0.5;
  return e;
}

TEST(LetInsertion, ATallSharedExpressionExtractsAndRuns) {
  constexpr int kDeep = 100'000;
  const jit::extraction e = jit::extract(tall_and_shared, kDeep);
  EXPECT_EQ(decls(e), kDeep + 1);  // e * 0.5 at each level, and the result
  EXPECT_EQ(run<double>(interpreter(e), 1.25), 1.25);
  const jit::function<double(double)> f = jit::compile(at(0), tall_and_shared, kDeep);
  EXPECT_EQ(f(1.25), 1.25);
}

// A dyn_expr reads its variables where it is used: bindings stay within one
// statement, never carried to the next.
jit::dyn<int> reads_at_use(jit::dyn<int> x) {
  jit::dyn_expr<int> square = x * x;
  jit::dyn<int> before = square + square;
  x = 3;
  jit::dyn<int> after = square + square;
  return before * 100 + after;
}

TEST(LetInsertion, BindsWithinOneStatementOnly) {
  const jit::extraction e = jit::extract(reads_at_use);
  EXPECT_EQ(decls(e), 5);  // before, after, the result, and x * x bound in each
  EXPECT_EQ(run<int>(interpreter(e), 2), 8 * 100 + 18);
  const jit::function<int(int)> f = jit::compile(reads_at_use);
  EXPECT_EQ(f(2), 8 * 100 + 18);
}

// p[0] + p[0] only where p is not null: the load must not be hoisted out of
// the select arm or the right operand of &&.
jit::dyn<int> guarded_load(jit::dyn<const int*> p) {
  const jit::dyn_expr<int> v(p[0]);
  jit::dyn<int> sum = jit::select(p != nullptr, v + v, -1);
  jit::dyn<bool> big = p != nullptr && v * v > 10;
  return sum * 2 + jit::cast<int>(big);
}

TEST(LetInsertion, ALazyLoadIsNotHoisted) {
  const jit::extraction e = jit::extract(guarded_load);
  const ir::Interpreter interp = interpreter(e);
  const int four = 4;
  EXPECT_EQ(run<int>(interp, static_cast<const int*>(nullptr)), -2);
  EXPECT_EQ(run<int>(interp, &four), 17);
  for (int level : {0, 2}) {
    const jit::function<int(const int*)> f = jit::compile(at(level), guarded_load);
    EXPECT_EQ(f(nullptr), -2) << "O" << level;
    EXPECT_EQ(f(&four), 17) << "O" << level;
  }
}

// A shared node that cannot trap is evaluated early even under a lazy arm.
jit::dyn<int> guarded_product(jit::dyn<int> x, jit::dyn<int> y, jit::dyn<bool> c) {
  jit::dyn_expr<int> product = x * y;
  return jit::select(c, product + product, 0);
}

TEST(LetInsertion, AHarmlessLazyNodeIsBound) {
  const jit::extraction e = jit::extract(guarded_product);
  EXPECT_EQ(decls(e), 2) << e.ir();  // the product, and the result
  const ir::Interpreter interp = interpreter(e);
  EXPECT_EQ(run<int>(interp, 3, 4, true), 24);
  EXPECT_EQ(run<int>(interp, 3, 4, false), 0);
}

// The loop's condition is evaluated on every iteration, bindings included.
jit::dyn<int> climb(jit::dyn<int> x, jit::dyn<int> limit) {
  jit::dyn_expr<int> square = x * x;
  while (square + square < limit) x = x + 1;
  return x;
}

int plain_climb(int x, int limit) {
  while (2 * x * x < limit) ++x;
  return x;
}

TEST(LetInsertion, AWhileConditionIsBoundInsideTheLoop) {
  const jit::extraction e = jit::extract(climb);
  EXPECT_EQ(count_statements(function_of(e).body, ir::StmtKind::Break), 1) << e.ir();
  const ir::Interpreter interp = interpreter(e);
  const jit::function<int(int, int)> f = jit::compile(climb);
  for (int x : {0, 1, 5}) {
    for (int limit : {-1, 0, 1, 50, 1000}) {
      EXPECT_EQ(run<int>(interp, x, limit), plain_climb(x, limit)) << x << " " << limit;
      EXPECT_EQ(f(x, limit), plain_climb(x, limit)) << x << " " << limit;
    }
  }
}

// ---------------------------------------------------------------- on IR

std::int64_t run_function(const ir::Function& fn, std::vector<ir::Value> args) {
  ir::Module m;
  m.functions.push_back(fn);
  return ir::Interpreter(m, fn.name).run(args).as<std::int64_t>();
}

ExprPtr add(ExprPtr a, ExprPtr b) {
  return ir::binary(BinaryOp::Add, std::move(a), std::move(b));
}
ExprPtr mul(ExprPtr a, ExprPtr b) {
  return ir::binary(BinaryOp::Mul, std::move(a), std::move(b));
}

// for (i = 0; (i*i) + (i*i) < n; i = i + 1) { if (i == 2) continue; s = s + i; }
ir::Function for_loop_with_continue() {
  ir::FunctionBuilder b("f", Type::i64());
  const ir::VarId n = b.param("n", Type::i64());
  const ir::VarId s = b.declare("s", Type::i64(), ir::constant<std::int64_t>(0));
  const ir::VarId i = b.new_local("i", Type::i64());
  const ExprPtr square = mul(b.read(i), b.read(i));
  b.for_([&] { b.emit(ir::Stmt::decl(i, ir::constant<std::int64_t>(0))); },
         ir::binary(BinaryOp::Lt, add(square, square), b.read(n)),
         [&] { b.assign(i, add(b.read(i), ir::constant<std::int64_t>(1))); },
         [&] {
           b.if_(ir::binary(BinaryOp::Eq, b.read(i), ir::constant<std::int64_t>(2)),
                 [&] { b.continue_(); });
           b.assign(s, add(b.read(s), b.read(i)));
         });
  b.return_(b.read(s));
  return std::move(b).finish();
}

TEST(LetInsertionOnIR, AForConditionKeepsContinueRunningTheStep) {
  const ir::Function before = for_loop_with_continue();
  ir::Function after = before;
  insert_lets(after);
  EXPECT_EQ(after.vars.size(), before.vars.size() + 1);
  finalize(after, {"n"});  // names the new local
  ir::Module m;
  m.functions.push_back(after);
  ASSERT_NO_THROW(ir::verify(m)) << ir::print(m);
  for (std::int64_t n : {0, 1, 3, 9, 50, 200}) {
    EXPECT_EQ(run_function(after, {ir::Value::of(n)}), run_function(before, {ir::Value::of(n)}))
        << n;
  }
}

// An effectful call and a shared load in one statement: the load keeps its
// place after the call (which may write what it reads); pure arithmetic is
// bound.
TEST(LetInsertionOnIR, NothingThatReadsMovesAheadOfAnEffect) {
  ir::Module m;
  const ir::ExternRef effect = m.declare_extern(
      {"poke", Type::i64(), {Type::pointer_to(ir::Scalar::I64)}, ir::Effect::Effectful});
  ir::FunctionBuilder b("f", Type::i64());
  const ir::VarId p = b.param("p", Type::pointer_to(ir::Scalar::I64));
  const ir::VarId x = b.param("x", Type::i64());
  const ExprPtr loaded = ir::load(b.read(p), ir::constant<std::int64_t>(0));
  const ExprPtr square = mul(b.read(x), b.read(x));
  b.return_(add(add(ir::call(effect, {b.read(p)}), add(loaded, loaded)), add(square, square)));
  ir::Function fn = std::move(b).finish();
  insert_lets(fn);
  ASSERT_EQ(fn.body.size(), 2u);  // the square's binding, then the return
  EXPECT_EQ(fn.body[0].kind, ir::StmtKind::Decl);
  EXPECT_TRUE(ir::same_expr(fn.body[0].expr, square));
}

TEST(LetInsertionOnIR, AtomicsAndEffectfulCallsAreNeverBound) {
  ir::Module m;
  const ir::ExternRef effect = m.declare_extern({"tick", Type::i64(), {}, ir::Effect::Effectful});
  const ir::ExternRef pure =
      m.declare_extern({"twice", Type::i64(), {Type::i64()}, ir::Effect::Pure});
  ir::FunctionBuilder b("f", Type::i64());
  const ir::VarId x = b.param("x", Type::i64());
  const ExprPtr tick = ir::call(effect, {});
  const ExprPtr twice = ir::call(pure, {b.read(x)});
  b.return_(add(add(tick, tick), add(twice, twice)));
  ir::Function fn = std::move(b).finish();
  insert_lets(fn);
  ASSERT_EQ(fn.body.size(), 2u);  // only the pure call is bound
  EXPECT_TRUE(ir::same_expr(fn.body[0].expr, twice));
}

TEST(LetInsertionOnIR, LeavesAndUnsharedNodesStayPut) {
  ir::FunctionBuilder b("f", Type::i64());
  const ir::VarId x = b.param("x", Type::i64());
  b.return_(add(mul(b.read(x), b.read(x)), b.read(x)));
  ir::Function fn = std::move(b).finish();
  const ir::Function before = fn;
  insert_lets(fn);
  EXPECT_EQ(fn, before);
}

// ---------------------------------------------------------------- random programs

// r used three times: (r ^ r) ^ r, r && (r || r), r == r ? r : r. The tree
// means three evaluations (of r's calls too); let-insertion must keep that
// meaning, laziness and effects included.
ExprPtr triple(const ExprPtr& r) {
  if (r->type.is_integer()) {
    return ir::binary(BinaryOp::BitXor, ir::binary(BinaryOp::BitXor, r, r), r);
  }
  if (r->type.is_bool()) return ir::binary(BinaryOp::And, r, ir::binary(BinaryOp::Or, r, r));
  if (r->type.is_float()) return ir::select(ir::binary(BinaryOp::Eq, r, r), r, r);
  return r;
}

void triple_every_root(ir::Block& block) {
  for (ir::Stmt& s : block) {
    for (ExprPtr* e : {&s.expr, &s.index}) {
      if (*e && (*e)->kind != ir::ExprKind::Const && (*e)->kind != ir::ExprKind::Var) {
        *e = triple(*e);
      }
    }
    for (ir::Block* inner : {&s.body, &s.orelse, &s.init}) triple_every_root(*inner);
  }
}

TEST(LetInsertionDifferential, RandomProgramsWithSharedRootsAgreeWithTheirTrees) {
  int bound_somewhere = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    augur::testing::RandomProgramOptions o;
    o.seed = seed;
    const augur::testing::RandomProgram p = augur::testing::random_program(o);
    ir::Module trees = p.module;
    ir::Function& fn = trees.functions.front();
    triple_every_root(fn.body);
    ir::Module bound = trees;
    ir::Function& after = bound.functions.front();
    const std::size_t vars = after.vars.size();
    insert_lets(after);
    bound_somewhere += after.vars.size() > vars ? 1 : 0;
    std::vector<std::string> names;
    for (const ir::Variable& v : after.params()) names.push_back(v.name);
    finalize(after, names);
    ASSERT_NO_THROW(ir::verify(bound)) << "seed " << seed << "\n" << ir::print(bound);
    const std::string diff = peg::test::compare_on_random_inputs(
        trees, bound, p.entry, p.params, p.externs, seed, 4, p.inexact_math ? 4 : 0);
    ASSERT_TRUE(diff.empty()) << "seed " << seed << ": " << diff << "\ntrees:\n"
                              << ir::print(trees) << "bound:\n"
                              << ir::print(bound);
  }
  EXPECT_GT(bound_somewhere, 150);
}

}  // namespace
}  // namespace augur::stage::testing
