// Loop peeling in the e-graph (Tate, §4.3 and Fig. 8.16):
//   eval_ℓ(a, pass_ℓ(c)) = φ(eval_ℓ(c, Z), eval_ℓ(a, Z), eval_ℓ(peel_ℓ(a), pass_ℓ(peel_ℓ(c))))
// with eval_ℓ(·, Z) and peel_ℓ computed on the spot by their defining
// equations (θ_ℓ(A, B) at Z is A, peeled is B; an invariant is itself; a
// pointwise operator maps its operands), so the new classes hold ordinary,
// extractable e-nodes; the peeled condition's class also gets a peel_ℓ(c)
// e-node (never extracted: cost +∞) that marks it as peeled.
//
// Trigger, restrictive so that saturation stays bounded and peeling happens
// only where it enables folding (Tate's Fig. 4.3): a value loop variable
// a = θ_ℓ(k, a ⊕ k') with k, k' constants (the first iteration folds, and the
// peeled loop starts from constants again), evaluated on a pass whose
// condition was not itself made by peeling (each source loop is peeled
// once), and both copies built from at most kMaxPeeledClasses classes of
// pure operators and φ (no σ, no other loop). The rule only adds
// equalities: the extractor's cost decides whether the peeled form is used.
#include <algorithm>
#include <array>
#include <span>
#include <vector>

#include "runtime/eqsat/loop_invariance.h"
#include "runtime/peg/axioms.h"
#include "runtime/peg/axioms_util.h"
#include "runtime/peg/peg_egraph.h"

namespace augur::peg {

namespace {

using eqsat::EGraph;
using eqsat::Id;

constexpr std::size_t kMaxPeeledClasses = 32;

// Which operand of θ_ℓ(init, next) a copy takes: iteration 0 or the next one.
enum class Shift : std::uint8_t { Zero = 0, Peel = 1 };

// Builds eval_ℓ(x, Z) or peel_ℓ(x) for classes of one loop, memoized. At
// most kMaxPeeledClasses classes are built, so the memo and the classes
// being built are short lists; copies of e-nodes and mapped operands go on
// one scratch stack per thread (builds nest, the rule runs at every match).
class Shifter {
 public:
  Shifter(EGraph& g, unsigned loop) : g_(g), loop_(loop), scratch_(thread_scratch()) {}

  std::optional<Id> operator()(Id cls, Shift shift) {
    cls = g_.find(cls);
    const std::uint32_t c = eqsat::index(cls);
    for (std::size_t i = 0; i < memo_size_; ++i)
      if (memo_[i].cls == c && memo_[i].shift == shift) return memo_[i].out;
    if (invariance(g_).invariant(cls, loop_)) return cls;
    if (std::find(active_.begin(), active_.begin() + active_size_, c) !=
            active_.begin() + active_size_ ||
        visited_ == kMaxPeeledClasses)
      return std::nullopt;
    ++visited_;
    active_[active_size_++] = c;
    const std::optional<Id> out = build(cls, shift);
    --active_size_;  // builds nest: the last one entered
    if (out) memo_[memo_size_++] = {c, shift, *out};
    return out;
  }

 private:
  struct Copied {
    eqsat::Label label;
    std::uint32_t first_child = 0;  // into Scratch::children
    std::uint32_t arity = 0;
  };
  struct Scratch {
    std::vector<Copied> nodes;
    std::vector<Id> children, mapped;
  };
  static Scratch& thread_scratch() {
    thread_local Scratch scratch;
    return scratch;
  }
  struct Memo {
    std::uint32_t cls;
    Shift shift;
    Id out;
  };

  std::optional<Id> build(Id cls, Shift shift) {
    // Adding e-nodes may move the class's node list: copy it first.
    Scratch& s = scratch_;
    const std::size_t nodes_begin = s.nodes.size(), children_begin = s.children.size();
    for (Id n : g_.nodes_of(cls)) {
      const eqsat::ENodeView v = g_.node(n);
      s.nodes.push_back({v.label, static_cast<std::uint32_t>(s.children.size()),
                         static_cast<std::uint32_t>(v.children.size())});
      s.children.insert(s.children.end(), v.children.begin(), v.children.end());
    }
    const std::optional<Id> out = build_from(nodes_begin, shift);
    s.nodes.resize(nodes_begin);
    s.children.resize(children_begin);
    return out;
  }

  // From the copies at scratch_.nodes[first, end); the recursion below
  // pushes and pops its own above them, so they are read by index.
  std::optional<Id> build_from(std::size_t first, Shift shift) {
    Scratch& s = scratch_;
    const std::size_t end = s.nodes.size();
    for (std::size_t i = first; i < end; ++i) {
      const Copied n = s.nodes[i];
      if (kind_of(n.label.op) == Kind::Theta && n.label.payload == loop_)
        return g_.find(s.children[n.first_child + static_cast<unsigned>(shift)]);
    }
    for (std::size_t i = first; i < end; ++i) {
      const Copied n = s.nodes[i];
      const Kind k = kind_of(n.label.op);
      if (!is_pure_value_op(k) && k != Kind::Phi) continue;
      const std::size_t mapped_begin = s.mapped.size();
      for (std::uint32_t j = 0; j < n.arity; ++j) {
        const std::optional<Id> m = (*this)(s.children[n.first_child + j], shift);
        if (!m) break;
        s.mapped.push_back(*m);
      }
      const bool all = s.mapped.size() - mapped_begin == n.arity;
      std::optional<Id> out;
      if (all) out = g_.add(n.label, std::span<const Id>(s.mapped).subspan(mapped_begin, n.arity));
      s.mapped.resize(mapped_begin);
      if (all) return out;
    }
    return std::nullopt;
  }

  EGraph& g_;
  unsigned loop_;
  Scratch& scratch_;
  std::array<Memo, kMaxPeeledClasses> memo_;
  std::array<std::uint32_t, kMaxPeeledClasses> active_;
  std::size_t memo_size_ = 0, active_size_ = 0;
  std::size_t visited_ = 0;
};

// The class holds an operator whose operands are each `self` or a constant.
bool constant_step(const EGraph& g, Id cls, Id self) {
  for (Id n : g.nodes_of(cls)) {
    const eqsat::ENodeView v = g.node(n);
    if (!is_pure_value_op(kind_of(v.label.op))) continue;
    bool steps = !v.children.empty();
    for (Id c : v.children) steps = steps && (g.find(c) == self || constants(g).constant(c));
    if (steps) return true;
  }
  return false;
}

// a's class holds θ_ℓ(k, a ⊕ k') with k, k' constants: the peeled loop starts
// from k ⊕ k', a constant again.
bool constant_start_and_step(const EGraph& g, Id cls, unsigned loop) {
  const Id self = g.find(cls);
  for (Id n : g.nodes_of(self)) {
    const eqsat::ENodeView v = g.node(n);
    if (kind_of(v.label.op) == Kind::Theta && v.label.payload == loop &&
        constants(g).constant(v.children[0]) && constant_step(g, v.children[1], self))
      return true;
  }
  return false;
}

}  // namespace

void add_peel_axioms(std::vector<eqsat::Rewrite>& rules, PegLanguage& lang) {
  for (const std::string& t : axioms::value_types()) {
    const PegType type(*ir::Type::parse(t));
    eqsat::Rewrite& peel = axioms::add(
        rules, lang, "peel", t, "(eval.$T:?l ?a (pass.index:?l ?c))",
        [type](EGraph& g, Id, const eqsat::Subst& s) -> std::optional<Id> {
          const auto loop = static_cast<unsigned>(s.payloads[0]);
          Shifter shifted(g, loop);
          const std::optional<Id> first_test = shifted(s[1], Shift::Zero);
          const std::optional<Id> first_value = shifted(s[0], Shift::Zero);
          const std::optional<Id> rest_cond = shifted(s[1], Shift::Peel);
          const std::optional<Id> rest_value = shifted(s[0], Shift::Peel);
          if (!first_test || !first_value || !rest_cond || !rest_value) return std::nullopt;
          const PegType cond_type(ir::Type::bool_());
          g.merge(*rest_cond, g.add(label(Kind::Peel, cond_type, loop), {s[1]}));
          const Id rest_pass = g.add(label(Kind::Pass, PegType::index(), loop), {*rest_cond});
          const Id rest = g.add(label(Kind::Eval, type, loop), {*rest_value, rest_pass});
          return g.add(label(Kind::Phi, type), {*first_test, *first_value, rest});
        });
    const std::uint32_t a = peel.var("?a"), l = axioms::payload_var(peel, "?l");
    peel.when(axioms::lacks(peel, "?c", Kind::Peel))
        .when([a, l](const EGraph& g, Id, const eqsat::Subst& s) {
          return constant_start_and_step(g, s[a], static_cast<unsigned>(s.payloads[l]));
        });
  }
}

}  // namespace augur::peg
