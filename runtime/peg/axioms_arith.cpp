// Arithmetic axioms, sound for the IR's semantics: integers wrap (so
// reassociation, distributivity and x*0 = 0 hold, but no rule relies on
// unbounded integers: no a < b ⇒ a+1 <= b, no (x*2)/2 = x), floats are IEEE
// (only exact identities: x*1, x/1, x+(-0), -(-x); no reassociation, no
// x*0 = 0, no x-x = 0). Commutativity is the e-graph's (peg::commutative):
// a rule written for one order of a commutative operator's operands
// matches both. Strength reduction turns
// multiplications by powers of two into shifts, and unsigned divisions and
// remainders by powers of two into shifts and masks. Constant folding itself
// is the e-graph's analysis (peg_fold.h).
#include <array>
#include <bit>

#include "runtime/eqsat/stamped_set.h"
#include "runtime/peg/axioms.h"
#include "runtime/peg/axioms_util.h"
#include "runtime/peg/peg_egraph.h"
#include "runtime/peg/peg_fold.h"

namespace augur::peg {

namespace {

using axioms::add;
using eqsat::EGraph;
using eqsat::Id;

std::string ones(const std::string& t) {
  return t[0] == 'i'
             ? "-1" + t
             : std::to_string(t == "u64" ? ~std::uint64_t{0}
                                         : (std::uint64_t{1} << std::stoi(t.substr(1))) - 1) +
                   t;
}

// The constant of `type` in the class bound to `var`.
std::uint64_t constant_of(const EGraph& g, const eqsat::Subst& s, std::uint32_t var) {
  return constants(g).constant(s[var])->payload;
}

// How far offset_fold follows a chain of constants; a BF program moves its
// pointer by tens of steps between uses.
constexpr unsigned kMaxOffsetSteps = 64;

// What offset_fold has found in one apply phase of one rule: by class
// index, the class's base and its offset from it (none: it is a base), so
// that a chain is walked once per phase, not once per e-node along it (a
// class holds a dozen forms of its offset). Valid for one e-graph, one
// rebuild and one operator; an entry stays true as classes merge (its
// class is only ever equal to more). One per thread: regions are optimized
// on several.
struct OffsetMemo {
  struct Entry {
    Id base;
    std::optional<eqsat::Label> offset;
  };
  std::uint64_t serial = 0;
  std::uint32_t rebuilds = 0;
  eqsat::Op op = 0;
  eqsat::StampedSet known;
  std::vector<Entry> entries;

  const Entry* find(Id cls) const {
    return known.contains(eqsat::index(cls)) ? &entries[eqsat::index(cls)] : nullptr;
  }
  void put(Id cls, Entry e) {
    known.insert(eqsat::index(cls));
    entries[eqsat::index(cls)] = e;
  }
};

OffsetMemo& offset_memo(const EGraph& g, eqsat::Op op) {
  thread_local OffsetMemo memo;
  if (memo.serial != g.serial() || memo.rebuilds != g.rebuilds() || memo.op != op) {
    memo.serial = g.serial();
    memo.rebuilds = g.rebuilds();
    memo.op = op;
    memo.known.clear(g.id_count());
  }
  memo.known.grow(g.id_count());
  if (memo.entries.size() < g.id_count()) memo.entries.resize(g.id_count());
  return memo;
}

// x ⊕ k, ⊕ associative and commutative, where x's class holds b ⊕ k' (or,
// for +, b − k') with k' a constant: b ⊕ (k' ⊕ k), with b found by
// following such e-nodes from x as far as they go (never back to a class
// on the way), each step taking the e-node whose b is the oldest class: the
// base the other forms were built from, so once a class holds base ⊕ k its
// later walks take one step.
// Its walk past x's class only repeats what the rule adds, one iteration
// at a time, at the classes on the way, so it declares that it reads x's
// class (eqsat::Reads::Classes): when a class down the chain gets a better
// base, x's class gets it an iteration later, and x ⊕ k the iteration after.
// It is reassociation of constants ((x + 1) + 2 = x + 3) without making
// every grouping: full associativity, with commutativity, made every
// grouping of every sum, half of the optimizer's time on the corpus, and
// reassociating one pair of constants at a time made every form
// (c_j + (k - j)) of a chain of k steps and took an iteration per step.
std::optional<Id> offset_fold(EGraph& g, PegType type, Kind kind, Id x, std::uint64_t k) {
  const eqsat::Op op = op_of(kind, type);
  const eqsat::Op sub = kind == Kind::Add ? op_of(Kind::Sub, type) : op;
  OffsetMemo& memo = offset_memo(g, op);
  struct Step {
    Id cls;
    eqsat::Label constant;
    bool minus;  // cls = next − constant, not next ⊕ constant
  };
  std::array<Step, kMaxOffsetSteps> path;
  std::size_t steps = 0;
  const auto on_path = [&](Id c) {
    return std::any_of(path.begin(), path.begin() + steps,
                       [&](const Step& s) { return s.cls == c; });
  };
  // Down the chain to a class whose base is known, or that has no offset.
  Id cur = g.find(x);
  Id base = cur;
  std::optional<eqsat::Label> tail;  // cur = base ⊕ tail; none: cur is the base
  for (;;) {
    if (const OffsetMemo::Entry* e = memo.find(cur)) {
      base = g.find(e->base);
      tail = e->offset;
      break;
    }
    std::optional<Id> next;
    Step step{cur, {}, false};
    for (Id n : g.nodes_of(cur)) {
      const eqsat::ENodeView v = g.node(n);
      if (v.label.op != op && v.label.op != sub) continue;
      for (std::size_t i = 0; i < 2; ++i) {
        if (v.label.op == sub && i == 0) continue;  // k' − b is no offset of b
        const std::optional<eqsat::Label>& c = constants(g).constant(v.children[i]);
        if (!c) continue;
        const Id b = g.find(v.children[1 - i]);
        if ((next && *next <= b) || b == cur || constants(g).constant(b) || on_path(b)) continue;
        next = b;
        step.constant = *c;
        step.minus = v.label.op == sub && sub != op;
      }
    }
    if (!next || steps == kMaxOffsetSteps) {
      memo.put(cur, {cur, std::nullopt});
      break;
    }
    path[steps++] = step;
    cur = *next;
    base = cur;
  }
  // Back up the path: each class is the base ⊕ its offset.
  const eqsat::Label zero = label(Kind::Const, type, 0);
  for (std::size_t i = steps; i-- > 0;) {
    const Step& s = path[i];
    const eqsat::Label from = tail ? *tail : (s.minus ? zero : s.constant);
    const eqsat::Label operands[] = {from, s.constant};
    std::optional<eqsat::Label> offset = s.constant;
    if (tail || s.minus)
      offset =
          fold(label(s.minus ? Kind::Sub : kind, type), std::span<const eqsat::Label>(operands));
    if (!offset) return std::nullopt;
    memo.put(s.cls, {base, offset});
    tail = offset;
  }
  if (!tail || base == g.find(x)) return std::nullopt;
  const eqsat::Label operands[] = {*tail, label(Kind::Const, type, k)};
  const std::optional<eqsat::Label> total =
      fold(label(kind, type), std::span<const eqsat::Label>(operands));
  if (!total) return std::nullopt;
  return g.add(eqsat::Label{op, 0}, {base, g.add(*total)});
}

void add_int_rules(std::vector<eqsat::Rewrite>& rules, PegLanguage& lang, const std::string& t) {
  const PegType type(*ir::Type::parse(t));
  const unsigned width = type.ir().bits();
  // Constants are reassociated by offset_fold (below): x ⊕ k = b ⊕ (k' ⊕ k)
  // where x = b ⊕ k'.
  for (const char* op : {"add", "mul", "and", "or", "xor"}) {
    const Kind kind = kind_named(op).value();
    add(
        rules, lang, std::string("fold-offset-") + op, t,
        std::string("(") + op + ".$T ?x const.$T:?k)",
        [type, kind](EGraph& g, Id, const eqsat::Subst& s) {
          return offset_fold(g, type, kind, s[0], s.payloads[0]);
        },
        eqsat::Reads::Classes);
  }

  add(rules, lang, "add-zero", t, "(add.$T ?a 0$T)", "?a");
  add(rules, lang, "sub-zero", t, "(sub.$T ?a 0$T)", "?a");
  add(rules, lang, "sub-self", t, "(sub.$T ?a ?a)", "0$T");
  add(rules, lang, "zero-sub", t, "(sub.$T 0$T ?a)", "(neg.$T ?a)");
  add(rules, lang, "sub-add-neg", t, "(sub.$T ?a ?b)", "(add.$T ?a (neg.$T ?b))");
  add(rules, lang, "add-neg-sub", t, "(add.$T ?a (neg.$T ?b))", "(sub.$T ?a ?b)");
  add(rules, lang, "neg-neg", t, "(neg.$T (neg.$T ?a))", "?a");
  add(rules, lang, "mul-one", t, "(mul.$T ?a 1$T)", "?a");
  add(rules, lang, "mul-zero", t, "(mul.$T ?a 0$T)", "0$T");
  add(rules, lang, "mul-minus-one", t, "(mul.$T ?a " + ones(t) + ")", "(neg.$T ?a)");
  add(rules, lang, "div-one", t, "(div.$T ?a 1$T)", "?a");
  add(rules, lang, "and-zero", t, "(and.$T ?a 0$T)", "0$T");
  add(rules, lang, "and-ones", t, "(and.$T ?a " + ones(t) + ")", "?a");
  add(rules, lang, "and-self", t, "(and.$T ?a ?a)", "?a");
  add(rules, lang, "or-zero", t, "(or.$T ?a 0$T)", "?a");
  add(rules, lang, "or-ones", t, "(or.$T ?a " + ones(t) + ")", ones(t));
  add(rules, lang, "or-self", t, "(or.$T ?a ?a)", "?a");
  add(rules, lang, "xor-zero", t, "(xor.$T ?a 0$T)", "?a");
  add(rules, lang, "xor-self", t, "(xor.$T ?a ?a)", "0$T");
  add(rules, lang, "not-not", t, "(bitnot.$T (bitnot.$T ?a))", "?a");
  add(rules, lang, "shl-zero", t, "(shl.$T ?a 0$T)", "?a");
  add(rules, lang, "shr-zero", t, "(shr.$T ?a 0$T)", "?a");
  add(rules, lang, "min-self", t, "(min.$T ?a ?a)", "?a");
  add(rules, lang, "max-self", t, "(max.$T ?a ?a)", "?a");

  // Distributivity: factoring always, expanding over a constant (which is
  // what strength reduction of induction variables needs: (i+4)*5 = i*5+20).
  add(rules, lang, "factor", t, "(add.$T (mul.$T ?a ?c) (mul.$T ?b ?c))",
      "(mul.$T (add.$T ?a ?b) ?c)");
  add(rules, lang, "factor-one", t, "(add.$T (mul.$T ?a ?c) ?a)", "(mul.$T (add.$T ?c 1$T) ?a)");
  eqsat::Rewrite& expand = add(rules, lang, "expand", t, "(mul.$T (add.$T ?a ?b) ?k)",
                               "(add.$T (mul.$T ?a ?k) (mul.$T ?b ?k))");
  expand.when(eqsat::is_constant(expand.var("?k")));
  // (i + 1)·w = i·w + w: what strength reduction of i·w needs.
  eqsat::Rewrite& expand_one = add(rules, lang, "expand-constant", t, "(mul.$T (add.$T ?a ?b) ?k)",
                                   "(add.$T (mul.$T ?a ?k) (mul.$T ?b ?k))");
  expand_one.when(eqsat::is_constant(expand_one.var("?b")));
  eqsat::Rewrite& expand_sub = add(rules, lang, "expand-sub", t, "(mul.$T (sub.$T ?a ?b) ?k)",
                                   "(sub.$T (mul.$T ?a ?k) (mul.$T ?b ?k))");
  expand_sub.when(eqsat::is_constant(expand_sub.var("?k")));

  // Strength reduction: the builders read only the matched constant.
  const eqsat::Op mul = op_of(Kind::Mul, type), shl = op_of(Kind::Shl, type);
  eqsat::Rewrite& to_shift = add(
      rules, lang, "mul-pow2", t, "(mul.$T ?a ?k)",
      [type, shl](EGraph& g, Id, const eqsat::Subst& s) -> std::optional<Id> {
        const std::uint64_t k = constant_of(g, s, 1);
        const Id count = g.add(label(Kind::Const, type, std::countr_zero(k)));
        return g.add(eqsat::Label{shl, 0}, {s[0], count});
      },
      eqsat::Reads::Match);
  to_shift.when(axioms::power_of_two(to_shift, "?k"));
  eqsat::Rewrite& to_mul = add(
      rules, lang, "shl-mul", t, "(shl.$T ?a ?k)",
      [type, mul, width](EGraph& g, Id, const eqsat::Subst& s) -> std::optional<Id> {
        const std::uint64_t k = constant_of(g, s, 1) % width;
        const Id factor =
            g.add(label(Kind::Const, type, ir::canonical_bits(type.ir(), std::uint64_t{1} << k)));
        return g.add(eqsat::Label{mul, 0}, {s[0], factor});
      },
      eqsat::Reads::Match);
  to_mul.when(eqsat::is_constant(to_mul.var("?k")));
  if (!type.ir().is_signed()) {
    const eqsat::Op shr = op_of(Kind::Shr, type), mask = op_of(Kind::BitAnd, type);
    eqsat::Rewrite& div = add(
        rules, lang, "udiv-pow2", t, "(div.$T ?a ?k)",
        [type, shr](EGraph& g, Id, const eqsat::Subst& s) -> std::optional<Id> {
          const Id count = g.add(label(Kind::Const, type, std::countr_zero(constant_of(g, s, 1))));
          return g.add(eqsat::Label{shr, 0}, {s[0], count});
        },
        eqsat::Reads::Match);
    div.when(axioms::power_of_two(div, "?k"));
    eqsat::Rewrite& rem = add(
        rules, lang, "urem-pow2", t, "(rem.$T ?a ?k)",
        [type, mask](EGraph& g, Id, const eqsat::Subst& s) -> std::optional<Id> {
          const Id m = g.add(label(Kind::Const, type, constant_of(g, s, 1) - 1));
          return g.add(eqsat::Label{mask, 0}, {s[0], m});
        },
        eqsat::Reads::Match);
    rem.when(axioms::power_of_two(rem, "?k"));
  }

  // Comparisons (integers: no NaN).
  add(rules, lang, "eq-self", t, "(eq.$T ?a ?a)", "true");
  add(rules, lang, "ne-self", t, "(ne.$T ?a ?a)", "false");
  add(rules, lang, "lt-self", t, "(lt.$T ?a ?a)", "false");
  add(rules, lang, "gt-self", t, "(gt.$T ?a ?a)", "false");
  add(rules, lang, "le-self", t, "(le.$T ?a ?a)", "true");
  add(rules, lang, "ge-self", t, "(ge.$T ?a ?a)", "true");
  add(rules, lang, "not-lt", t, "(not.bool (lt.$T ?a ?b))", "(ge.$T ?a ?b)");
  add(rules, lang, "not-le", t, "(not.bool (le.$T ?a ?b))", "(gt.$T ?a ?b)");
  add(rules, lang, "not-gt", t, "(not.bool (gt.$T ?a ?b))", "(le.$T ?a ?b)");
  add(rules, lang, "not-ge", t, "(not.bool (ge.$T ?a ?b))", "(lt.$T ?a ?b)");
  add(rules, lang, "cast-same", t, "(cast.$T@$T ?a)", "?a");
}

void add_float_rules(std::vector<eqsat::Rewrite>& rules, PegLanguage& lang, const std::string& t) {
  add(rules, lang, "mul-one", t, "(mul.$T ?a 1.0$T)", "?a");
  add(rules, lang, "div-one", t, "(div.$T ?a 1.0$T)", "?a");
  add(rules, lang, "add-minus-zero", t, "(add.$T ?a -0.0$T)", "?a");
  add(rules, lang, "sub-zero", t, "(sub.$T ?a 0.0$T)", "?a");
  add(rules, lang, "neg-neg", t, "(neg.$T (neg.$T ?a))", "?a");
  add(rules, lang, "mul-minus-one", t, "(mul.$T ?a -1.0$T)", "(neg.$T ?a)");
  add(rules, lang, "mul-two", t, "(mul.$T ?a 2.0$T)", "(add.$T ?a ?a)");
  add(rules, lang, "cast-same", t, "(cast.$T@$T ?a)", "?a");
}

}  // namespace

void add_arith_axioms(std::vector<eqsat::Rewrite>& rules, PegLanguage& lang) {
  for (const std::string& t : axioms::int_types()) add_int_rules(rules, lang, t);
  for (const std::string& t : axioms::float_types()) add_float_rules(rules, lang, t);
  // Comparisons that hold for floats too (NaN included).
  std::vector<std::string> ordered = axioms::int_types();
  ordered.insert(ordered.end(), axioms::float_types().begin(), axioms::float_types().end());
  for (const std::string& t : ordered) {
    add(rules, lang, "lt-gt", t, "(lt.$T ?a ?b)", "(gt.$T ?b ?a)");
    add(rules, lang, "gt-lt", t, "(gt.$T ?a ?b)", "(lt.$T ?b ?a)");
    add(rules, lang, "le-ge", t, "(le.$T ?a ?b)", "(ge.$T ?b ?a)");
    add(rules, lang, "ge-le", t, "(ge.$T ?a ?b)", "(le.$T ?b ?a)");
    add(rules, lang, "not-eq", t, "(not.bool (eq.$T ?a ?b))", "(ne.$T ?a ?b)");
    add(rules, lang, "not-ne", t, "(not.bool (ne.$T ?a ?b))", "(eq.$T ?a ?b)");
  }
  add(rules, lang, "not-not", "bool", "(not.bool (not.bool ?a))", "?a");
  add(rules, lang, "and-true", "bool", "(and.bool ?a true)", "?a");
  add(rules, lang, "and-false", "bool", "(and.bool ?a false)", "false");
  add(rules, lang, "or-true", "bool", "(or.bool ?a true)", "true");
  add(rules, lang, "or-false", "bool", "(or.bool ?a false)", "?a");
  add(rules, lang, "xor-false", "bool", "(xor.bool ?a false)", "?a");
}

}  // namespace augur::peg
