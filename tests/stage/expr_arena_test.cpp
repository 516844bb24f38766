// The expression pool's arena (runtime/stage/expr_arena.h): nodes outlive the
// pool that made them, a region is freed exactly when its last node goes,
// from whatever thread releases it, and never before.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/stage/expr_arena.h"
#include "runtime/stage/expr_pool.h"

namespace augur::stage::testing {
namespace {

using ir::BinaryOp;
using ir::ExprPtr;
using ir::Type;

// Nodes enough for the 32 KiB regions and several huge-page ones.
constexpr std::uint64_t kConstants = 60'000;

// x + c for each constant c, the constants and sums alternating in the arena.
std::vector<ExprPtr> sums(ExprPool& pool) {
  const ExprPtr x = pool.read(ir::VarId{0}, Type::i64());
  std::vector<ExprPtr> out;
  for (std::uint64_t i = 0; i < kConstants; ++i) {
    out.push_back(pool.binary(BinaryOp::Add, x, pool.constant(Type::i64(), 1000 + i)));
  }
  return out;
}

TEST(ExprArena, NodesOutliveTheirPoolAndTheLastOneFreesTheRegions) {
  const std::size_t before = ExprArena::live_regions();
  std::vector<ExprPtr> kept;
  {
    ExprPool pool;
    std::vector<ExprPtr> all = sums(pool);
    EXPECT_GT(ExprArena::live_regions(), before + 64);  // the small regions and huge ones
    for (std::size_t i = 0; i < all.size(); i += 1000) kept.push_back(all[i]);
  }
  // One sum in a thousand keeps its region (and its operands' regions).
  EXPECT_GT(ExprArena::live_regions(), before);
  for (std::size_t k = 0; k < kept.size(); ++k) {
    ASSERT_EQ(kept[k]->kind, ir::ExprKind::Binary);
    ASSERT_EQ(kept[k]->args[1]->bits, 1000 + 1000 * k);
    ASSERT_EQ(kept[k]->args[0]->var.index, 0u);
  }
  kept.clear();
  EXPECT_EQ(ExprArena::live_regions(), before);
}

TEST(ExprArena, NodesAreReleasedOnOtherThreads) {
  const std::size_t before = ExprArena::live_regions();
  std::vector<ExprPtr> first_half;
  std::vector<ExprPtr> second_half;
  {
    ExprPool pool;
    std::vector<ExprPtr> all = sums(pool);
    for (std::size_t i = 0; i < all.size(); ++i) {
      (i % 2 == 0 ? first_half : second_half).push_back(std::move(all[i]));
    }
  }
  std::thread a([nodes = std::move(first_half)]() mutable { nodes.clear(); });
  std::thread b([nodes = std::move(second_half)]() mutable { nodes.clear(); });
  a.join();
  b.join();
  EXPECT_EQ(ExprArena::live_regions(), before);
}

TEST(ExprArena, APoolMovedOverAnotherKeepsBothPoolsNodes) {
  const std::size_t before = ExprArena::live_regions();
  ExprPool pool;
  const ExprPtr old_node = pool.constant(Type::i64(), 7);
  pool = ExprPool();
  const ExprPtr new_node = pool.constant(Type::i64(), 8);
  EXPECT_NE(old_node, new_node);
  EXPECT_EQ(old_node->bits, 7u);
  EXPECT_EQ(new_node->bits, 8u);
  EXPECT_EQ(ExprArena::live_regions(), before + 2);
}

}  // namespace
}  // namespace augur::stage::testing
