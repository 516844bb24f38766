#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/egraph/math.h"
#include "jit/error.h"
#include "runtime/eqsat/constant_folding.h"
#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/guards.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/loop_invariance.h"
#include "runtime/eqsat/rewrite.h"
#include "runtime/eqsat/rule_file.h"
#include "runtime/eqsat/runner.h"
#include "runtime/eqsat/term.h"

namespace augur::eqsat {
namespace {

RunOptions unlimited_time() {
  RunOptions o;
  o.limits.time = std::chrono::hours(1);
  return o;
}

class RewriteTest : public ::testing::Test {
 protected:
  RewriteTest() { math::add_constant_folding(g, lang); }
  Id add(std::string_view text) { return add_term(g, parse_term(text, lang)); }
  bool equal(std::string_view a, std::string_view b) { return g.equivalent(add(a), add(b)); }
  Report run(const std::vector<Rewrite>& rules) { return Runner(unlimited_time()).run(g, rules); }
  SymbolLanguage lang;
  EGraph g;
};

TEST_F(RewriteTest, AppliesPatternRules) {
  add("(+ x (* y 0))");
  std::vector<Rewrite> rules;
  rules.push_back(Rewrite::parse("zero-mul", "(* ?a 0)", "0", lang));
  rules.push_back(Rewrite::parse("zero-add", "(+ ?a 0)", "?a", lang));
  const Report r = run(rules);
  EXPECT_EQ(r.stop, StopReason::Saturated);
  EXPECT_TRUE(equal("(+ x (* y 0))", "x"));
  EXPECT_FALSE(equal("x", "y"));
  EXPECT_EQ(r.rules[0].applied, 1u);
  EXPECT_EQ(r.rules[1].applied, 1u);
}

TEST_F(RewriteTest, RejectsUnboundRightHandVariables) {
  EXPECT_THROW(Rewrite::parse("bad", "(+ ?a 0)", "?b", lang), jit::parse_error);
  EXPECT_THROW(Rewrite::parse("bad", "(+ ?a 0)", "(* ?a ?c)", lang), jit::parse_error);
  EXPECT_THROW(Rewrite::parse("bad", "?x = (foo ?y)", "?x = ?z", lang), jit::parse_error);
  // egg's ok_unbound_var: ?z is bound by its own binding first.
  EXPECT_NO_THROW(Rewrite::parse("ok", "?x = (foo ?y)", "?z = (baz ?y), ?x = ?z", lang));
}

TEST_F(RewriteTest, GuardsReadAnalysisFacts) {
  // cancel-div only where the divisor is not the constant 0.
  add("(/ a a)");
  add("(/ 0 0)");
  add("(/ (- 3 3) (- 3 3))");
  std::vector<Rewrite> rules;
  rules.push_back(Rewrite::parse("cancel-div", "(/ ?a ?a)", "1", lang));
  rules.back().when(constant_where(
      rules.back().var("?a"), [](Label c) { return SymbolLanguage::number_value(c) != 0.0; },
      /*unknown_passes=*/true));
  run(rules);
  EXPECT_TRUE(equal("(/ a a)", "1"));
  EXPECT_FALSE(equal("(/ 0 0)", "1"));
  EXPECT_FALSE(equal("(/ (- 3 3) (- 3 3))", "1"));  // folds to (/ 0 0)
  EXPECT_TRUE(equal("(- 3 3)", "0"));
}

TEST_F(RewriteTest, CallbacksBuildTheRightHandSide) {
  // (double ?x) => (+ ?x ?x), written as code; declines for constants.
  const Id target = add("(double y)");
  add("(double 4)");
  Query lhs = Query::parse("(double ?x)", lang);
  const std::uint32_t x = *lhs.vars().find_class("?x");
  const Op plus = lang.op("+");
  std::vector<Rewrite> rules;
  rules.emplace_back("double", std::move(lhs),
                     [x, plus](EGraph& eg, Id, const Subst& s) -> std::optional<Id> {
                       if (eg.analysis<ConstantFolding>().constant(s[x])) return std::nullopt;
                       return eg.add(Label{plus, 0}, {s[x], s[x]});
                     });
  const Report r = run(rules);
  EXPECT_TRUE(g.equivalent(target, add("(+ y y)")));
  EXPECT_FALSE(equal("(double 4)", "(+ 4 4)"));
  EXPECT_EQ(r.per_iteration.at(0).matches, 2u);  // both matched; one declined
  EXPECT_EQ(r.rules[0].applied, 1u);
}

TEST_F(RewriteTest, MultiPatternRulesMergeAcrossClasses) {
  // Datalog-style: a = b and b = c give a = c, through two separate classes.
  add("(eq a b)");
  add("(eq b c)");
  std::vector<Rewrite> rules;
  rules.push_back(
      Rewrite::parse("trans", "?p = (eq ?x ?y), ?q = (eq ?y ?z)", "?r = (eq ?x ?z)", lang));
  run(rules);
  g.rebuild();
  EXPECT_TRUE(lookup_term(g, parse_term("(eq a c)", lang)).has_value());
  EXPECT_FALSE(lookup_term(g, parse_term("(eq c a)", lang)).has_value());
  // A multi-pattern right-hand side that merges two bound classes.
  std::vector<Rewrite> same;
  same.push_back(Rewrite::parse("same", "?x = (f ?a), ?y = (g ?a)", "?x = ?y", lang));
  add("(f k)");
  add("(g k)");
  add("(g m)");
  run(same);
  EXPECT_TRUE(equal("(f k)", "(g k)"));
  EXPECT_FALSE(equal("(f k)", "(g m)"));
}

TEST_F(RewriteTest, BidirectionalRules) {
  const auto both = parse_bidirectional("zero-add", "(+ ?a 0)", "?a", lang);
  EXPECT_EQ(both[1].name(), "zero-add-rev");
  EXPECT_THROW(parse_bidirectional("bad", "(+ ?a ?b)", "?a", lang), jit::error);
}

TEST(RuleFile, ParsesEggRulesWithGuardsAndContinuations) {
  SymbolLanguage lang;
  const std::string text = R"(
; a comment
comm-add: (+ ?a ?b) => (+ ?b ?a)
zero-add: (+ ?a 0) <=> ?a
div-canon: (/ ?a ?b) => (* ?a (pow ?b -1)) if (not-zero ?b)
d-power: (d ?x (pow ?f ?g))
  => (* (pow ?f ?g)
        (ln ?f))
  if (not-zero ?f)
pair: ?x = (f ?a),
      ?y = (g ?a) => ?x = ?y
)";
  const std::vector<Rewrite> rules = parse_rules(text, lang, math::guards(lang), "t.rules");
  ASSERT_EQ(rules.size(), 6u);
  EXPECT_EQ(rules[1].name(), "zero-add");
  EXPECT_EQ(rules[2].name(), "zero-add-rev");
  EXPECT_EQ(rules[4].name(), "d-power");
  EXPECT_TRUE(rules[5].query().is_multi());
}

TEST(RuleFile, ReportsErrorsWithLocations) {
  SymbolLanguage lang;
  const auto error_at = [&](const std::string& text) {
    try {
      parse_rules(text, lang, math::guards(lang), "t.rules");
    } catch (const jit::parse_error& e) {
      return std::to_string(e.where().line) + ":" + std::to_string(e.where().column);
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_at("a: (+ ?a 0) => ?b"), "1:16");
  EXPECT_EQ(error_at("a: (+ ?a 0) ?a"), "1:1");                    // no arrow
  EXPECT_EQ(error_at("a: (+ ?a 0) => ?a if (bogus ?a)"), "1:23");  // unknown guard
  EXPECT_EQ(error_at("a: (+ ?a 0) => ?a\na: ?a => ?a"), "2:1");    // defined twice
  EXPECT_EQ(error_at("(+ ?a 0) => ?a"), "1:1");                    // no name
  const std::vector<TermEntry> terms = parse_terms("(+ 1 2) => 3 => (+ 2 1)\nx\n", lang);
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_EQ(terms[0].goals.size(), 2u);
  EXPECT_THROW(parse_terms("(+ 1 ?x)", lang), jit::parse_error);
}

}  // namespace
}  // namespace augur::eqsat
