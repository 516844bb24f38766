#include "runtime/eqsat/egraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <span>
#include <vector>

#include "jit/error.h"
#include "runtime/eqsat/id_list.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/term.h"
#include "tests/eqsat/commutative_plus.h"

namespace augur::eqsat {
namespace {

// IdList, the e-classes' lists: inline up to two ids, then on the heap, and
// the same ids either way through growth, moves and erasure.
TEST(IdList, KeepsItsIdsInlineThenOnTheHeap) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    IdList list;
    std::vector<Id> expected;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const Id id = make_id(static_cast<std::uint32_t>(rng() % 16));
      if (rng() % 4 == 0) {
        const std::vector<Id> more{id, make_id(index(id) + 1)};
        list.append(more);
        expected.insert(expected.end(), more.begin(), more.end());
      } else {
        list.push_back(id);
        expected.push_back(id);
      }
    }
    EXPECT_EQ(list.heap_bytes() == 0, expected.size() <= 2) << "trial " << trial;
    IdList moved(std::move(list));
    EXPECT_TRUE(list.empty());
    list.push_back(make_id(99));  // a moved-from list is usable again
    ASSERT_EQ(std::vector<Id>(moved.begin(), moved.end()), expected) << "trial " << trial;
    const auto odd = [](Id id) { return index(id) % 2 == 1; };
    moved.erase_if(odd);
    std::erase_if(expected, odd);
    IdList assigned;
    assigned.push_back(make_id(5));
    assigned = std::move(moved);
    const std::span<const Id> view = assigned;
    EXPECT_EQ(std::vector<Id>(view.begin(), view.end()), expected) << "trial " << trial;
    EXPECT_EQ(std::vector<Id>(list.begin(), list.end()), std::vector<Id>{make_id(99)});
  }
}

// Checks the invariants egraph.h promises after rebuild().
void expect_invariants(const EGraph& g) {
  ASSERT_TRUE(g.clean());
  std::map<std::pair<Label, std::vector<Id>>, Id> seen;
  std::size_t live = 0;
  for (Id cls : g.classes()) {
    EXPECT_EQ(g.find(cls), cls);
    const std::span<const Id> nodes = g.nodes_of(cls);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const ENodeView n = g.node(nodes[i]);
      EXPECT_EQ(g.find(n.id), cls);
      if (i > 0) {
        const ENodeView p = g.node(nodes[i - 1]);
        EXPECT_TRUE(p.label < n.label || (p.label == n.label && p.id < n.id)) << "unsorted";
      }
      for (Id c : n.children) EXPECT_EQ(g.find(c), c) << "child not canonical";
      auto key = std::pair{n.label, std::vector<Id>(n.children.begin(), n.children.end())};
      if (g.commutative(n.label.op) && key.second.size() == 2)
        std::sort(key.second.begin(), key.second.end());
      auto [it, fresh] = seen.emplace(key, cls);
      EXPECT_TRUE(fresh) << "two live e-nodes with equal content (up to a commutative order)";
      EXPECT_EQ(g.lookup(n.label, n.children), cls);
      ++live;
      const auto with_op = g.classes_with(n.label.op);
      EXPECT_TRUE(std::find(with_op.begin(), with_op.end(), cls) != with_op.end());
    }
  }
  EXPECT_EQ(g.class_count(), g.classes().size());
}

class EGraphTest : public ::testing::Test {
 protected:
  Id add(std::string_view text) { return add_term(g, parse_term(text, lang)); }
  SymbolLanguage lang;
  EGraph g;
};

// What a rebuild reports as changed since the one before: the e-nodes
// added, moved to another class or given other children, and the classes
// they are in (the runner's incremental search rests on it).
TEST_F(EGraphTest, ReportsWhatChangedSinceTheRebuildBefore) {
  const Id a = add("a"), b = add("b"), fa = add("(f a)"), fb = add("(f b)"), h = add("(h c)");
  const std::uint32_t rebuilds = g.rebuilds();
  g.rebuild();
  EXPECT_EQ(g.rebuilds(), rebuilds + 1);
  EXPECT_NE(g.serial(), EGraph().serial());  // what a rule's memo is keyed on
  for (Id n : {a, b, fa, fb, h}) EXPECT_TRUE(g.is_new(n));
  EXPECT_EQ(g.changed().size(), 6u);  // every class: a b c (f a) (f b) (h c)
  g.rebuild();                        // nothing since
  for (Id n : {a, b, fa, fb, h}) EXPECT_FALSE(g.is_new(n));
  EXPECT_TRUE(g.changed().empty());

  g.merge(a, b);
  g.rebuild();
  // One of a, b moved into the other's class; (f a) and (f b) are one class
  // now.
  EXPECT_NE(g.is_new(a), g.is_new(b));
  EXPECT_FALSE(g.is_new(h));
  const std::vector<Id> changed(g.changed().begin(), g.changed().end());
  EXPECT_TRUE(std::find(changed.begin(), changed.end(), g.find(a)) != changed.end());
  EXPECT_TRUE(std::find(changed.begin(), changed.end(), g.find(fa)) != changed.end());
  EXPECT_TRUE(std::find(changed.begin(), changed.end(), g.find(h)) == changed.end());
  EXPECT_TRUE(g.data_changed().empty());  // no analysis
  // Every live e-node that is new is in a changed class or has a changed child.
  for (Id cls : g.classes())
    for (Id n : g.nodes_of(cls)) {
      if (!g.is_new(n)) continue;
      bool near = std::find(changed.begin(), changed.end(), cls) != changed.end();
      for (Id c : g.node(n).children)
        near = near || std::find(changed.begin(), changed.end(), c) != changed.end();
      EXPECT_TRUE(near);
    }
}

TEST_F(EGraphTest, HashConsesEqualNodes) {
  const Id a = add("(f x y)");
  const Id b = add("(f x y)");
  EXPECT_EQ(a, b);
  EXPECT_NE(add("(f y x)"), a);
  EXPECT_EQ(g.node_count(), 4u);  // x y (f x y) (f y x)
  g.rebuild();
  expect_invariants(g);
}

// Commutative operators (EGraphOptions::commutative): an e-node and its
// mirror are one e-node, found in either order, congruent up to order; the
// stored children keep the order they were added in.
TEST(EGraphCommutative, AnENodeAndItsMirrorAreOne) {
  SymbolLanguage lang;
  test::commutative_plus = lang.op("+");
  EGraph g(EGraphOptions{.commutative = &test::plus_commutes});
  const auto add = [&](std::string_view text) { return add_term(g, parse_term(text, lang)); };
  const Id ab = add("(+ a b)");
  EXPECT_EQ(add("(+ b a)"), ab);
  EXPECT_NE(add("(- b a)"), add("(- a b)"));  // only + commutes
  EXPECT_EQ(g.node_count(), 5u);              // a b (+ a b) (- b a) (- a b)
  const Id a = add("a"), b = add("b");
  const Id b_a[] = {b, a};
  EXPECT_EQ(g.lookup(Label{lang.op("+"), 0}, b_a), ab);
  ASSERT_EQ(g.nodes_of(ab).size(), 1u);
  EXPECT_EQ(g.node(g.nodes_of(ab).front()).children[0], a);  // as added
  // Congruence up to order: (+ c a) is (+ a b) once c = b.
  const Id ca = add("(+ c a)");
  EXPECT_NE(g.find(ca), g.find(ab));
  g.merge(add("c"), b);
  g.rebuild();
  EXPECT_EQ(g.find(ca), g.find(ab));
  EXPECT_EQ(g.nodes_of(ab).size(), 1u);
  expect_invariants(g);
}

TEST(EGraphCommutative, ExplanationsAreAnError) {
  EXPECT_THROW(EGraph(EGraphOptions{.explanations = true, .commutative = &test::plus_commutes}),
               jit::error);
}

TEST_F(EGraphTest, CongruenceHoldsAfterRebuildTransitively) {
  const Id fa = add("(f a)");
  const Id fb = add("(f b)");
  const Id ffa = add("(f (f a))");
  const Id ffc = add("(f (f c))");
  const Id gac = add("(g a c)");
  const Id gcc = add("(g c c)");
  g.merge(add("a"), add("b"));
  g.merge(add("b"), add("c"));
  // Deferred: the classes of a, b, c are merged at once, their parents only
  // by rebuild().
  EXPECT_TRUE(g.equivalent(add("a"), add("c")));
  EXPECT_FALSE(g.equivalent(fa, fb));
  EXPECT_FALSE(g.clean());
  EXPECT_GE(g.rebuild(), 3u);
  EXPECT_TRUE(g.equivalent(fa, fb));
  EXPECT_TRUE(g.equivalent(ffa, ffc));
  EXPECT_TRUE(g.equivalent(gac, gcc));
  EXPECT_FALSE(g.equivalent(fa, ffa));
  expect_invariants(g);
  // f(a) f(f(a)) a g(a,a): four classes.
  EXPECT_EQ(g.class_count(), 4u);
}

TEST_F(EGraphTest, CyclesThroughPlaceholders) {
  // x = (theta 0 (+ x 1)): the class of x refers to itself.
  const Id x = g.add_placeholder();
  const Id zero = add("0");
  const Id next = g.add(lang.parse_label("+", 2).value(), {x, add("1")});
  const Id theta = g.add(lang.parse_label("theta", 2).value(), {zero, next});
  g.merge(x, theta);
  g.rebuild();
  expect_invariants(g);
  EXPECT_EQ(g.find(x), g.find(theta));
  const ENodeView plus = g.node(g.nodes_of(next)[0]);
  EXPECT_EQ(plus.children[0], g.find(theta));
  // The same loop built again is the same class: hash-consing sees through the
  // cycle once its placeholder is gone.
  const Id again = g.add(lang.parse_label("theta", 2).value(),
                         {zero, g.add(lang.parse_label("+", 2).value(), {theta, add("1")})});
  EXPECT_EQ(g.find(again), g.find(theta));
  // y = (f y) and z = (f z) are not implied equal.
  const Id y = g.add_placeholder();
  const Id z = g.add_placeholder();
  g.merge(y, g.add(lang.parse_label("f", 1).value(), {y}));
  g.merge(z, g.add(lang.parse_label("f", 1).value(), {z}));
  g.rebuild();
  EXPECT_FALSE(g.equivalent(y, z));
  // Merging y with (f z) makes y = f(z) = z's structure: congruence closes it.
  g.merge(y, z);
  g.rebuild();
  expect_invariants(g);
  EXPECT_EQ(g.nodes_of(y).size(), 1u);
}

TEST_F(EGraphTest, AnalysisAfterFirstNodeIsAnError) {
  add("a");
  struct Dummy : ClassAnalysis<int> {
    std::string_view name() const override { return "dummy"; }
    int make(const EGraph&, const ENodeView&) const override { return 0; }
    bool join(int&, const int&) const override { return false; }
  };
  EXPECT_THROW(g.add_analysis<Dummy>(), jit::error);
}

// Random terms and merges against a naive congruence closure: repeat "merge
// any two e-nodes with equal labels and equal children classes" to a
// fixpoint over plain union-find.
TEST(EGraphRandom, MatchesNaiveCongruenceClosure) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    EGraph g;
    struct Node {
      Label label;
      std::vector<std::size_t> children;
    };
    std::vector<Node> nodes;
    std::vector<Id> ids;
    const auto pick = [&](std::size_t n) {
      return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
    };
    for (int i = 0; i < 5; ++i) {
      nodes.push_back({Label{static_cast<Op>(10 + i), 0}, {}});
      ids.push_back(g.add(nodes.back().label));
    }
    for (int i = 0; i < 60; ++i) {
      const Op op = static_cast<Op>(pick(3));  // op 0: unary, 1 and 2: binary
      Node n{Label{op, 0}, {}};
      for (int k = 0; k < (op == 0 ? 1 : 2); ++k) n.children.push_back(pick(nodes.size()));
      std::vector<Id> children;
      for (std::size_t c : n.children) children.push_back(ids[c]);
      nodes.push_back(n);
      ids.push_back(g.add(n.label, children));
    }
    std::vector<std::size_t> uf(nodes.size());
    std::iota(uf.begin(), uf.end(), 0);
    const auto find = [&](std::size_t x) {
      while (uf[x] != x) x = uf[x];
      return x;
    };
    for (int m = 0; m < 6; ++m) {
      const std::size_t a = pick(nodes.size()), b = pick(nodes.size());
      g.merge(ids[a], ids[b]);
      uf[find(a)] = find(b);
      if (m % 2 == 1) g.rebuild();
    }
    g.rebuild();
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t i = 0; i < nodes.size(); ++i)
        for (std::size_t j = i + 1; j < nodes.size(); ++j) {
          if (find(i) == find(j) || nodes[i].label != nodes[j].label) continue;
          bool same = true;
          for (std::size_t k = 0; k < nodes[i].children.size(); ++k)
            same = same && find(nodes[i].children[k]) == find(nodes[j].children[k]);
          if (same) {
            uf[find(i)] = find(j);
            changed = true;
          }
        }
    }
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (std::size_t j = 0; j < nodes.size(); ++j)
        ASSERT_EQ(find(i) == find(j), g.equivalent(ids[i], ids[j])) << "seed " << seed;
    expect_invariants(g);
  }
}

}  // namespace
}  // namespace augur::eqsat
