#include "runtime/eqsat/runner.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/eqsat/constant_folding.h"
#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/guards.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/rewrite.h"
#include "runtime/eqsat/term.h"
#include "tests/eqsat/dump.h"

namespace augur::eqsat {
namespace {

class RunnerTest : public ::testing::Test {
 protected:
  Id add(std::string_view text) { return add_term(g, parse_term(text, lang)); }
  void rule(const std::string& name, std::string_view lhs, std::string_view rhs) {
    rules.push_back(Rewrite::parse(name, lhs, rhs, lang));
  }
  static RunOptions options(std::size_t iterations, std::size_t nodes) {
    RunOptions o;
    o.limits = {iterations, nodes, std::chrono::hours(1)};
    return o;
  }
  SymbolLanguage lang;
  EGraph g;
  std::vector<Rewrite> rules;
};

TEST_F(RunnerTest, StopsWhenSaturated) {
  add("(* (+ x 0) 1)");
  rule("zero-add", "(+ ?a 0)", "?a");
  rule("one-mul", "(* ?a 1)", "?a");
  const Report r = Runner(options(30, 10'000)).run(g, rules);
  EXPECT_EQ(r.stop, StopReason::Saturated);
  EXPECT_EQ(to_string(r.stop), "saturated");
  EXPECT_EQ(r.iterations, 2u);  // one that merges, one that finds nothing new
  EXPECT_TRUE(g.equivalent(add("(* (+ x 0) 1)"), add("x")));
  EXPECT_TRUE(g.clean());
}

// egg's math_associate_adds: 7 iterations of commutativity and associativity
// with every match applied give all 127 sums of non-empty subsets of 1..7.
TEST_F(RunnerTest, AssociativityAndCommutativityReachEggsClassCount) {
  add("(+ 1 (+ 2 (+ 3 (+ 4 (+ 5 (+ 6 7))))))");
  rule("comm-add", "(+ ?a ?b)", "(+ ?b ?a)");
  rule("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)");
  RunOptions o = options(7, 1'000'000);
  o.backoff.enabled = false;
  const Report r = Runner(o).run(g, rules);
  EXPECT_EQ(r.stop, StopReason::IterationLimit);
  EXPECT_EQ(r.iterations, 7u);
  EXPECT_EQ(g.class_count(), 127u);
  EXPECT_TRUE(g.equivalent(add("(+ 1 (+ 2 (+ 3 (+ 4 (+ 5 (+ 6 7))))))"),
                           add("(+ 7 (+ 6 (+ 5 (+ 4 (+ 3 (+ 2 1))))))")));
}

TEST_F(RunnerTest, StopsAtTheNodeLimitWithACleanEGraph) {
  add("(+ a (+ b (+ c (+ d (+ e f)))))");
  rule("comm-add", "(+ ?a ?b)", "(+ ?b ?a)");
  rule("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)");
  RunOptions o = options(100, 300);
  o.backoff.enabled = false;
  const Report r = Runner(o).run(g, rules);
  EXPECT_EQ(r.stop, StopReason::NodeLimit);
  EXPECT_GT(g.node_count(), 300u);
  EXPECT_LT(g.node_count(), 400u);  // stops within the iteration, match by match
  EXPECT_TRUE(g.clean());
  EXPECT_EQ(r.nodes, g.node_count());
}

TEST_F(RunnerTest, StopsAtTheIterationLimit) {
  // (f x) = (f (g x)) = (f (g (g x))) = ...: a new class every iteration.
  add("(f x)");
  rule("grow", "(f ?a)", "(f (g ?a))");
  const Report r = Runner(options(4, 1'000'000)).run(g, rules);
  EXPECT_EQ(r.stop, StopReason::IterationLimit);
  EXPECT_EQ(r.iterations, 4u);
  EXPECT_EQ(r.per_iteration.size(), 4u);
  EXPECT_EQ(g.class_count(), 6u);  // x, (g x) ... (g (g (g (g x)))), and the f class
}

TEST_F(RunnerTest, StopsAtTheTimeLimit) {
  add("(f x)");
  rule("grow", "(f ?a)", "(f (g ?a))");
  RunOptions none = options(1'000'000, 1'000'000'000);
  none.limits.time = std::chrono::nanoseconds(0);
  const Report r = Runner(none).run(g, rules);
  EXPECT_EQ(r.stop, StopReason::TimeLimit);
  EXPECT_EQ(r.iterations, 0u);
  // A real deadline on a run that would never end otherwise.
  add("(+ a (+ b (+ c (+ d (+ e (+ f (+ g h)))))))");
  rules.push_back(Rewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", lang));
  rules.push_back(Rewrite::parse("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)", lang));
  RunOptions short_deadline = options(1'000'000, 1'000'000'000);
  short_deadline.limits.time = std::chrono::milliseconds(5);
  const Report t = Runner(short_deadline).run(g, rules);
  EXPECT_EQ(t.stop, StopReason::TimeLimit);
  EXPECT_TRUE(g.clean());
}

TEST_F(RunnerTest, BackoffBansExplosiveRulesAndStillSaturates) {
  for (int i = 0; i < 5; ++i) add("(f x" + std::to_string(i) + ")");
  rule("f-to-g", "(f ?a)", "(g ?a)");
  RunOptions o = options(100, 1'000'000);
  o.backoff.match_limit = 2;
  o.backoff.ban_length = 5;
  const Report r = Runner(o).run(g, rules);
  // 5 matches > 2: banned; the runner skips ahead to the end of the ban
  // instead of declaring saturation; 5 > 4 again, then 5 <= 8 applies.
  EXPECT_EQ(r.rules[0].bans, 2u);
  EXPECT_EQ(r.stop, StopReason::Saturated);
  for (int i = 0; i < 5; ++i) {
    const std::string x = "x" + std::to_string(i);
    EXPECT_TRUE(g.equivalent(add("(f " + x + ")"), add("(g " + x + ")")));
  }
  EXPECT_LT(r.iterations, 8u);
}

TEST_F(RunnerTest, ResultsDoNotDependOnTheThreadCount) {
  // Enough classes that each rule's search is cut into several chunks.
  const std::string term =
      "(+ (* a (+ b c)) (+ (* d (+ e f)) (+ (* g (+ h i)) (* j (+ k (+ l (+ m n)))))))";
  const auto run = [&](unsigned threads) {
    SymbolLanguage language;
    EGraph graph;
    add_term(graph, parse_term(term, language));
    std::vector<Rewrite> rs;
    rs.push_back(Rewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", language));
    rs.push_back(Rewrite::parse("comm-mul", "(* ?a ?b)", "(* ?b ?a)", language));
    rs.push_back(Rewrite::parse("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)", language));
    rs.push_back(
        Rewrite::parse("distribute", "(* ?a (+ ?b ?c))", "(+ (* ?a ?b) (* ?a ?c))", language));
    RunOptions o = options(8, 20'000);
    o.threads = threads;
    const Report r = Runner(o).run(graph, rs);
    std::string summary = std::string(to_string(r.stop)) + " " + std::to_string(r.iterations);
    for (const IterationReport& it : r.per_iteration)
      summary += " " + std::to_string(it.matches) + "/" + std::to_string(it.applied) + "/" +
                 std::to_string(it.congruences);
    for (const RuleReport& rr : r.rules) summary += " " + std::to_string(rr.bans);
    return summary + "\n" + dump(graph);
  };
  const std::string one = run(1);
  EXPECT_GT(one.size(), 10'000u);
  EXPECT_EQ(one, run(2));
  EXPECT_EQ(one, run(3));
}

// Incremental search finds every match that is new: on rules with guards
// that read analysis data, without bans, each iteration ends with the same
// classes and e-nodes as when every rule looks at every candidate, and the
// same terms are equal at the end, while the later iterations find far
// fewer matches.
TEST_F(RunnerTest, IncrementalSearchEndsEachIterationWhereAFullSearchDoes) {
  const std::vector<std::string> terms = {
      "(+ (* 2 (+ a 3)) (* (+ 1 1) (+ b (* 0 c))))",
      "(* (+ a (+ b 1)) (+ (* 3 d) (+ 2 (* e 1))))",
      "(+ (+ (+ x 1) 2) (* (+ x 3) (+ y (+ 4 z))))",
  };
  const std::vector<std::string> probes = {
      "(+ (* 2 a) 6)", "(+ a (+ b 1))", "(+ x 3)", "(* 2 (+ a 3))", "(+ 4 (+ y z))", "b", "x"};
  struct Outcome {
    std::vector<std::size_t> classes, nodes, matches;
    std::vector<bool> equal;  // each probe against each term
  };
  const auto run = [&](bool incremental) {
    SymbolLanguage language;
    const Op plus = language.op("+"), times = language.op("*");
    EGraph graph;
    graph.add_analysis<ConstantFolding>(
        [plus, times](Label node, std::span<const Label> kids) -> std::optional<Label> {
          if (node.op == SymbolLanguage::kNumber) return node;
          if (kids.size() != 2 || (node.op != plus && node.op != times)) return std::nullopt;
          double x = 0, y = 0;
          std::memcpy(&x, &kids[0].payload, sizeof x);
          std::memcpy(&y, &kids[1].payload, sizeof y);
          return SymbolLanguage::number(node.op == plus ? x + y : x * y);
        });
    std::vector<Id> roots;
    for (const std::string& t : terms) roots.push_back(add_term(graph, parse_term(t, language)));
    std::vector<Rewrite> rs;
    rs.push_back(Rewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", language));
    rs.push_back(Rewrite::parse("comm-mul", "(* ?a ?b)", "(* ?b ?a)", language));
    rs.push_back(Rewrite::parse("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)", language));
    rs.push_back(Rewrite::parse("zero-add", "(+ ?a 0)", "?a", language));
    rs.push_back(Rewrite::parse("one-mul", "(* ?a 1)", "?a", language));
    rs.push_back(Rewrite::parse("zero-mul", "(* ?a 0)", "0", language));
    Rewrite& spread = rs.emplace_back(Rewrite::parse("distribute-constant", "(* ?k (+ ?a ?b))",
                                                     "(+ (* ?k ?a) (* ?k ?b))", language));
    spread.when(is_constant(spread.var("?k")));
    EXPECT_TRUE(spread.incremental());
    RunOptions o = options(6, 1'000'000);
    o.backoff.enabled = false;
    o.incremental = incremental;
    const Report r = Runner(o).run(graph, rs);
    Outcome out;
    for (const IterationReport& it : r.per_iteration) {
      out.classes.push_back(it.classes);
      out.nodes.push_back(it.nodes);
      out.matches.push_back(it.matches);
    }
    out.classes.push_back(graph.class_count());
    out.nodes.push_back(graph.node_count());
    for (const std::string& p : probes) {
      const Id probe = add_term(graph, parse_term(p, language));
      for (Id root : roots) out.equal.push_back(graph.equivalent(probe, root));
    }
    return out;
  };
  const Outcome full = run(false), incremental = run(true);
  EXPECT_EQ(incremental.classes, full.classes);
  EXPECT_EQ(incremental.nodes, full.nodes);
  EXPECT_EQ(incremental.equal, full.equal);
  EXPECT_EQ(incremental.matches.front(), full.matches.front());  // the first search is full
  EXPECT_LT(incremental.matches.back() * 2, full.matches.back());
}

// A rule whose guard reads anything is searched in full at every iteration,
// so it finds again the matches it applied; the guard (which may walk the
// graph) is not asked again for them, as applying them would change nothing.
TEST_F(RunnerTest, AGuardIsNotAskedAgainForAMatchAlreadyApplied) {
  const Id fx = add("(f x)");
  Rewrite& guarded = rules.emplace_back(Rewrite::parse("f-to-k", "(f ?x)", "(k ?x)", lang));
  int asked = 0;
  guarded.when([&asked](const EGraph&, Id, const Subst&) { return ++asked > 0; });
  ASSERT_FALSE(guarded.incremental());
  const Report r = Runner(options(10, 1'000)).run(g, rules);
  EXPECT_EQ(r.stop, StopReason::Saturated);
  EXPECT_EQ(r.iterations, 2u);
  EXPECT_TRUE(g.equivalent(fx, add("(k x)")));
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(r.per_iteration.back().matches, 0u);
}

// A guard that reads the e-nodes of a class it binds (Reads::Classes) is
// asked again when that class gets an e-node, though the matched e-nodes
// are old: x's class absorbs (g y) at the first iteration, and (f x) then
// turns into (k x).
TEST_F(RunnerTest, IncrementalSearchAsksAgainAGuardOnAClassThatGotENodes) {
  const Id fx = add("(f x)");
  add("(p x (g y))");
  add("(q x)");  // x's class, with more parents, is the one that survives
  rules.push_back(Rewrite::parse("x-is-g", "(p ?a ?b)", "?a = ?b", lang));
  Rewrite& holds_g = rules.emplace_back(Rewrite::parse("f-to-k", "(f ?x)", "(k ?x)", lang));
  const std::uint32_t x = holds_g.var("?x");
  const Op g_op = lang.op("g");
  holds_g.when(Guard(
      [x, g_op](const EGraph& graph, Id, const Subst& s) {
        for (Id n : graph.nodes_of(s[x]))
          if (graph.node(n).label.op == g_op) return true;
        return false;
      },
      Reads::Classes));
  ASSERT_TRUE(holds_g.incremental());
  const Report r = Runner(options(10, 1'000)).run(g, rules);
  EXPECT_EQ(r.stop, StopReason::Saturated);
  EXPECT_TRUE(g.equivalent(add("x"), add("(g y)")));
  EXPECT_TRUE(g.equivalent(fx, add("(k x)")));
  EXPECT_EQ(r.per_iteration.front().applied, 1u);  // x-is-g only: the guard failed
}

}  // namespace
}  // namespace augur::eqsat
