// The IR's walks (runtime/ir/visit.h): a fold costs the DAG, not its tree,
// as its folder's Remember says; counting stops at its cap on a DAG that
// stands for an exponential tree; a statement walk stops when asked and
// says which loops and statements are around each statement; a
// renamer renames what changes and shares the rest.
#include <gtest/gtest.h>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/ir/visit.h"

namespace augur::ir {
namespace {

// acc + acc, `levels` times over: `levels` + 1 nodes standing for a tree of
// 2^(levels + 1) - 1.
ExprPtr doubling(int levels) {
  ExprPtr acc = read(VarId{0}, Type::i64());
  for (int i = 0; i < levels; ++i) acc = binary(BinaryOp::Add, acc, acc);
  return acc;
}

Block returning(ExprPtr e) {
  Block b;
  b.push_back(Stmt::return_(std::move(e)));
  return b;
}

// How many times the folder's function runs on one fold of `root`.
std::size_t calls(ExprFolder<std::size_t>& folder, const ExprPtr& root) {
  std::size_t n = 0;
  folder.fold(root, [&](const ExprPtr&, std::span<std::size_t>) { return ++n; });
  return n;
}

TEST(Visit, AFolderRemembersWhatItsModeSays) {
  using Remember = ExprFolder<std::size_t>::Remember;
  const ExprPtr x = read(VarId{0}, Type::i64());
  const ExprPtr shared = binary(BinaryOp::Mul, x, x);
  const ExprPtr root = binary(BinaryOp::Add, shared, shared);  // 3 nodes, a tree of 7

  ExprFolder<std::size_t> shared_nodes(Remember::shared_nodes);
  EXPECT_EQ(calls(shared_nodes, root), 3u);
  EXPECT_EQ(calls(shared_nodes, root), 1u);  // `root` has owners here and in the folder's frame

  ExprFolder<std::size_t> every_node(Remember::every_node);
  const ExprPtr alone = binary(BinaryOp::Sub, binary(BinaryOp::Sub, x, x), x);
  EXPECT_EQ(calls(every_node, alone->args[0]), 2u);  // x once
  EXPECT_EQ(calls(every_node, alone), 1u);           // both operands were folded before
}

TEST(Visit, AFoldGivesEachNodeItsArgumentsResultsInOrder) {
  ExprFolder<std::size_t> folder(ExprFolder<std::size_t>::Remember::shared_nodes);
  // x - 1 - 2: the leaves give their own 1s and 2s, the subtractions concatenate.
  const ExprPtr e = binary(
      BinaryOp::Sub, binary(BinaryOp::Sub, read(VarId{0}, Type::i64()), constant(std::int64_t{1})),
      constant(std::int64_t{2}));
  const std::size_t digits = folder.fold(e, [](const ExprPtr& n, std::span<std::size_t> args) {
    if (n->kind == ExprKind::Const) return static_cast<std::size_t>(n->bits);
    if (n->kind == ExprKind::Var) return std::size_t{9};
    return args[0] * 10 + args[1];
  });
  EXPECT_EQ(digits, 912u);
}

TEST(Visit, ExpressionDepthOfADagCostsItsNodes) {
  // A tree walk of 2^61 nodes would never end.
  EXPECT_EQ(expr_depth(returning(doubling(60))), 61u);
  EXPECT_EQ(expr_depth(Block{}), 0u);
}

TEST(Visit, NodeCountCountsEveryUseAndStopsPastItsCap) {
  EXPECT_EQ(node_count(returning(doubling(3))), 1u + 15u);  // the return and a tree of 15
  const std::size_t capped = node_count(returning(doubling(60)), 1000);
  EXPECT_GT(capped, 1000u);
  EXPECT_LE(capped, 1001u);
}

TEST(Visit, AStatementWalkStopsWhenTheCallbackSaysSo) {
  Block body;
  for (int i = 0; i < 10; ++i) body.push_back(Stmt::return_(constant(std::int64_t{i})));
  std::size_t seen = 0;
  for_each_stmt(body, [&](const Stmt&) { return ++seen < 4; });
  EXPECT_EQ(seen, 4u);
  seen = 0;
  for_each_stmt(body, [&](const Stmt&) { ++seen; });
  EXPECT_EQ(seen, 10u);
}

// while (c) { if (c) { continue 2; } for (; c; ) { break; } } break;
// each statement with the loops and statements around it, in source order.
TEST(Visit, AStatementWalkAtDepthCountsTheLoopsAndStatementsAround) {
  const ExprPtr c = constant(true);
  Block inner_if;
  inner_if.push_back(Stmt::continue_(2));
  Block for_body;
  for_body.push_back(Stmt::break_());
  Block loop_body;
  loop_body.push_back(Stmt::if_(c, std::move(inner_if)));
  loop_body.push_back(Stmt::for_({}, c, {}, std::move(for_body)));
  Block body;
  body.push_back(Stmt::while_(c, std::move(loop_body)));
  body.push_back(Stmt::break_());
  std::vector<std::pair<StmtKind, StmtDepth>> seen;
  for_each_stmt_at(body, [&](const Stmt& s, StmtDepth d) { seen.emplace_back(s.kind, d); });
  const std::vector<std::pair<StmtKind, StmtDepth>> want = {
      {StmtKind::While, {0, 0}}, {StmtKind::If, {1, 1}},    {StmtKind::Continue, {1, 2}},
      {StmtKind::For, {1, 1}},   {StmtKind::Break, {2, 2}}, {StmtKind::Break, {0, 0}}};
  ASSERT_EQ(seen.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(seen[i].first, want[i].first) << i;
    EXPECT_EQ(seen[i].second.loops, want[i].second.loops) << i;
    EXPECT_EQ(seen[i].second.nesting, want[i].second.nesting) << i;
  }
  // Stopped by the callback: the walk ends at the `continue`.
  std::size_t visited = 0;
  for_each_stmt_at(body, [&](const Stmt& s, StmtDepth) {
    ++visited;
    return s.kind != StmtKind::Continue;
  });
  EXPECT_EQ(visited, 3u);
}

TEST(Visit, ARenamerRenamesNestedStatementsAndKeepsWhatDoesNotChange) {
  const ExprPtr x = read(VarId{0}, Type::i64());
  const ExprPtr y = read(VarId{1}, Type::i64());
  const ExprPtr unchanged = binary(BinaryOp::Mul, y, y);
  const ExprPtr shared = binary(BinaryOp::Add, x, unchanged);
  Block then_block;
  then_block.push_back(Stmt::assign(VarId{0}, shared));
  Block body;
  body.push_back(Stmt::decl(VarId{0}, constant(std::int64_t{1})));
  body.push_back(Stmt::if_(binary(BinaryOp::Lt, shared, y), std::move(then_block)));
  body.push_back(Stmt::return_(doubling(40)));  // a tree of 2^41 nodes, 41 in the DAG

  std::size_t renames = 0;
  VarRenamer().block(body, [&](VarId v) {
    ++renames;
    return v.index == 0 ? VarId{2} : v;
  });
  EXPECT_EQ(body[0].var, VarId{2});
  const Stmt& branch = body[1];
  const Stmt& assign = branch.body[0];
  EXPECT_EQ(assign.var, VarId{2});
  EXPECT_EQ(assign.expr->args[0]->var, VarId{2});
  EXPECT_EQ(assign.expr->args[1], unchanged);    // no variable of it changed: the same node
  EXPECT_EQ(branch.expr->args[0], assign.expr);  // `shared` renamed once, shared still
  EXPECT_EQ(branch.expr->args[1], y);
  EXPECT_EQ(body[2].expr->args[0], body[2].expr->args[1]);
  // Each statement's variable and each distinct read node once: decl,
  // assign, x, y and the doubling's own read of variable 0.
  EXPECT_EQ(renames, 5u);
}

}  // namespace
}  // namespace augur::ir
