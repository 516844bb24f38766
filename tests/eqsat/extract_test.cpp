#include "runtime/eqsat/extract.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jit/error.h"
#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/loop_invariance.h"
#include "runtime/eqsat/term.h"

namespace augur::eqsat {
namespace {

class ExtractTest : public ::testing::Test {
 protected:
  Id add(std::string_view text) { return add_term(g, parse_term(text, lang)); }
  std::string best(Id root, CostFunction cost = ast_size(), CycleEdges cycles = {}) {
    g.rebuild();
    return print_term(Extractor(g, std::move(cost), std::move(cycles)).extract(root), lang);
  }
  SymbolLanguage lang;
  EGraph g;
};

TEST_F(ExtractTest, PicksTheCheapestEquivalentTerm) {
  const Id big = add("(* (+ x 0) 1)");
  g.merge(add("(+ x 0)"), add("x"));
  g.merge(big, add("(+ x 0)"));
  EXPECT_EQ(best(big), "x");
  const Id e = add("(f (g a) (g a))");
  g.merge(add("(g a)"), add("b"));
  EXPECT_EQ(best(e), "(f b b)");
  EXPECT_EQ(Extractor(g, ast_size()).cost(e), 3.0);
  const Id deep = add("(f (g a) c)");
  g.rebuild();
  EXPECT_EQ(Extractor(g, ast_depth()).cost(deep), 2.0);
}

TEST_F(ExtractTest, NeverChoosesACycleWithoutAllowedEdges) {
  // x = (+ x 0): the class holds a cycle, but x itself is the way out.
  const Id x = add("x");
  g.merge(x, add("(+ x 0)"));
  EXPECT_EQ(best(x), "x");
  // y = (f y) with nothing else: no finite program.
  const Id y = g.add_placeholder();
  g.merge(y, g.add(*lang.parse_label("f", 1), {y}));
  g.rebuild();
  const Extractor ex(g, ast_size());
  EXPECT_FALSE(ex.cost(y).has_value());
  EXPECT_THROW(ex.extract(y), jit::error);
}

TEST_F(ExtractTest, ClosesCyclesOnlyThroughTheirAllowedEdges) {
  // i = (theta 0 (+ i 1)): a loop variable; only theta's second child may
  // close a cycle.
  const Op theta = lang.op("theta");
  const Id self = g.add_placeholder();
  const Id i =
      g.add(Label{theta, 0}, {add("0"), g.add(*lang.parse_label("+", 2), {self, add("1")})});
  g.merge(self, i);
  const Id use = g.add(*lang.parse_label("*", 2), {i, i});
  EXPECT_EQ(best(use, ast_size(), CycleEdges{{theta, 1}}), "(* #1=(theta 0 (+ #1 1)) #1)");
  const Term t = Extractor(g, ast_size(), CycleEdges{{theta, 1}}).extract(use);
  EXPECT_EQ(t.nodes.size(), 5u);  // 0 1 (+ ..) theta (* ..): shared, not a tree
  // Round trip: the cyclic term added to a fresh e-graph is the same loop.
  EGraph copy;
  const Id again = add_term(copy, t);
  copy.rebuild();
  EXPECT_EQ(print_term(Extractor(copy, ast_size(), CycleEdges{{theta, 1}}).extract(again), lang),
            "(* #1=(theta 0 (+ #1 1)) #1)");
  // The first child may not close it.
  EXPECT_THROW(Extractor(g, ast_size(), CycleEdges{{theta, 0}}).extract(use), jit::error);
  EXPECT_THROW(Extractor(g, ast_size()).extract(use), jit::error);
}

TEST_F(ExtractTest, SharesSubtermsAcrossRoots) {
  const Id a = add("(f (g x) y)");
  const Id b = add("(h (g x))");
  g.rebuild();
  const std::vector<Id> roots{a, b};
  const Term t = Extractor(g, ast_size()).extract(roots);
  ASSERT_EQ(t.roots.size(), 2u);
  EXPECT_EQ(print_term(t, lang, t.roots[0]), "(f (g x) y)");
  EXPECT_EQ(print_term(t, lang, t.roots[1]), "(h (g x))");
  EXPECT_EQ(t.nodes.size(), 5u);
}

TEST_F(ExtractTest, WeighsNodesByLoopDepth) {
  // Tate's cost: basic cost × 20^depth. Inside loop 1, (* n 2) is invariant
  // and costs 1 per node; (* i 2) varies and costs 20.
  const Op theta = lang.op("theta");
  g.add_analysis<LoopInvariance>([theta](const EGraph&, const ENodeView& n) {
    return n.label.op == theta ? LoopRole{LoopRole::Kind::Theta, 1} : LoopRole{};
  });
  const Id self = g.add_placeholder();
  const Id i =
      g.add(Label{theta, 0}, {add("0"), g.add(*lang.parse_label("+", 2), {self, add("1")})});
  g.merge(self, i);
  const Id varying = g.add(*lang.parse_label("*", 2), {i, add("2")});
  const Id invariant = add("(* n 2)");
  g.rebuild();
  const Extractor ex(g, loop_depth_cost([](const EGraph&, const ENodeView&) { return 1.0; }),
                     CycleEdges{{theta, 1}});
  EXPECT_EQ(ex.cost(invariant), 3.0);
  // theta: 20 + its first child 0 (1); the back edge counts 0.
  EXPECT_EQ(ex.cost(i), 21.0);
  EXPECT_EQ(ex.cost(varying), 20.0 + 21.0 + 1.0);
}

TEST_F(ExtractTest, RejectsBadCosts) {
  const Id x = add("(f x)");
  g.rebuild();
  EXPECT_THROW(
      Extractor(g, [](const EGraph&, const ENodeView&, std::span<const double>) { return -1.0; }),
      jit::error);
  g.add(*lang.parse_label("g", 0));
  EXPECT_THROW(Extractor(g, ast_size()).extract(x), jit::error);  // not rebuilt
}

}  // namespace
}  // namespace augur::eqsat
