#include "runtime/eqsat/explain.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "bench/egraph/math.h"
#include "jit/error.h"
#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/rule_file.h"
#include "runtime/eqsat/runner.h"
#include "runtime/eqsat/term.h"

namespace augur::eqsat {
namespace {

bool same(const Term& a, std::uint32_t i, const Term& b, std::uint32_t j) {
  const Term::Node& x = a.nodes[i];
  const Term::Node& y = b.nodes[j];
  if (x.label != y.label || x.children.size() != y.children.size()) return false;
  for (std::size_t k = 0; k < x.children.size(); ++k)
    if (!same(a, x.children[k], b, y.children[k])) return false;
  return true;
}

// Syntactic matching of a pattern against a term; `bound` maps class
// variables to (term, node) and must agree where already set.
using Binding = std::map<std::uint32_t, std::pair<const Term*, std::uint32_t>>;
bool match(const Pattern& p, std::uint32_t pn, const Term& t, std::uint32_t tn, Binding& bound) {
  const PatternNode& n = p.nodes[pn];
  if (n.kind == PatternNode::Kind::Var) {
    auto it = bound.find(n.var);
    if (it == bound.end()) {
      bound[n.var] = {&t, tn};
      return true;
    }
    return same(*it->second.first, it->second.second, t, tn);
  }
  const Term::Node& node = t.nodes[tn];
  if (node.label != n.label || node.children.size() != n.children.size()) return false;
  for (std::size_t k = 0; k < n.children.size(); ++k)
    if (!match(p, n.children[k], t, node.children[k], bound)) return false;
  return true;
}

// Checks every step of a proof: the chain is connected; a congruence step
// relates equal labels and carries a checked proof per child; a rule step
// relates an instance of its left side to the same instance of its right
// side; a fold step relates an operator over constants to its value.
void check(const Proof& proof, const EGraph& g, const std::vector<Rewrite>& rules) {
  const Explain& ex = *g.explanations();
  Id at = proof.from;
  for (const Proof::Step& step : proof.steps) {
    ASSERT_EQ(step.from, at);
    at = step.to;
    const std::string_view why = g.reason_name(step.why);
    if (step.why == kCongruenceReason) {
      ASSERT_EQ(ex.label(step.from), ex.label(step.to));
      const auto a = ex.original_children(step.from), b = ex.original_children(step.to);
      ASSERT_EQ(step.children.size(), a.size());
      for (std::size_t k = 0; k < a.size(); ++k) {
        EXPECT_EQ(step.children[k]->from, a[k]);
        EXPECT_EQ(step.children[k]->to, b[k]);
        check(*step.children[k], g, rules);
      }
      continue;
    }
    const Term from = ex.term(step.from), to = ex.term(step.to);
    if (why == "constant-fold") {
      const Term::Node& op = from.nodes[from.root()];
      ASSERT_EQ(op.children.size(), 2u);
      const double x = *SymbolLanguage::number_value(from.nodes[op.children[0]].label);
      const double y = *SymbolLanguage::number_value(from.nodes[op.children[1]].label);
      const double r = *SymbolLanguage::number_value(to.nodes[to.root()].label);
      EXPECT_TRUE(r == x + y || r == x - y || r == x * y || r == x / y);
      continue;
    }
    const Rewrite* rule = nullptr;
    for (const Rewrite& r : rules)
      if (r.name() == why) rule = &r;
    ASSERT_NE(rule, nullptr) << "unknown reason " << why;
    // Rebuild the right side from the rule's text via its own matcher: the
    // left side must match one end and the right side the other, under one
    // substitution.
    const Term& lhs_term = step.reversed ? to : from;
    const Term& rhs_term = step.reversed ? from : to;
    Binding bound;
    const Pattern& lhs = rule->query().pattern();
    ASSERT_TRUE(match(lhs, lhs.root(), lhs_term, lhs_term.root(), bound)) << why;
    ASSERT_TRUE(rule->rhs_pattern() != nullptr);
    const Pattern& rhs = *rule->rhs_pattern();
    EXPECT_TRUE(match(rhs, rhs.root(), rhs_term, rhs_term.root(), bound)) << why;
  }
  EXPECT_EQ(at, proof.to);
}

RunOptions limits(std::size_t iterations, std::size_t nodes) {
  RunOptions o;
  o.limits = {iterations, nodes, std::chrono::hours(1)};
  return o;
}

class ExplainTest : public ::testing::Test {
 protected:
  ExplainTest() : g(EGraphOptions{.explanations = true}) { math::add_constant_folding(g, lang); }
  SymbolLanguage lang;
  EGraph g;
};

TEST_F(ExplainTest, ProvesRuleChainsThroughCongruence) {
  const std::vector<Rewrite> rules = parse_rules(R"(
zero-mul: (* ?a 0) => 0
zero-add: (+ ?a 0) => ?a
comm-add: (+ ?a ?b) => (+ ?b ?a)
)",
                                                 lang, {});
  const Id start = add_term_exact(g, parse_term("(+ (* b 0) a)", lang));
  Runner(limits(10, 1000)).run(g, rules);
  const Id goal = add_term_exact(g, parse_term("a", lang));
  ASSERT_TRUE(g.equivalent(start, goal));
  const Proof proof = g.explanations()->prove(start, goal);
  check(proof, g, rules);
  const std::string text = print_proof(proof, g, lang);
  EXPECT_NE(text.find("[zero-mul]"), std::string::npos) << text;
  EXPECT_NE(text.find("[zero-add]"), std::string::npos) << text;
  EXPECT_EQ(text.substr(0, text.find('\n')), "(+ (* b 0) a)");
}

TEST_F(ExplainTest, ProvesTheArithmeticSuitesHardestCancellation) {
  const std::vector<Rewrite> rules = parse_rules(R"(
comm-mul:  (* ?a ?b)        => (* ?b ?a)
assoc-mul: (* ?a (* ?b ?c)) => (* (* ?a ?b) ?c)
div-canon: (/ ?a ?b) => (* ?a (pow ?b -1)) if (not-zero ?b)
one-mul:  (* ?a 1) => ?a
pow-recip: (pow ?x -1) => (/ 1 ?x) if (not-zero ?x)
)",
                                                 lang, math::guards(lang));
  const Id start = add_term_exact(g, parse_term("(/ (* x 2) 2)", lang));
  Runner(limits(10, 5000)).run(g, rules);
  const Id goal = add_term_exact(g, parse_term("x", lang));
  ASSERT_TRUE(g.equivalent(start, goal));
  const Proof proof = g.explanations()->prove(start, goal);
  check(proof, g, rules);
  const std::string text = print_proof(proof, g, lang);
  EXPECT_NE(text.find("[constant-fold]"), std::string::npos) << text;
  EXPECT_NE(text.find("[div-canon]"), std::string::npos) << text;
}

TEST_F(ExplainTest, ExplainsGivenMergesAndTheirCongruences) {
  const Id fa = add_term_exact(g, parse_term("(f a c)", lang));
  const Id fb = add_term_exact(g, parse_term("(f b c)", lang));
  g.merge(add_term_exact(g, parse_term("a", lang)), add_term_exact(g, parse_term("b", lang)),
          g.reason("a-is-b"));
  g.rebuild();
  const Proof proof = g.explanations()->prove(fa, fb);
  ASSERT_EQ(proof.steps.size(), 1u);
  EXPECT_EQ(proof.steps[0].why, kCongruenceReason);
  EXPECT_EQ(print_proof(proof, g, lang),
            "(f a c)\n= (f b c)   [congruence]\n    a\n    = b   [a-is-b]\n");
  EXPECT_EQ(proof.size(), 2u);
  const Id other = add_term_exact(g, parse_term("d", lang));
  EXPECT_THROW(g.explanations()->prove(fa, other), jit::error);
}

TEST(ExplainOff, RecordsNothing) {
  SymbolLanguage lang;
  EGraph g;
  add_term(g, parse_term("(f a)", lang));
  EXPECT_EQ(g.explanations(), nullptr);
  EXPECT_THROW(print_proof(Proof{}, g, lang), jit::error);
}

}  // namespace
}  // namespace augur::eqsat
