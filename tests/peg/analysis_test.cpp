#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
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
#include "runtime/eqsat/runner.h"
#include "runtime/eqsat/term.h"
#include "runtime/peg/axioms.h"
#include "runtime/peg/peg_egraph.h"
#include "runtime/peg/peg_fold.h"
#include "runtime/peg/peg_language.h"
#include "runtime/peg/peg_ops.h"

namespace augur::eqsat {
namespace {

class ConstantFoldingTest : public ::testing::Test {
 protected:
  ConstantFoldingTest() { math::add_constant_folding(g, lang); }
  Id add(std::string_view text) { return add_term(g, parse_term(text, lang)); }
  std::optional<double> constant(Id id) {
    const std::optional<Label> c = g.analysis<ConstantFolding>().constant(id);
    return c ? SymbolLanguage::number_value(*c) : std::nullopt;
  }
  SymbolLanguage lang;
  EGraph g;
};

TEST_F(ConstantFoldingTest, FoldsOnAddAndAfterMerges) {
  EXPECT_EQ(constant(add("(* (+ 2 3) (- 7 4))")), 15.0);
  EXPECT_EQ(constant(add("(/ 1 0)")), std::nullopt);  // the fold declines
  const Id sum = add("(+ a 2)");
  const Id product = add("(* b (+ a 2))");
  EXPECT_EQ(constant(sum), std::nullopt);
  g.merge(add("a"), add("3"));
  // The merged class knows its constant at once; its parents after rebuild.
  EXPECT_EQ(constant(add("a")), 3.0);
  g.rebuild();
  EXPECT_EQ(constant(sum), 5.0);
  EXPECT_TRUE(g.equivalent(sum, add("5")));
  EXPECT_EQ(constant(product), std::nullopt);
  g.merge(add("b"), add("2"));
  g.rebuild();
  EXPECT_EQ(constant(product), 10.0);
  EXPECT_TRUE(g.equivalent(product, add("10")));
  // Pruned to its leaves: the constant (and a, b where they are leaves).
  for (Id n : g.nodes_of(product)) EXPECT_TRUE(g.node(n).children.empty());
  // Still equal to its former e-nodes: they stay in the hash-consing table.
  const std::vector<Id> children{add("b"), sum};
  EXPECT_EQ(g.lookup(*lang.parse_label("*", 2), children), g.find(product));
}

TEST_F(ConstantFoldingTest, TwoConstantsInOneClassAreAnError) {
  const Id two = add("(+ 1 1)");
  const Id three = add("3");
  EXPECT_THROW(g.merge(two, three), jit::error);
}

TEST(ConstantFolding, KeepsAllNodesWithoutPruning) {
  SymbolLanguage lang;
  EGraph g;
  const Op plus = lang.op("+");
  g.add_analysis<ConstantFolding>(
      [plus](Label n, std::span<const Label> c) -> std::optional<Label> {
        if (c.empty()) return n.op == SymbolLanguage::kNumber ? std::optional(n) : std::nullopt;
        if (n.op != plus) return std::nullopt;
        return SymbolLanguage::number(*SymbolLanguage::number_value(c[0]) +
                                      *SymbolLanguage::number_value(c[1]));
      },
      ConstantFolding::Options{.prune = false});
  const Id sum = add_term(g, parse_term("(+ 1 2)", lang));
  g.rebuild();
  EXPECT_EQ(g.nodes_of(sum).size(), 2u);  // (+ 1 2) and 3
}

// The engine assumes nothing about numbers: a client with typed constants
// (the payload is an i32's bit pattern) and wrapping addition.
TEST(ConstantFolding, UsesTheClientsSemantics) {
  constexpr Op kConstI32 = 0, kAddI32 = 1, kParam = 2;
  EGraph g;
  const ConstantFolding& fold = g.add_analysis<ConstantFolding>(
      [](Label n, std::span<const Label> c) -> std::optional<Label> {
        if (n.op == kConstI32) return n;
        if (n.op != kAddI32 || c.size() != 2) return std::nullopt;
        const auto sum = static_cast<std::uint32_t>(c[0].payload + c[1].payload);
        return Label{kConstI32, sum};
      });
  const Id max = g.add(Label{kConstI32, 0x7fffffff});
  const Id one = g.add(Label{kConstI32, 1});
  const Id wrapped = g.add(Label{kAddI32, 0}, {max, one});
  const Id x = g.add(Label{kParam, 0});
  const Id unknown = g.add(Label{kAddI32, 0}, {x, one});
  g.rebuild();
  EXPECT_EQ(fold.constant(wrapped), (Label{kConstI32, 0x80000000u}));
  EXPECT_TRUE(g.equivalent(wrapped, g.add(Label{kConstI32, 0x80000000u})));
  EXPECT_EQ(fold.constant(unknown), std::nullopt);
}

// A client analysis: the size of the smallest term in each class. After
// every rebuild, each class's data must be the join (min) over its e-nodes.
struct MinSize : ClassAnalysis<std::uint32_t> {
  std::string_view name() const override { return "min-size"; }
  std::uint32_t make(const EGraph&, const ENodeView& n) const override {
    std::uint32_t size = 1;
    for (Id c : n.children) size += (*this)[c];
    return size;
  }
  bool join(std::uint32_t& into, const std::uint32_t& from) const override {
    if (from >= into) return false;
    into = from;
    return true;
  }
};

TEST(ClientAnalysis, StaysConsistentAcrossRandomMerges) {
  for (unsigned seed = 0; seed < 10; ++seed) {
    SymbolLanguage lang;
    EGraph g;
    const MinSize& size = g.add_analysis<MinSize>();
    std::mt19937 rng(seed);
    std::vector<Id> ids;
    for (const char* leaf : {"a", "b", "c"}) ids.push_back(g.add(*lang.parse_label(leaf, 0)));
    const auto pick = [&] {
      return ids[std::uniform_int_distribution<std::size_t>(0, ids.size() - 1)(rng)];
    };
    for (int i = 0; i < 40; ++i) {
      const Id x = pick(), y = pick();
      ids.push_back(g.add(*lang.parse_label(i % 2 ? "f" : "g", 2), {x, y}));
    }
    for (int m = 0; m < 8; ++m) {
      g.merge(pick(), pick());
      if (m % 3 == 2) g.rebuild();
    }
    g.rebuild();
    for (Id c : g.classes()) {
      std::uint32_t best = ~0u;
      for (Id n : g.nodes_of(c)) {
        std::uint32_t s = 1;
        for (Id child : g.node(n).children) s += size[child];
        best = std::min(best, s);
      }
      EXPECT_EQ(size[c], best) << "seed " << seed << " class " << index(c);
    }
  }
}

// PEG-like loop nodes: (theta init next), (eval seq index), (pass cond), the
// loop index in the payload.
class LoopInvarianceTest : public ::testing::Test {
 protected:
  LoopInvarianceTest()
      : theta(lang.op("theta")),
        eval(lang.op("eval")),
        pass(lang.op("pass")),
        loops(g.add_analysis<LoopInvariance>([this](const EGraph&, const ENodeView& n) {
          if (n.label.op == theta)
            return LoopRole{LoopRole::Kind::Theta, unsigned(n.label.payload)};
          if (n.label.op == eval)
            return LoopRole{LoopRole::Kind::Eval, unsigned(n.label.payload), 1};
          if (n.label.op == pass) return LoopRole{LoopRole::Kind::Pass, unsigned(n.label.payload)};
          return LoopRole{};
        })) {}
  Id add(std::string_view text) { return add_term(g, parse_term(text, lang)); }
  // v = (theta_loop init (op v step)): a loop variable, closed through a placeholder.
  Id loop_var(unsigned loop, Id init, std::string_view op, Id step) {
    const Id self = g.add_placeholder();
    const Id next = g.add(*lang.parse_label(op, 2), {self, step});
    const Id v = g.add(Label{theta, loop}, {init, next});
    g.merge(self, v);
    return v;
  }
  SymbolLanguage lang;
  Op theta, eval, pass;
  EGraph g;
  const LoopInvariance& loops;
};

TEST_F(LoopInvarianceTest, FollowsTatesDefinition) {
  const Id n = add("n");
  const Id i = loop_var(1, add("0"), "+", add("1"));  // i = θ1(0, i + 1)
  const Id j = loop_var(2, add("(* n 2)"), "+", n);   // j = θ2(n*2, j + n)
  const Id k = loop_var(2, i, "+", add("1"));         // k = θ2(i, k + 1)
  const Id exit = g.add(Label{pass, 1}, {add("(< i n)")});
  const Id result = g.add(Label{eval, 1}, {i, exit});
  const Id mixed = g.add(*lang.parse_label("+", 2), {i, j});
  g.rebuild();
  EXPECT_FALSE(loops.invariant(i, 1));
  EXPECT_TRUE(loops.invariant(i, 2));
  EXPECT_TRUE(loops.invariant(add("(* n 2)"), 1));
  // The inner loop variable j: optimistic through its own cycle, so invariant
  // in the outer loop because its init and step are.
  EXPECT_FALSE(loops.invariant(j, 2));
  EXPECT_TRUE(loops.invariant(j, 1));
  // k starts from i, so it varies in both loops.
  EXPECT_FALSE(loops.invariant(k, 1));
  EXPECT_FALSE(loops.invariant(k, 2));
  EXPECT_TRUE(loops.invariant(exit, 1));    // pass_1 never varies in loop 1
  EXPECT_TRUE(loops.invariant(result, 1));  // eval_1 at an invariant index
  EXPECT_EQ(loops.depth(mixed), 2u);
  EXPECT_EQ(loops.depth(i), 1u);
  EXPECT_EQ(loops.depth(n), 0u);
  // A merge makes a class as invariant as its best member.
  g.merge(k, add("m"));
  g.rebuild();
  EXPECT_TRUE(loops.invariant(k, 1));
  EXPECT_TRUE(loops.invariant(k, 2));
}

// Optimism through θ is settled in rounds: each assumes what the last gave
// for θs' next values. An inner sum over an outer variable varies in the
// outer loop only once a round has seen its next value do so (two rounds),
// and a sum over that sum one round later (three).
TEST_F(LoopInvarianceTest, InnerSumsOfOuterValuesVaryInTheOuterLoop) {
  const Id i = loop_var(1, add("0"), "+", add("1"));  // i = θ1(0, i + 1)
  const Id m = loop_var(2, add("0"), "+", i);         // m = θ2(0, m + i)
  const Id p = loop_var(2, add("0"), "+", m);         // p = θ2(0, p + m)
  const Id q = loop_var(2, add("0"), "+", add("n"));  // q = θ2(0, q + n)
  g.rebuild();
  EXPECT_FALSE(loops.invariant(m, 1));
  EXPECT_FALSE(loops.invariant(m, 2));
  EXPECT_FALSE(loops.invariant(p, 1));
  EXPECT_FALSE(loops.invariant(p, 2));
  EXPECT_TRUE(loops.invariant(q, 1));
  EXPECT_FALSE(loops.invariant(q, 2));
  // Once m is known to be a constant, both sums are invariant in the outer
  // loop again, and the next rebuild says so.
  g.merge(m, add("7"));
  g.rebuild();
  EXPECT_TRUE(loops.invariant(m, 1));
  EXPECT_TRUE(loops.invariant(p, 1));
  EXPECT_FALSE(loops.invariant(p, 2));
}

// Each rebuild's first round starts from the last one's and revisits only
// what changed: after random additions and merges, every class's variance
// is what Tate's definition gives for the e-graph as it is, computed here
// from scratch (rounds raising the variance assumed for θs' next values
// until it is what the round gives). Some additions close cycles through a
// loop's exit, where the analysis withdraws optimism: then it lies between
// Tate's and no optimism at all.
TEST_F(LoopInvarianceTest, MatchesAFreshComputationAfterEveryRebuild) {
  // Tate's rounds; without optimism, a θ's next value counts as it is.
  const auto reference = [&](bool optimistic) {
    std::vector<Id> classes(g.classes().begin(), g.classes().end());
    const auto var = [&](const std::vector<std::uint64_t>& v, Id c) { return v[index(g.find(c))]; };
    std::vector<std::uint64_t> assumed(g.id_count(), 0), v;
    for (;;) {
      v.assign(g.id_count(), ~std::uint64_t{0});
      for (bool changed = true; changed;) {
        changed = false;
        for (Id c : classes) {
          std::uint64_t x = ~std::uint64_t{0};
          for (Id n : g.nodes_of(c)) {
            const ENodeView node = g.node(n);
            const bool in_loop =
                node.label.op == theta || node.label.op == pass || node.label.op == eval;
            const std::uint64_t bit = in_loop ? std::uint64_t{1} << (node.label.payload - 1) : 0;
            std::uint64_t y = 0;
            for (std::size_t k = 0; k < node.children.size(); ++k)
              y |= (optimistic && node.label.op == theta && k == 1) ? var(assumed, node.children[k])
                                                                    : var(v, node.children[k]);
            if (node.label.op == theta) y |= bit;
            if (node.label.op == pass) y &= ~bit;
            if (node.label.op == eval) y = (y & ~bit) | (var(v, node.children[1]) & bit);
            x &= y;
          }
          if (x != v[index(c)]) {
            v[index(c)] = x;
            changed = true;
          }
        }
      }
      if (v == assumed) return v;
      assumed = v;
    }
  };
  int exact = 0, withdrawn = 0;
  for (unsigned seed = 0; seed < 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::vector<Id> ids;
    for (const char* leaf : {"n", "m", "0", "1"}) ids.push_back(add(leaf));
    const auto pick = [&] {
      return ids[std::uniform_int_distribution<std::size_t>(0, ids.size() - 1)(rng)];
    };
    const auto loop = [&] { return std::uniform_int_distribution<unsigned>(1, 3)(rng); };
    const auto grow = [&](int count) {
      for (int i = 0; i < count; ++i) {
        switch (rng() % 16) {
          case 0:
            ids.push_back(loop_var(loop(), pick(), rng() % 2 ? "+" : "*", pick()));
            break;
          case 1: {
            const unsigned l = loop();
            ids.push_back(g.add(Label{eval, l}, {pick(), g.add(Label{pass, l}, {pick()})}));
            break;
          }
          case 2: {
            // A value equal to the exit of a loop that reads it: the cycle
            // Tate's optimism does not cover.
            const unsigned l = loop();
            const Id x = pick();
            const Id t = loop_var(l, pick(), rng() % 2 ? "+" : "*", x);
            g.merge(x, g.add(Label{eval, l}, {t, g.add(Label{pass, l}, {pick()})}));
            ids.push_back(t);
            break;
          }
          default:
            ids.push_back(g.add(*lang.parse_label(rng() % 2 ? "+" : "*", 2), {pick(), pick()}));
        }
      }
    };
    grow(30);
    for (int round = 0; round < 6; ++round) {
      g.rebuild();
      const std::vector<std::uint64_t> expected = reference(true);
      const std::vector<std::uint64_t> pessimistic = reference(false);
      // Where the analysis withdrew optimism from a cycle through an exit of
      // the θ's own loop, it lies between no optimism and Tate's.
      for (Id c : g.classes()) {
        const std::uint64_t v = loops.variant_loops(c);
        if (loops.withdrawn_count() == 0) {
          EXPECT_EQ(v, expected[index(c)]) << "round " << round << " class " << index(c);
        } else {
          EXPECT_EQ(expected[index(c)] & ~v, 0u) << "round " << round << " class " << index(c);
          EXPECT_EQ(v & ~pessimistic[index(c)], 0u) << "round " << round << " class " << index(c);
        }
      }
      (loops.withdrawn_count() == 0 ? exact : withdrawn) += 1;
      grow(8);
      for (int m = 0; m < 2; ++m) g.merge(pick(), pick());
    }
  }
  // Both cases are exercised.
  EXPECT_GT(exact, 0);
  EXPECT_GT(withdrawn, 0);
}

// x = i + 1 varies in loop 1. Once rules know that the inner loop
// t = θ2(0, t + x) runs once, x's class also holds eval2(t, pass2(…)): true,
// but t's optimism is an induction on loop 2's iterations, and this cycle
// leaves loop 2 through its exit; read optimistically, it would make x
// invariant in loop 1 whatever x is. An inner loop whose state only goes
// round its own θ keeps its optimism.
TEST_F(LoopInvarianceTest, ACycleThroughAnExitOfTheThetasOwnLoopProvesNothing) {
  const Id i = loop_var(1, add("0"), "+", add("1"));
  const Id x = g.add(*lang.parse_label("+", 2), {i, add("1")});
  const Id t = loop_var(2, add("0"), "+", x);
  const Id once = g.add(Label{eval, 2}, {t, g.add(Label{pass, 2}, {add("true")})});
  // q = θ2(n, q * 1), which rules found equal to q * 1 and to its own exit.
  const Id q = loop_var(2, add("n"), "*", add("1"));
  const Id q_out = g.add(Label{eval, 2}, {q, g.add(Label{pass, 2}, {add("c")})});
  g.merge(q, g.add(*lang.parse_label("*", 2), {q, add("1")}));
  g.merge(q_out, q);
  g.rebuild();
  EXPECT_FALSE(loops.invariant(x, 1));
  EXPECT_FALSE(loops.invariant(t, 1));
  EXPECT_TRUE(loops.invariant(q, 1));
  EXPECT_TRUE(loops.invariant(q_out, 1));
  EXPECT_EQ(loops.withdrawn_count(), 0u);
  g.merge(x, once);
  g.rebuild();
  EXPECT_FALSE(loops.invariant(x, 1));
  EXPECT_FALSE(loops.invariant(t, 1));
  EXPECT_FALSE(loops.invariant(once, 1));
  EXPECT_GT(loops.withdrawn_count(), 0u);
  EXPECT_TRUE(loops.invariant(q, 1));
  EXPECT_TRUE(loops.invariant(q_out, 1));
  EXPECT_TRUE(loops.invariant(x, 2));
}

TEST_F(LoopInvarianceTest, GuardsLiftInvariantFactorsOutOfThetas) {
  // (* (theta:?l ?a ?b) ?m) => (theta:?l (* ?a ?m) (* ?b ?m)) when ?m is invariant in ?l.
  const Id m = add("m");
  const Id i = loop_var(1, add("0"), "+", add("1"));
  const Id scaled_by_m = g.add(*lang.parse_label("*", 2), {i, m});
  const Id scaled_by_i = g.add(*lang.parse_label("*", 2), {i, i});
  std::vector<Rewrite> rules;
  rules.push_back(Rewrite::parse("theta-mul", "(* (theta:?l ?a ?b) ?m)",
                                 "(theta:?l (* ?a ?m) (* ?b ?m))", lang));
  const std::uint32_t l = *rules[0].query().vars().find_payload("?l");
  rules[0].when(invariant_in_bound_loop(rules[0].var("?m"), l));
  RunOptions o;
  o.limits = {1, 1000, std::chrono::hours(1)};
  Runner(o).run(g, rules);
  EXPECT_EQ(g.indexed(g.find(scaled_by_m), theta).size(), 1u);
  EXPECT_TRUE(g.indexed(g.find(scaled_by_i), theta).empty());
}

TEST_F(LoopInvarianceTest, RejectsLoopIndicesOutOfRange) {
  const Id x = add("x");
  g.add(Label{theta, 65}, {x, x});
  EXPECT_THROW(g.rebuild(), jit::error);
}

// x * -1.0 = -x and a + b = b + a hold for NaNs too (IEEE leaves the sign
// and payload of a result NaN open) but fold to NaNs of other signs and
// payloads: the PEG's constant folding takes them for one value (the
// differential test's seed 1000618 put +NaN and -NaN in one class).
TEST(PegConstantFolding, EveryNaNIsOneValue) {
  peg::PegLanguage lang;
  std::unique_ptr<EGraph> g = peg::make_peg_egraph();
  const auto add = [&](std::string_view text) { return add_term(*g, parse_term(text, lang)); };
  const Id times_minus_one = add("(mul.f64 param.f64@0 -1.0f64)");
  const Id sum = add("(add.f32 param.f32@1 param.f32@2)");
  std::vector<Rewrite> rules;
  peg::add_arith_axioms(rules, lang);
  Runner runner;
  runner.run(*g, rules);
  ASSERT_TRUE(g->equivalent(times_minus_one, add("(neg.f64 param.f64@0)")));
  ASSERT_TRUE(g->equivalent(sum, add("(add.f32 param.f32@2 param.f32@1)")));
  // Now the operands turn out to be NaNs: x * -1.0 keeps x's sign, -x flips
  // it; a + b is a's NaN on x86, b + a is b's.
  g->merge(add("param.f64@0"), add("(div.f64 0.0f64 0.0f64)"));
  g->merge(add("param.f32@1"), add("nan_f32"));
  g->merge(add("param.f32@2"), add("(neg.f32 nan_f32)"));
  ASSERT_NO_THROW(g->rebuild());
  const ConstantFolding& constants = peg::constants(*g);
  ASSERT_TRUE(constants.constant(times_minus_one).has_value());
  ASSERT_TRUE(constants.constant(sum).has_value());
  EXPECT_TRUE(peg::same_constant(*constants.constant(times_minus_one),
                                 *constants.constant(add("nan_f64"))));
  EXPECT_TRUE(peg::same_constant(*constants.constant(sum), *constants.constant(add("nan_f32"))));
  // Other constants stay apart.
  EXPECT_FALSE(
      peg::same_constant(*constants.constant(add("0.0f64")), *constants.constant(add("-0.0f64"))));
  EXPECT_FALSE(
      peg::same_constant(*constants.constant(add("nan_f32")), *constants.constant(add("nan_f64"))));
}

// A constant's integer value: sign-extended from its width for a signed type,
// its bits for an unsigned one, none for a float, a pointer or a σ (reversion
// bounds a table read by it, the heap axioms compare offsets with it).
TEST(PegConstants, IntegerValueReadsOnlyIntegerTypes) {
  using peg::integer_value;
  using peg::PegType;
  EXPECT_EQ(integer_value(PegType(ir::Type::i8()), 0xff), -1);
  EXPECT_EQ(integer_value(PegType(ir::Type::u8()), 0xff), 255);
  EXPECT_EQ(integer_value(PegType(ir::Type::i32()), 0x7fffffff), 0x7fffffff);
  EXPECT_EQ(integer_value(PegType(ir::Type::i64()), ~std::uint64_t{0}), -1);
  EXPECT_FALSE(integer_value(PegType(ir::Type::f64()), 0x3ff0000000000000));
  EXPECT_FALSE(integer_value(PegType(ir::Type::bool_()), 1));
  EXPECT_FALSE(integer_value(PegType(ir::Type::pointer_to(ir::Scalar::I32)), 8));
  EXPECT_FALSE(integer_value(PegType::state(), 0));
}

// Constants are reassociated through chains of them, in one iteration and
// without making every grouping: a pointer moved one step at a time 40
// times is its start plus 40, a step back and three forward two ahead, and
// x * 2 * 3 is x * 6; products of non-constants are not regrouped.
TEST(PegArithmetic, FoldsChainsOfConstantsInOneIteration) {
  peg::PegLanguage lang;
  std::unique_ptr<EGraph> g = peg::make_peg_egraph();
  const auto add = [&](std::string_view text) { return add_term(*g, parse_term(text, lang)); };
  std::string walk = "param.i32@0";
  for (int i = 0; i < 40; ++i) walk = "(add.i32 " + walk + " 1i32)";
  const Id far = add(walk);
  const Id back_and_forth = add("(add.i32 (sub.i32 param.i32@0 1i32) 3i32)");
  const Id scaled = add("(mul.i64 (mul.i64 param.i64@1 2i64) 3i64)");
  const Id grouped = add("(add.i32 (add.i32 param.i32@0 param.i32@2) param.i32@3)");
  std::vector<Rewrite> rules;
  peg::add_arith_axioms(rules, lang);
  RunOptions one;
  one.limits.iterations = 1;
  const Report r = Runner(one).run(*g, rules);
  EXPECT_EQ(r.iterations, 1u);
  EXPECT_TRUE(g->equivalent(far, add("(add.i32 param.i32@0 40i32)")));
  EXPECT_TRUE(g->equivalent(back_and_forth, add("(add.i32 param.i32@0 2i32)")));
  EXPECT_TRUE(g->equivalent(scaled, add("(mul.i64 param.i64@1 6i64)")));
  Runner().run(*g, rules);
  EXPECT_FALSE(
      g->equivalent(grouped, add("(add.i32 param.i32@0 (add.i32 param.i32@2 param.i32@3))")));
  // Each step of the walk has one form over the start, not one over every
  // step before it: the e-graph stays linear in the walk.
  EXPECT_LT(g->node_count(), 12u * 40u);
}

// Commutativity is the e-graph's (peg::commutative), not rules': 1 * x and
// -0.0 + x simplify by rules written for x * 1 and x + -0.0, and x + y is
// y + x without a second e-node. Float min is no commutative operator (which
// of -0.0 and +0.0 it gives depends on the order).
TEST(PegArithmetic, CommutativeOperatorsMatchInEitherOrder) {
  peg::PegLanguage lang;
  std::unique_ptr<EGraph> g = peg::make_peg_egraph();
  const auto add = [&](std::string_view text) { return add_term(*g, parse_term(text, lang)); };
  const Id x = add("param.f64@0");
  const Id one_x = add("(mul.f64 1.0f64 param.f64@0)");
  const Id zero_x = add("(add.f64 -0.0f64 param.f64@0)");
  const Id xy = add("(add.i32 param.i32@1 param.i32@2)");
  const std::size_t nodes = g->node_count();
  EXPECT_EQ(add("(add.i32 param.i32@2 param.i32@1)"), xy);
  EXPECT_EQ(g->node_count(), nodes);
  const Id min_xz = add("(min.f64 param.f64@0 -0.0f64)");
  const Id min_zx = add("(min.f64 -0.0f64 param.f64@0)");
  std::vector<Rewrite> rules;
  peg::add_arith_axioms(rules, lang);
  Runner().run(*g, rules);
  EXPECT_TRUE(g->equivalent(one_x, x));
  EXPECT_TRUE(g->equivalent(zero_x, x));
  EXPECT_FALSE(g->equivalent(min_xz, min_zx));
}

// The store-store rule drops a store a later one to the same address
// overwrites only when the new value can be computed without the dropped
// store's memory. Its walk takes a cycle through a loop's back edge for a
// loop variable and assumes it avoids the memory until it finds otherwise;
// any other cycle is no way around it.
class PegOverwrittenStore : public ::testing::Test {
 protected:
  PegOverwrittenStore() : g(peg::make_peg_egraph()) {
    std::vector<Rewrite> all;
    peg::add_heap_axioms(all, lang);
    for (Rewrite& r : all)
      if (r.name() == "store-store.i32") rules.push_back(std::move(r));
  }
  Id add(std::string_view text) { return add_term(*g, parse_term(text, lang)); }
  Id i32(peg::Kind kind, std::initializer_list<Id> children, std::uint64_t payload = 0) {
    return g->add(peg::label(kind, peg::PegType(ir::Type::i32()), payload), children);
  }
  // Whether store(dropped, p, i, w) became store(memory before, p, i, w).
  bool dropped(Id i, Id w) {
    const Id p = add("param.i32*@1");
    const Id before = add("state0.state");
    const Id store = g->add(peg::label(peg::Kind::Store, peg::PegType(ir::Type::i32())),
                            {dropped_store(i), p, i, w});
    Runner().run(*g, rules);
    return g->equivalent(store, g->add(peg::label(peg::Kind::Store, peg::PegType(ir::Type::i32())),
                                       {before, p, i, w}));
  }
  Id dropped_store(Id i) {
    return g->add(peg::label(peg::Kind::Store, peg::PegType(ir::Type::i32())),
                  {add("state0.state"), add("param.i32*@1"), i, add("param.i32@2")});
  }
  Id reads_dropped(Id i) {
    return g->add(peg::label(peg::Kind::Load, peg::PegType(ir::Type::i32())),
                  {dropped_store(i), add("param.i32*@1"), i});
  }
  // θ(0, next(self)) at loop 1.
  Id loop_variable(const std::function<Id(Id self)>& next) {
    const Id self = g->add_placeholder();
    const Id theta = i32(peg::Kind::Theta, {add("0i32"), next(self)}, 1);
    g->merge(self, theta);
    return g->find(theta);
  }
  peg::PegLanguage lang;
  std::unique_ptr<EGraph> g;
  std::vector<Rewrite> rules;
};

TEST_F(PegOverwrittenStore, ALoopIndexAndTheMemoryBeforeAreWaysAround) {
  const Id k = loop_variable([&](Id self) { return i32(peg::Kind::Add, {self, add("1i32")}); });
  const Id old = i32(peg::Kind::Load, {add("state0.state"), add("param.i32*@1"), k});
  EXPECT_TRUE(dropped(k, i32(peg::Kind::Add, {old, k})));
}

TEST_F(PegOverwrittenStore, AValueThatReadsTheDroppedMemoryIsNot) {
  const Id i = add("param.i32@0");
  EXPECT_FALSE(dropped(i, i32(peg::Kind::Add, {reads_dropped(i), add("1i32")})));
}

// w's class also holds w + 0: a cycle without a loop is no way around.
TEST_F(PegOverwrittenStore, ACycleWithoutALoopIsNot) {
  const Id i = add("param.i32@0");
  const Id w = i32(peg::Kind::Add, {reads_dropped(i), add("1i32")});
  g->merge(w, i32(peg::Kind::Add, {w, add("0i32")}));
  g->rebuild();
  EXPECT_FALSE(dropped(i, w));
}

// u = θ(0, y + dropped[i]) with y = u + 1: the walk assumes u, decides y
// yes, then finds u reads the dropped memory; y is decided again (no), so
// w's second e-node, y + 2, is no way around either.
TEST_F(PegOverwrittenStore, WhatAFailedAssumptionDecidedIsDecidedAgain) {
  const Id i = add("param.i32@0");
  Id y;
  const Id u = loop_variable([&](Id self) {
    y = i32(peg::Kind::Add, {self, add("1i32")});
    return i32(peg::Kind::Add, {y, reads_dropped(i)});
  });
  const Id w = i32(peg::Kind::Add, {u, add("5i32")});
  g->merge(w, i32(peg::Kind::Add, {y, add("2i32")}));
  g->rebuild();
  EXPECT_FALSE(dropped(i, w));
}

}  // namespace
}  // namespace augur::eqsat
