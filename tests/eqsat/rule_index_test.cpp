// The runner's index of a rule set (runtime/eqsat/rule_index.h): rules by
// root operator in rule order, rules rooted at a variable, and whether a
// rule can match an e-graph from the operators it holds.
#include "runtime/eqsat/rule_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/runner.h"
#include "runtime/eqsat/term.h"

namespace augur::eqsat {
namespace {

std::vector<std::uint32_t> list(std::span<const std::uint32_t> s) {
  return {s.begin(), s.end()};
}

TEST(RuleIndex, ListsRulesByRootOperatorInRuleOrder) {
  SymbolLanguage lang;
  std::vector<Rewrite> rules;
  rules.push_back(Rewrite::parse("a", "(f ?x)", "?x", lang));
  rules.push_back(Rewrite::parse("b", "(g (f ?x))", "?x", lang));
  rules.push_back(Rewrite::parse("c", "?x", "?x", lang));
  rules.push_back(Rewrite::parse("d", "(f (h ?x))", "(h ?x)", lang));
  const RuleIndex index(rules);
  EXPECT_EQ(index.size(), 4u);
  EXPECT_EQ(list(index.rooted_at(lang.op("f"))), (std::vector<std::uint32_t>{0, 3}));
  EXPECT_EQ(list(index.rooted_at(lang.op("g"))), (std::vector<std::uint32_t>{1}));
  EXPECT_TRUE(index.rooted_at(lang.op("h")).empty());
  EXPECT_EQ(std::vector<Op>(index.root_ops().begin(), index.root_ops().end()),
            (std::vector<Op>{std::min(lang.op("f"), lang.op("g")),
                             std::max(lang.op("f"), lang.op("g"))}));
  EXPECT_TRUE(index.rooted_at(index.root_ops().back() + 5).empty());
  EXPECT_EQ(list(index.rooted_anywhere()), (std::vector<std::uint32_t>{2}));

  EGraph g;
  add_term(g, parse_term("(g (f a))", lang));
  g.rebuild();
  EXPECT_TRUE(index.may_match(0, g));
  EXPECT_TRUE(index.may_match(1, g));
  EXPECT_TRUE(index.may_match(2, g));
  EXPECT_FALSE(index.may_match(3, g));  // no h anywhere
  EXPECT_EQ(index.candidates(0, g).size(), 1u);
  EXPECT_EQ(index.candidates(2, g).size(), g.class_count());
}

// The runner gives the same e-graph whether it is handed the rules or their
// index, and a rule that cannot match changes nothing.
TEST(RuleIndex, RunsAsTheRulesDo) {
  SymbolLanguage lang;
  std::vector<Rewrite> rules;
  rules.push_back(Rewrite::parse("comm", "(+ ?a ?b)", "(+ ?b ?a)", lang));
  rules.push_back(Rewrite::parse("zero", "(+ ?a 0)", "?a", lang));
  rules.push_back(Rewrite::parse("never", "(* ?a (k ?b))", "?a", lang));
  const char* term = "(+ 0 (+ x (+ y 0)))";
  EGraph by_span, by_index;
  const Id a = add_term(by_span, parse_term(term, lang));
  const Id b = add_term(by_index, parse_term(term, lang));
  const Report r1 = Runner().run(by_span, rules);
  const Report r2 = Runner().run(by_index, RuleIndex(rules));
  EXPECT_EQ(r1.iterations, r2.iterations);
  EXPECT_EQ(by_span.node_count(), by_index.node_count());
  EXPECT_EQ(by_span.class_count(), by_index.class_count());
  EXPECT_TRUE(by_index.equivalent(b, add_term(by_index, parse_term("(+ y x)", lang))));
  EXPECT_TRUE(by_span.equivalent(a, add_term(by_span, parse_term("(+ y x)", lang))));
  EXPECT_EQ(r2.rules[2].matches, 0u);
}

}  // namespace
}  // namespace augur::eqsat
