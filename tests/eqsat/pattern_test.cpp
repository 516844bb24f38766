#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <vector>

#include "jit/error.h"
#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/pattern.h"
#include "runtime/eqsat/query.h"
#include "runtime/eqsat/term.h"
#include "tests/eqsat/commutative_plus.h"

namespace augur::eqsat {
namespace {

class PatternTest : public ::testing::Test {
 protected:
  Id add(std::string_view text) { return add_term(g, parse_term(text, lang)); }
  // The number of matches of `pattern` in the rebuilt e-graph.
  std::size_t count(std::string_view pattern) {
    g.rebuild();
    return Query::parse(pattern, lang).search(g).size();
  }
  SymbolLanguage lang;
  EGraph g;
};

TEST_F(PatternTest, ParsesAndPrintsEggSyntax) {
  VarTable vars;
  const Pattern p = parse_pattern("(+ ?a (* ?b 0))", lang, vars);
  EXPECT_EQ(print_pattern(p, lang, vars), "(+ ?a (* ?b 0))");
  ASSERT_EQ(vars.class_names().size(), 2u);
  EXPECT_EQ(vars.class_names()[0], "?a");
  VarTable v2;
  const Pattern q = parse_pattern("(theta:?l ?x (f -2.5))", lang, v2);
  EXPECT_EQ(print_pattern(q, lang, v2), "(theta:?l ?x (f -2.5))");
  EXPECT_EQ(v2.payload_names().size(), 1u);
}

TEST_F(PatternTest, RejectsMalformedPatterns) {
  VarTable vars;
  EXPECT_THROW(parse_pattern("(+ ?a", lang, vars), jit::parse_error);
  EXPECT_THROW(parse_pattern("()", lang, vars), jit::parse_error);
  EXPECT_THROW(parse_pattern("(+ ?a) extra", lang, vars), jit::parse_error);
  EXPECT_THROW(parse_pattern("(3 ?a)", lang, vars), jit::parse_error);  // a number with children
  VarTable bound;
  bound.add_class("?a");
  EXPECT_THROW(parse_pattern("(+ ?a ?b)", lang, bound, NewVars::Forbidden), jit::parse_error);
  try {
    VarTable t;
    parse_pattern("(+ ?a\n  (* ?b ))) ", lang, t);
    FAIL() << "expected a parse error";
  } catch (const jit::parse_error& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 11);
  }
}

TEST_F(PatternTest, MatchesLinearAndNonLinearPatterns) {
  const Id aa = add("(f a a)");
  add("(f a b)");
  add("(f b b)");
  add("(g (f a a) a)");
  EXPECT_EQ(count("(f ?x ?y)"), 3u);
  EXPECT_EQ(count("(f ?x ?x)"), 2u);  // non-linear: both children one class
  EXPECT_EQ(count("(f a ?y)"), 2u);
  EXPECT_EQ(count("(g (f ?x ?x) ?x)"), 1u);
  EXPECT_EQ(count("(g (f ?x ?y) ?y)"), 1u);
  EXPECT_EQ(count("(g (f b ?y) ?y)"), 0u);
  EXPECT_EQ(count("?z"), g.class_count());
  // After a merge the non-linear pattern sees the new equality.
  g.merge(add("a"), add("b"));
  g.rebuild();
  EXPECT_EQ(count("(f ?x ?x)"), 1u);  // (f a a) (f a b) (f b b) are one e-node now
  const Matches m = Query::parse("(f ?x ?x)", lang).search(g);
  EXPECT_EQ(g.find(m.root(0)), g.find(aa));
  EXPECT_EQ(m[0][0], g.find(add("a")));
}

// An e-node of a commutative operator matches in both orders of its
// children: (+ ?x 0) finds 0 + y; (+ ?x ?x) is one match, not two.
TEST(PatternCommutative, MatchesBothOrdersOfACommutativeENode) {
  SymbolLanguage lang;
  test::commutative_plus = lang.op("+");
  EGraph g(EGraphOptions{.commutative = &test::plus_commutes});
  const auto add = [&](std::string_view text) { return add_term(g, parse_term(text, lang)); };
  const Id zero_y = add("(+ 0 y)");
  add("(+ x x)");
  add("(- 0 y)");
  g.rebuild();
  const auto matches = [&](std::string_view pattern) {
    return Query::parse(pattern, lang).search(g);
  };
  const Matches plus_zero = matches("(+ ?x 0)");
  ASSERT_EQ(plus_zero.size(), 1u);
  EXPECT_EQ(plus_zero.root(0), g.find(zero_y));
  EXPECT_EQ(plus_zero[0][0], g.find(add("y")));
  EXPECT_EQ(matches("(+ ?a ?b)").size(), 3u);  // (+ 0 y) both ways, (+ x x) once
  EXPECT_EQ(matches("(+ ?a ?a)").size(), 1u);
  EXPECT_EQ(matches("(- ?x 0)").size(), 0u);  // - does not commute
}

TEST_F(PatternTest, LooksUpAnInstantiationWithoutAddingIt) {
  const Id fab = add("(f a (g b))");
  const Id c = add("c");
  g.merge(add("b"), c);
  g.rebuild();
  VarTable vars;
  const Pattern p = parse_pattern("(f ?x (g ?y))", lang, vars);
  const std::array<Id, 2> found{add("a"), c};
  EXPECT_EQ(p.lookup(g, Subst{found, {}}), g.find(fab));  // (g c) is (g b)
  const std::size_t nodes = g.node_count();
  const std::array<Id, 2> missing{c, c};
  EXPECT_EQ(p.lookup(g, Subst{missing, {}}), std::nullopt);
  EXPECT_EQ(g.node_count(), nodes);
  EXPECT_EQ(p.instantiate(g, Subst{found, {}}), g.find(fab));
  EXPECT_EQ(g.node_count(), nodes);
}

TEST_F(PatternTest, SearchesOnlyClassesWithTheRootOperator) {
  for (int i = 0; i < 50; ++i) add("(h c" + std::to_string(i) + ")");
  add("(f a b)");
  g.rebuild();
  const Query q = Query::parse("(f ?x ?y)", lang);
  EXPECT_EQ(q.candidates(g).size(), 1u);
  EXPECT_TRUE(q.matches_class(g, add("(f a b)")));
  EXPECT_FALSE(q.matches_class(g, add("(h c1)")));
}

TEST_F(PatternTest, KnowsTheOperatorsEveryMatchNeeds) {
  add("(f a (g b))");
  g.rebuild();
  const Query nested = Query::parse("(f ?x (g ?x))", lang);
  ASSERT_EQ(nested.root_op(), lang.op("f"));
  const std::vector<Op> ops(nested.required_ops().begin(), nested.required_ops().end());
  EXPECT_EQ(ops, (std::vector<Op>{lang.op("g"), lang.op("f")}));  // children first, once each
  EXPECT_TRUE(nested.may_match(g));
  // An operator no class holds: the runner skips the query, and indeed it
  // has no match, though its root operator is there.
  const Query absent = Query::parse("(f ?x (k ?y))", lang);
  EXPECT_FALSE(absent.may_match(g));
  EXPECT_EQ(absent.search(g).size(), 0u);
  EXPECT_EQ(Query::parse("(f ?x (g ?y))", lang).search(g).size(), 1u);
  // A variable at the root needs no operator of its own.
  const Query any = Query::parse("?z", lang);
  EXPECT_FALSE(any.root_op());
  EXPECT_TRUE(any.required_ops().empty());
  EXPECT_TRUE(any.may_match(g));
}

TEST_F(PatternTest, BindsPayloadVariables) {
  // Loop nodes with their index as payload: theta_1, theta_2, eval_1.
  const Op theta = lang.op("theta"), eval = lang.op("eval");
  const Id zero = add("0"), x = add("x");
  const Id t1 = g.add(Label{theta, 1}, {zero, x});
  const Id t2 = g.add(Label{theta, 2}, {zero, x});
  g.add(Label{eval, 1}, {t1, zero});
  g.add(Label{eval, 1}, {t2, zero});
  EXPECT_EQ(count("(theta:?l 0 ?x)"), 2u);
  EXPECT_EQ(count("(eval:?l (theta:?l ?a ?b) ?i)"), 1u);  // same loop index only
  EXPECT_EQ(count("(eval:?l (theta:?m ?a ?b) ?i)"), 2u);
  const Matches m = Query::parse("(eval:?l (theta:?l ?a ?b) ?i)", lang).search(g);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].payloads[0], 1u);
  // Instantiating a payload variable rebuilds the loop node of that index.
  VarTable vars;
  parse_pattern("(theta:?l ?a ?b)", lang, vars);
  const Pattern rhs = parse_pattern("(theta:?l ?b ?a)", lang, vars, NewVars::Forbidden);
  const std::vector<Id> classes{zero, x};
  const std::vector<std::uint64_t> payloads{2};
  const Id built = rhs.instantiate(g, Subst{classes, payloads});
  EXPECT_EQ(g.find(built), g.find(g.add(Label{theta, 2}, {x, zero})));
}

// egg's multipattern tests (src/multipattern.rs), same e-graph, same counts.
TEST_F(PatternTest, MultiPatternsJoinOnSharedVariables) {
  add("(f a a)");
  const Id ab = add("(f a b)");
  const Id ac = add("(f a c)");
  g.merge(ab, ac);
  g.rebuild();
  EXPECT_EQ(count("?x = (f a a),   ?y = (f ?c b)"), 1u);
  EXPECT_EQ(count("?x = (f a a),   ?y = (f a b)"), 1u);
  EXPECT_EQ(count("?x = (f a a),   ?y = (f a a)"), 1u);
  EXPECT_EQ(count("?x = (f ?a ?b), ?y = (f ?c ?d)"), 9u);
  EXPECT_EQ(count("?x = (f ?a a),  ?y = (f ?a b)"), 1u);
  EXPECT_EQ(count("?x = (f a a), ?x = (f a c)"), 0u);
  EXPECT_EQ(count("?x = (f a b), ?x = (f a c)"), 1u);
  EXPECT_EQ(count("?x = (f a b) = (f a c)"), 1u);
  EXPECT_THROW(Query::parse("?x = ?y, ?z = (f a a)", lang), jit::error);
}

// Brute force: enumerate every assignment of classes to the pattern's
// variables and check the instantiated pattern exists in the e-graph.
TEST_F(PatternTest, AgreesWithBruteForceOnRandomGraphs) {
  const std::vector<std::string> patterns = {"(f ?x ?y)", "(f ?x ?x)", "(f (g ?x) ?y)",
                                             "(f (g ?x) (g ?x))", "(g (f ?x a))"};
  for (unsigned seed = 0; seed < 8; ++seed) {
    EGraph graph;
    std::vector<Id> ids;
    for (const char* leaf : {"a", "b", "c"}) ids.push_back(graph.add(*lang.parse_label(leaf, 0)));
    unsigned state = seed * 2654435761u + 1;
    const auto next = [&](std::size_t n) {
      state = state * 1664525u + 1013904223u;
      return (state >> 8) % n;
    };
    for (int i = 0; i < 25; ++i) {
      if (next(2) == 0)
        ids.push_back(graph.add(*lang.parse_label("g", 1), {ids[next(ids.size())]}));
      else
        ids.push_back(
            graph.add(*lang.parse_label("f", 2), {ids[next(ids.size())], ids[next(ids.size())]}));
    }
    for (int m = 0; m < 4; ++m) graph.merge(ids[next(ids.size())], ids[next(ids.size())]);
    graph.rebuild();
    for (const std::string& text : patterns) {
      const Query q = Query::parse(text, lang);
      std::set<std::vector<Id>> found;
      const Matches m = q.search(graph);
      for (std::size_t i = 0; i < m.size(); ++i) {
        std::vector<Id> row(m[i].classes.begin(), m[i].classes.end());
        row.push_back(graph.find(m.root(i)));
        EXPECT_TRUE(found.insert(row).second) << "duplicate match of " << text;
      }
      std::set<std::vector<Id>> expected;
      const std::size_t nvars = q.vars().class_names().size();
      const std::span<const Id> classes = graph.classes();
      std::vector<std::size_t> pick(nvars, 0);
      for (;;) {
        std::vector<Id> row;
        for (std::size_t v = 0; v < nvars; ++v) row.push_back(classes[pick[v]]);
        // Look the instance up without adding it.
        const Pattern& p = q.pattern();
        std::vector<std::optional<Id>> at(p.nodes.size());
        bool present = true;
        for (std::size_t k = 0; k < p.nodes.size() && present; ++k) {
          const PatternNode& n = p.nodes[k];
          if (n.kind == PatternNode::Kind::Var) {
            at[k] = row[n.var];
            continue;
          }
          std::vector<Id> children;
          for (std::uint32_t c : n.children) children.push_back(*at[c]);
          at[k] = graph.lookup(n.label, children);
          present = at[k].has_value();
        }
        if (present) {
          row.push_back(*at.back());
          expected.insert(row);
        }
        std::size_t v = 0;
        while (v < nvars && ++pick[v] == classes.size()) pick[v++] = 0;
        if (v == nvars) break;
      }
      EXPECT_EQ(found, expected) << text << " seed " << seed;
    }
  }
}

}  // namespace
}  // namespace augur::eqsat
