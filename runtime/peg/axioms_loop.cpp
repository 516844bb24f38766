// Loop axioms (Tate, §6.3, appendix A.1). Built in: a value invariant in ℓ
// is its own eval_ℓ; a θ that keeps its initial value is that value; the
// value of a loop that exits at iteration 0 is the θ's initial value.
// Distribution: multiplication moves into θ (θ(a,b)·m = θ(a·m, b·m), m
// invariant: induction-variable strength reduction) and
// eval_ℓ moves into operators. Induction: θ(b, x + c) with b, c invariant is
// b + c·i for the loop's counter i = θ(0, i + 1) (integers wrap, so this
// holds for every iteration count); a counter run against an invariant
// bound n stops at max(n, 0) (unsigned: n); θ(0, x + y·k) with k invariant is
// θ(0, t + y)·k (loop-op factoring). A loop whose inputs are all constants
// is run (loop_eval.h). All of these hold for wrapping integers; the float
// versions are only the pointwise ones.
#include "runtime/peg/axioms.h"
#include "runtime/peg/axioms_util.h"
#include "runtime/peg/loop_eval.h"
#include "runtime/peg/peg_egraph.h"

namespace augur::peg {

namespace {

using axioms::add;
using eqsat::EGraph;
using eqsat::Id;

bool is_constant(const EGraph& g, Id cls, std::uint64_t bits) {
  const std::optional<eqsat::Label> c = constants(g).constant(cls);
  return c && c->payload == bits;
}

// A class holding θ_loop(0, add(self, 1)) of `type`.
bool is_counter(const EGraph& g, Id cls, unsigned loop, PegType type) {
  const Id self = g.find(cls);
  for (Id n : g.nodes_of(self)) {
    const eqsat::ENodeView v = g.node(n);
    if (v.label != label(Kind::Theta, type, loop) || !is_constant(g, v.children[0], 0)) continue;
    for (Id m : g.nodes_of(v.children[1])) {
      const eqsat::ENodeView a = g.node(m);
      if (a.label.op != op_of(Kind::Add, type)) continue;
      if ((g.find(a.children[0]) == self && is_constant(g, a.children[1], 1)) ||
          (g.find(a.children[1]) == self && is_constant(g, a.children[0], 1)))
        return true;
    }
  }
  return false;
}

// θ_loop(init, add(self, step)) of `type`: found among the θs, or made.
Id recurrence(EGraph& g, PegType type, unsigned loop, Id init, Id step) {
  for (Id c : g.classes_with(op_of(Kind::Theta, type))) {
    for (Id n : g.nodes_of(c)) {
      const eqsat::ENodeView v = g.node(n);
      if (v.label != label(Kind::Theta, type, loop) || g.find(v.children[0]) != g.find(init))
        continue;
      const std::optional<Id> next =
          g.lookup(label(Kind::Add, type), std::initializer_list<Id>{g.find(c), g.find(step)});
      if (next && g.find(*next) == g.find(v.children[1])) return g.find(c);
    }
  }
  const Id self = g.add_placeholder();
  const Id next = g.add(label(Kind::Add, type), {self, step});
  const Id theta = g.add(label(Kind::Theta, type, loop), {init, next});
  g.merge(self, theta);
  return g.find(theta);
}

void add_invariance_rules(std::vector<eqsat::Rewrite>& rules, PegLanguage& lang,
                          const std::string& t) {
  eqsat::Rewrite& eval = add(rules, lang, "eval-invariant", t, "(eval.$T:?l ?a ?p)", "?a");
  eval.when(axioms::invariant(eval, "?a"));
  eqsat::Rewrite& keep = add(rules, lang, "theta-keeps", t, "(theta.$T:?l ?a ?x)", "?a");
  keep.when(axioms::is_root(keep.var("?x"))).when(axioms::invariant(keep, "?a"));
  add(rules, lang, "eval-zero-trip", t, "(eval.$T:?l (theta.$T:?l ?a ?b) (pass.index:?l true))",
      "?a");
}

void add_int_rules(std::vector<eqsat::Rewrite>& rules, PegLanguage& lang, const std::string& t) {
  const PegType type(*ir::Type::parse(t));
  // Into θ: multiplications and shifts (strength reduction). Not additions:
  // θ(a, b) + m = θ(a + m, b + m) would give every x + k a θ of its own, and
  // the extractor chains of θs; i·w + j is reduced through i·w alone. m
  // varies in no loop as deep as θ's: invariant in it, but an inner loop's
  // value (`i * m` with m an inner loop's counter) cannot go inside it.
  for (const char* op : {"mul", "shl"}) {
    const std::string o(op);
    eqsat::Rewrite& l =
        add(rules, lang, "theta-distribute-l-" + o, t, "(" + o + ".$T (theta.$T:?l ?a ?b) ?m)",
            "(theta.$T:?l (" + o + ".$T ?a ?m) (" + o + ".$T ?b ?m))");
    l.when(axioms::outside(l, "?m"));
    if (axioms::commutes(o, t)) continue;
    eqsat::Rewrite& r =
        add(rules, lang, "theta-distribute-r-" + o, t, "(" + o + ".$T ?m (theta.$T:?l ?a ?b))",
            "(theta.$T:?l (" + o + ".$T ?m ?a) (" + o + ".$T ?m ?b))");
    r.when(axioms::outside(r, "?m"));
  }
  for (const char* op : {"add", "sub", "mul"}) {
    const std::string o(op);
    add(rules, lang, "eval-distribute-" + o, t, "(eval.$T:?l (" + o + ".$T ?a ?b) ?p)",
        "(" + o + ".$T (eval.$T:?l ?a ?p) (eval.$T:?l ?b ?p))");
  }

  // θ(b, x + c) = b + c·i.
  eqsat::Rewrite& induction =
      add(rules, lang, "induction", t, "(theta.$T:?l ?b (add.$T ?x ?c))",
          [type](EGraph& g, Id, const eqsat::Subst& s) -> std::optional<Id> {
            const auto loop = static_cast<unsigned>(s.payloads[0]);
            const Id zero = g.add(label(Kind::Const, type, 0));
            const Id one = g.add(label(Kind::Const, type, 1));
            const Id i = recurrence(g, type, loop, zero, one);
            return g.add(label(Kind::Add, type), {s[0], g.add(label(Kind::Mul, type), {s[2], i})});
          });
  induction.when(axioms::is_root(induction.var("?x")))
      .when(axioms::invariant(induction, "?b"))
      .when(axioms::invariant(induction, "?c"))
      .when([b = induction.var("?b"), c = induction.var("?c")](const EGraph& g, Id,
                                                               const eqsat::Subst& s) {
        return !(is_constant(g, s[b], 0) && is_constant(g, s[c], 1));
      });

  // A counter against an invariant bound stops at max(n, 0).
  const std::string stop = type.ir().is_signed() ? "(max.$T ?n 0$T)" : "?n";
  for (const char* cond :
       {"(phi.bool (lt.$T ?i ?n) false true)", "(not.bool (lt.$T ?i ?n))", "(ge.$T ?i ?n)"}) {
    eqsat::Rewrite& r = add(rules, lang, std::string("counter-stop-") + cond[1] + cond[2], t,
                            std::string("(eval.$T:?l ?i (pass.index:?l ") + cond + "))", stop);
    const std::uint32_t i = r.var("?i"), l = axioms::payload_var(r, "?l");
    r.when(axioms::invariant(r, "?n"))
        .when([i, l, type](const EGraph& g, Id, const eqsat::Subst& s) {
          return is_counter(g, s[i], static_cast<unsigned>(s.payloads[l]), type);
        });
  }

  // θ(0, x + y·k) = θ(0, t + y)·k.
  eqsat::Rewrite& factor =
      add(rules, lang, "loop-op-factor", t, "(theta.$T:?l ?a (add.$T ?x (mul.$T ?y ?k)))",
          [type](EGraph& g, Id, const eqsat::Subst& s) -> std::optional<Id> {
            const auto loop = static_cast<unsigned>(s.payloads[0]);
            const Id t = recurrence(g, type, loop, s[0], s[2]);
            return g.add(label(Kind::Mul, type), {t, s[3]});
          });
  factor.when(axioms::is_root(factor.var("?x")))
      .when(axioms::invariant(factor, "?k"))
      .when([a = factor.var("?a")](const EGraph& g, Id, const eqsat::Subst& s) {
        return is_constant(g, s[a], 0);
      });
}

void add_float_rules(std::vector<eqsat::Rewrite>& rules, PegLanguage& lang, const std::string& t) {
  for (const char* op : {"add", "mul"}) {
    const std::string o(op);
    eqsat::Rewrite& l =
        add(rules, lang, "theta-distribute-l-" + o, t, "(" + o + ".$T (theta.$T:?l ?a ?b) ?m)",
            "(theta.$T:?l (" + o + ".$T ?a ?m) (" + o + ".$T ?b ?m))");
    l.when(axioms::outside(l, "?m"));
    add(rules, lang, "eval-distribute-" + o, t, "(eval.$T:?l (" + o + ".$T ?a ?b) ?p)",
        "(" + o + ".$T (eval.$T:?l ?a ?p) (eval.$T:?l ?b ?p))");
  }
}

}  // namespace

void add_loop_axioms(std::vector<eqsat::Rewrite>& rules, PegLanguage& lang) {
  std::vector<std::string> types = axioms::value_types();
  types.push_back("state");
  for (const std::string& t : types) add_invariance_rules(rules, lang, t);
  for (const std::string& t : axioms::int_types()) add_int_rules(rules, lang, t);
  for (const std::string& t : axioms::float_types()) add_float_rules(rules, lang, t);

  // A loop whose inputs are all constants computes a constant.
  std::vector<std::string> scalars = axioms::int_types();
  scalars.insert(scalars.end(), axioms::float_types().begin(), axioms::float_types().end());
  scalars.push_back("bool");
  for (const std::string& t : scalars) {
    eqsat::Rewrite& run = add(rules, lang, "run-constant-loop", t, "(eval.$T:?l ?x ?p)",
                              [](EGraph& g, Id, const eqsat::Subst& s) -> std::optional<Id> {
                                const std::optional<eqsat::Label> c = evaluate_loop(
                                    g, s[0], s[1], static_cast<unsigned>(s.payloads[0]));
                                if (!c) return std::nullopt;
                                return g.add(*c);
                              });
    run.when(
        [](const EGraph& g, Id root, const eqsat::Subst&) { return !constants(g).constant(root); });
  }
}

}  // namespace augur::peg
