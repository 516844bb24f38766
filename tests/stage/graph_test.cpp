// The exploration graph (runtime/stage/graph.h): nodes found again by tag and
// content across the chunks its nodes live in and the growth of its index,
// many statements of one tag told apart by content (near the root or deep in
// the expression, past what the index hashes), and the index freed once
// exploring is done.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/stage/graph.h"

namespace augur::stage::testing {
namespace {

Tag tag_of(std::uint64_t i) {
  TagHasher h;
  h.add(i);
  return h.finish();
}

Event assign(std::uint64_t tag, std::uint32_t var, std::int64_t value) {
  Event e;
  e.kind = EventKind::Assign;
  e.tag = tag_of(tag);
  e.var = ir::VarId{var};
  e.expr = ir::constant(ir::Type::i64(), static_cast<std::uint64_t>(value));
  return e;
}

TEST(Graph, FindsEveryNodeAcrossChunksAndIndexGrowth) {
  // The 32 small chunks, then big ones of a huge page each, and many growths
  // of the index.
  constexpr std::uint32_t kCount = 100'000;
  Graph g;
  for (std::uint32_t i = 0; i < kCount; ++i) ASSERT_EQ(g.add(assign(i, 0, i)), i);
  ASSERT_EQ(g.size(), kCount);
  for (std::uint32_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(g.find(assign(i, 0, i)), i) << i;
    ASSERT_EQ(g[i].event.tag, tag_of(i));
    ASSERT_EQ(g[i].event.expr->bits, i);
  }
  // A copy (structuring copies an irreducible graph) holds the same nodes.
  const Graph copy = g;
  ASSERT_EQ(copy.size(), kCount);
  for (std::uint32_t i = 0; i < kCount; ++i) ASSERT_EQ(copy[i].event.tag, tag_of(i)) << i;
  // Same tag, other content; other tag, same content.
  EXPECT_EQ(g.find(assign(7, 1, 7)), kNoNode);
  EXPECT_EQ(g.find(assign(kCount + 7, 0, 7)), kNoNode);
}

// Structuring's own nodes have tags {~0 - id, serial}: the index must find
// them by their low words alone.
TEST(Graph, FindsTagsThatDifferInTheLowWordOnly) {
  Graph g;
  for (std::uint64_t i = 0; i < 20'000; ++i) {
    Event e = assign(0, 0, 1);
    e.tag = Tag{~std::uint64_t{0}, i};
    ASSERT_EQ(g.add(e), i);
  }
  for (std::uint64_t i = 0; i < 20'000; ++i) {
    Event e = assign(0, 0, 1);
    e.tag = Tag{~std::uint64_t{0}, i};
    ASSERT_EQ(g.find(e), i);
  }
}

// A plain loop around dyn code makes one tag's statements with different
// contents (staging rule 1).
TEST(Graph, FindsTheStatementsOfOneTagByContent) {
  Graph g;
  std::vector<std::uint32_t> variants;
  for (std::uint32_t i = 0; i < 3000; ++i) {
    g.add(assign(1'000'000 + i, 0, 0));  // other tags between the variants
    variants.push_back(g.add(assign(5, 0, i)));
  }
  for (std::uint32_t i = 0; i < 3000; ++i) {
    ASSERT_EQ(g.find(assign(5, 0, i)), variants[i]) << i;
  }
  EXPECT_EQ(g.find(assign(5, 0, 3000)), kNoNode);
  EXPECT_EQ(g.find(assign(5, 1, 7)), kNoNode);
}

// `((c + 1) + 1) + ...`: statements equal in their first levels and different
// at the bottom of a tall expression hash alike, and are still told apart.
TEST(Graph, TellsApartStatementsThatDifferDeepInTheirExpressions) {
  const auto deep = [](std::int64_t bottom) {
    Event e = assign(9, 0, bottom);
    for (int level = 0; level < 40; ++level) {
      e.expr = ir::binary(ir::BinaryOp::Add, e.expr, ir::constant(ir::Type::i64(), 1));
    }
    return e;
  };
  Graph g;
  std::vector<std::uint32_t> nodes;
  for (std::int64_t i = 0; i < 200; ++i) nodes.push_back(g.add(deep(i)));
  for (std::int64_t i = 0; i < 200; ++i) ASSERT_EQ(g.find(deep(i)), nodes[i]) << i;
  EXPECT_EQ(g.find(deep(200)), kNoNode);
}

// Structuring copies nodes (node splitting): the copies are nodes of their
// own, and find() keeps answering the first.
TEST(Graph, AnEventAddedAgainIsFoundAtItsFirstNode) {
  Graph g;
  const std::uint32_t first = g.add(assign(4, 2, 9));
  const std::uint32_t copy = g.add(assign(4, 2, 9));
  EXPECT_NE(copy, first);
  EXPECT_EQ(g.size(), 2u);
  EXPECT_EQ(g.find(assign(4, 2, 9)), first);
}

TEST(Graph, ForgettingTagsKeepsTheNodes) {
  Graph g;
  for (std::uint32_t i = 0; i < 2000; ++i) g.add(assign(i, 0, i));
  g.forget_tags();
  EXPECT_EQ(g.find(assign(3, 0, 3)), kNoNode);
  EXPECT_EQ(g.size(), 2000u);
  EXPECT_EQ(g[1999].event.tag, tag_of(1999));
  const std::uint32_t n = g.add(assign(3, 0, 3));
  EXPECT_EQ(n, 2000u);
  EXPECT_EQ(g.find(assign(3, 0, 3)), n);
}

}  // namespace
}  // namespace augur::stage::testing
