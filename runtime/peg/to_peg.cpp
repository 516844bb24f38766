#include "runtime/peg/to_peg.h"

#include <algorithm>
#include <array>
#include <functional>

#include "runtime/eqsat/loop_invariance.h"
#include "runtime/ir/hash.h"
#include "runtime/peg/extern_names.h"
#include "runtime/peg/peg_egraph.h"
#include "runtime/peg/peg_ops.h"
#include "runtime/peg/safe_division.h"

namespace augur::peg {

namespace {

using eqsat::EGraph;
using eqsat::Id;

constexpr Id kNone = eqsat::make_id(~std::uint32_t{0});

struct Env {
  std::vector<Id> vars;  // by variable index; kNone before its declaration
  Id state = kNone;
  Id ret = kNone;  // the value being returned, on return paths
};

struct Exit {
  Id cond;  // taken (relative to the entry of the translated statement)
  Env env;
};

// The slot of an exit in Flow::exits: a return, or a `break L` or
// `continue L` (the loop L out, 1 the innermost).
constexpr std::size_t kReturn = 0;
constexpr std::size_t break_slot(std::uint32_t levels) {
  return 2 * std::size_t{levels} - 1;
}
constexpr std::size_t continue_slot(std::uint32_t levels) {
  return 2 * std::size_t{levels};
}
// The slot the same exit has seen from the loop around: one loop fewer to leave.
constexpr std::size_t outer_slot(std::size_t slot) {
  return slot - 2;
}

// What a statement does: falls through (with `fall`) when `fall_cond`, or
// leaves by one of the exits (by slot; as many as the deepest exit needs).
struct Flow {
  Id fall_cond;
  Env fall;
  std::vector<std::optional<Exit>> exits;

  std::optional<Exit>& exit(std::size_t slot) {
    if (exits.size() <= slot) exits.resize(slot + 1);
    return exits[slot];
  }
  const Exit* find(std::size_t slot) const {
    return slot < exits.size() && exits[slot] ? &*exits[slot] : nullptr;
  }
  bool leaves() const {
    return std::any_of(exits.begin(), exits.end(), [](const auto& e) { return e.has_value(); });
  }
  // Code no path of which falls through, with one way out: that exit is
  // taken whenever the code runs (`always`, true). Its condition, a
  // disjunction over the paths that is always true, would ask reversion for
  // what decides them (memory before the loops that decide them, say).
  void take_only_exit(Id always) {
    if (std::count_if(exits.begin(), exits.end(), [](const auto& e) { return e.has_value(); }) != 1)
      return;
    for (std::optional<Exit>& e : exits)
      if (e) e->cond = always;
  }
};

// Variables a loop assigns, minus those it declares (they start afresh in
// every iteration and are out of scope after the loop).
void assigned_vars(const ir::Block& block, std::vector<bool>& assigned,
                   std::vector<bool>& declared) {
  for (const ir::Stmt& s : block) {
    if (s.kind == ir::StmtKind::Assign) assigned[s.var.index] = true;
    if (s.kind == ir::StmtKind::Decl) declared[s.var.index] = true;
    assigned_vars(s.body, assigned, declared);
    assigned_vars(s.orelse, assigned, declared);
    assigned_vars(s.init, assigned, declared);
    assigned_vars(s.step, assigned, declared);
  }
}

// Whether some path through `block` may reach its end or continue the loop
// `nesting` loops out (1: the loop whose body the block is). A loop whose
// body can do neither never runs a second iteration. Nested loops count as
// falling through; the recursion is as deep as the statements nest, which
// too_deep_for_translation bounds. `constant` gives a condition's value where
// translation folds it.
struct GoesOn {
  bool falls = true;
  bool continues = false;
};
using ConstantCondition = std::function<std::optional<std::uint64_t>(const ir::ExprPtr&)>;
GoesOn goes_on(const ir::Block& block, std::uint32_t nesting, const ConstantCondition& constant) {
  GoesOn out;
  for (const ir::Stmt& s : block) {
    switch (s.kind) {
      case ir::StmtKind::Break:
      case ir::StmtKind::Return:
        out.falls = false;
        break;
      case ir::StmtKind::Continue:
        out.continues |= s.levels == nesting;
        out.falls = false;
        break;
      case ir::StmtKind::If: {
        const GoesOn t = goes_on(s.body, nesting, constant),
                     e = goes_on(s.orelse, nesting, constant);
        if (const std::optional<std::uint64_t> k = constant(s.expr)) {
          // `if (true)`: only the arm taken (translation folds the other away).
          const GoesOn& taken = *k != 0 ? t : e;
          out.continues |= taken.continues;
          out.falls = taken.falls;
          break;
        }
        out.continues |= t.continues || e.continues;
        out.falls = t.falls || e.falls;
        break;
      }
      case ir::StmtKind::While:
      case ir::StmtKind::For:
        out.continues |= goes_on(s.body, nesting + 1, constant).continues;
        break;
      default:
        break;
    }
    if (!out.falls) break;
  }
  return out;
}

class Translator {
 public:
  Translator(const ir::Function& f, EGraph& g, std::span<const ir::VarId> outputs)
      : f_(f), g_(g), outputs_(outputs) {}

  PegFunction run() {
    Env env;
    env.vars.assign(f_.vars.size(), kNone);
    for (std::uint32_t i = 0; i < f_.num_params; ++i)
      env.vars[i] = add(Kind::Param, PegType(f_.vars[i].type), {}, i);
    env.state = add(Kind::StateIn, PegType::state(), {});
    Flow flow = block(f_.body, std::move(env), 0);
    const Exit* ret = flow.find(kReturn);
    if (!f_.ret.is_void()) {
      if (!ret) throw unsupported("to_peg: a non-void function without a return");
      out_.result = ret->env.ret;
      out_.state = ret->env.state;
    } else if (ret) {
      out_.state = paths(ret->cond, truth(true), ret->env, flow.fall_cond, flow.fall).state;
    } else {
      out_.state = flow.fall.state;
    }
    if (!outputs_.empty()) {
      if (ret || !f_.ret.is_void()) throw unsupported("to_peg: outputs of a function that returns");
      for (ir::VarId v : outputs_) out_.outputs.push_back(flow.fall.vars.at(v.index));
    }
    return std::move(out_);
  }

 private:
  // ------------------------------------------------------------ nodes

  Id add(Kind k, PegType t, std::initializer_list<Id> children, std::uint64_t payload = 0) {
    return g_.add(label(k, t, payload), children);
  }
  Id add(Kind k, PegType t, const std::vector<Id>& children, std::uint64_t payload = 0) {
    return g_.add(label(k, t, payload), children);
  }
  Id constant(ir::Type t, std::uint64_t bits) { return add(Kind::Const, PegType(t), {}, bits); }
  Id truth(bool v) { return constant(ir::Type::bool_(), v); }

  std::optional<std::uint64_t> constant_bits(Id id) const {
    const std::optional<eqsat::Label> c = constants(g_).constant(id);
    if (!c) return std::nullopt;
    return c->payload;
  }
  bool is_false(Id id) const { return constant_bits(id) == 0u; }
  bool is_true(Id id) const { return constant_bits(id) == 1u; }
  bool same(Id a, Id b) const { return g_.find(a) == g_.find(b); }

  Id phi_typed(PegType t, Id c, Id a, Id b) {
    // An arm that is itself a φ on c takes c's side: φ(c, φ(c, x, _), φ(c, _, y))
    // is φ(c, x, y) (the ways out of a loop after an inner test failed).
    if (const std::optional<std::array<Id, 3>> inner = phi_of(a); inner && same((*inner)[0], c))
      a = (*inner)[1];
    if (const std::optional<std::array<Id, 3>> inner = phi_of(b); inner && same((*inner)[0], c))
      b = (*inner)[2];
    if (same(a, b)) return a;
    if (const std::optional<std::uint64_t> v = constant_bits(c)) return *v ? a : b;
    if (t == PegType(ir::Type::bool_()) && is_true(a) && is_false(b)) return c;
    // ¬x ∨ x and ¬x ∧ x: a statement after an `if` one of whose branches
    // left is on the path where it did not (`if (d) {} else break; break;`
    // leaves either way).
    if (t == PegType(ir::Type::bool_()) && (is_true(a) || is_false(b))) {
      const Id other = is_true(a) ? b : a;
      const std::optional<Id> not_c = negated(c), not_other = negated(other);
      if ((not_c && same(*not_c, other)) || (not_other && same(*not_other, c)))
        return truth(is_true(a));
    }
    // (h ∧ x) ∨ (h ∧ y) is h ∧ (x ∨ y): two ways out of one `if` (whose
    // branches both leave: x ∨ y folds to true, and the test to h).
    if (t == PegType(ir::Type::bool_()) && is_true(a))
      if (const auto hx = phi_of(c), hy = phi_of(b);
          hx && hy && same((*hx)[0], (*hy)[0]) && is_false((*hx)[2]) && is_false((*hy)[2]))
        return phi_typed(t, (*hx)[0], phi_typed(t, (*hx)[1], a, (*hy)[1]), (*hy)[2]);
    // φ(d ∧ e, a, φ(d, a, y)) is φ(d, a, y): where d ∧ e holds, so does d.
    // (A `continue` ending `if (d) { …; if (e) continue; }` joins its
    // memory so; kept on d ∧ e, the effects before it were emitted twice.)
    // And φ(c, a, φ(d, y, a)) is φ(d, y, a) where c implies ¬d (a
    // `continue` in the `else if (e)` of `if (d)`, c = ¬d ∧ e, with the
    // tests of earlier `break`s in front: kept on c, d's branch was read
    // on c's side). Where c implies d only deeper in a chain of
    // conjunctions, φ(d, a, y) stays in c's arm: reversion keeps less so.
    if (const std::optional<std::array<Id, 3>> inner = phi_of(b)) {
      const auto [d, y, z] = *inner;
      if (same(y, a))
        if (const std::optional<std::array<Id, 3>> both = phi_of(c);
            both && same((*both)[0], d) && is_false((*both)[2]))
          return b;
      if (same(z, a) && implies_not(c, d)) return b;
    }
    return add(Kind::Phi, t, {c, a, b});
  }
  // The condition and arms of the φ in class `id`, if it has one.
  std::optional<std::array<Id, 3>> phi_of(Id id) const {
    for (Id n : g_.nodes_of(id)) {
      const eqsat::ENodeView v = g_.node(n);
      if (kind_of(v.label.op) == Kind::Phi)
        return std::array{v.children[0], v.children[1], v.children[2]};
    }
    return std::nullopt;
  }
  // Whether c implies ¬d: c is ¬d, or a chain of conjunctions φ(x, y,
  // false) and ¬x ∧ y, φ(x, false, y), at most kMaxConjuncts long, with ¬d
  // in it.
  bool implies_not(Id c, Id d) const {
    constexpr int kMaxConjuncts = 8;
    for (int k = 0; k < kMaxConjuncts; ++k) {
      if (const std::optional<Id> not_c = negated(c); not_c && same(*not_c, d)) return true;
      const std::optional<std::array<Id, 3>> p = phi_of(c);
      if (!p) return false;
      const auto [x, y, z] = *p;
      if (same(x, d) && is_false(y)) return true;
      if (is_false(z))
        c = y;
      else if (is_false(y))
        c = z;
      else
        return false;
    }
    return false;
  }
  // x where `id` is !x or φ(x, false, true).
  std::optional<Id> negated(Id id) const {
    for (Id n : g_.nodes_of(id)) {
      const eqsat::ENodeView v = g_.node(n);
      if (kind_of(v.label.op) == Kind::Not) return v.children[0];
      if (kind_of(v.label.op) == Kind::Phi && is_false(v.children[1]) && is_true(v.children[2]))
        return v.children[0];
    }
    return std::nullopt;
  }
  Id conj(Id a, Id b) { return phi_typed(PegType(ir::Type::bool_()), a, b, truth(false)); }
  Id disj(Id a, Id b) { return phi_typed(PegType(ir::Type::bool_()), a, truth(true), b); }
  Id negate(Id a) {
    if (const std::optional<std::uint64_t> v = constant_bits(a)) return truth(*v == 0);
    return add(Kind::Not, PegType(ir::Type::bool_()), {a});
  }

  PegType var_type(std::size_t v) const { return PegType(f_.vars[v].type); }
  PegType ret_type() const { return PegType(f_.ret); }

  // φ(c, a, b) for every part of two environments.
  Env merge(Id c, const Env& a, const Env& b) {
    Env out;
    out.vars.resize(a.vars.size());
    for (std::size_t v = 0; v < a.vars.size(); ++v) {
      if (a.vars[v] == kNone || b.vars[v] == kNone) {
        out.vars[v] = a.vars[v] == kNone ? b.vars[v] : a.vars[v];
      } else {
        out.vars[v] = phi_typed(var_type(v), c, a.vars[v], b.vars[v]);
      }
    }
    out.state = phi_typed(PegType::state(), c, a.state, b.state);
    if (a.ret == kNone || b.ret == kNone) {
      out.ret = a.ret == kNone ? b.ret : a.ret;
    } else {
      out.ret = phi_typed(ret_type(), c, a.ret, b.ret);
    }
    return out;
  }

  // The environment after two exclusive paths join: c chooses between them;
  // a path that cannot be taken contributes nothing.
  Env paths(Id c, Id a_taken, const Env& a, Id b_taken, const Env& b) {
    if (is_false(a_taken)) return b;
    if (is_false(b_taken)) return a;
    return merge(c, a, b);
  }

  // ------------------------------------------------------------ statements

  Flow block(const ir::Block& b, Env env, unsigned depth) {
    Flow acc{truth(true), std::move(env), {}};
    const bool every_pass = every_pass_;
    // On a path (PegFunction::defined_when), a statement after one that may
    // leave runs where everything before fell through: what it computes on
    // every pass is defined where that holds (a load after a loop that may
    // return, used only in a later loop, is read before memory moves).
    // Where one exit is all that may leave before, falling through is that
    // exit not taken: the path is on the exit's condition, which reversion
    // branches on (the function's `returned`), not on the fall condition,
    // the same value in a form the PEG does not otherwise name.
    const bool on_path = every_pass && always_ == path_always_;
    const auto path_step = [&]() -> std::pair<Id, bool> {
      const Exit* only = nullptr;
      for (const std::optional<Exit>& e : acc.exits) {
        if (!e) continue;
        if (only) return {acc.fall_cond, true};
        only = &*e;
      }
      return only ? std::pair{only->cond, false} : std::pair{acc.fall_cond, true};
    };
    for (const ir::Stmt& s : b) {
      if (is_false(acc.fall_cond)) break;  // unreachable
      const bool falls_always = is_true(acc.fall_cond);
      every_pass_ = every_pass && falls_always;
      Flow f;
      if (on_path && !falls_always) {
        const auto [c, taken] = path_step();
        f = on_path_of(c, taken, [&] { return stmt(s, acc.fall, depth); });
      } else {
        f = stmt(s, acc.fall, depth);
      }
      for (std::size_t k = 0; k < f.exits.size(); ++k) {
        std::optional<Exit>& from = f.exits[k];
        if (!from) continue;
        std::optional<Exit>& into = acc.exit(k);
        const Id taken = conj(acc.fall_cond, from->cond);
        if (!into) {
          into = Exit{taken, std::move(from->env)};
        } else {
          into->env = merge(into->cond, into->env, from->env);
          into->cond = disj(into->cond, taken);
        }
      }
      acc.fall_cond = conj(acc.fall_cond, f.fall_cond);
      acc.fall = std::move(f.fall);
      if (is_false(acc.fall_cond)) acc.take_only_exit(truth(true));
    }
    every_pass_ = every_pass;
    return acc;
  }

  Flow straight(Env env) { return Flow{truth(true), std::move(env), {}}; }
  Flow leave(Env env, std::size_t slot) {
    Flow f{truth(false), env, {}};
    f.exit(slot) = Exit{truth(true), std::move(env)};
    return f;
  }

  Flow stmt(const ir::Stmt& s, Env env, unsigned depth) {
    switch (s.kind) {
      case ir::StmtKind::Decl: {
        const ir::Variable& v = f_.var(s.var);
        if (v.kind == ir::VarKind::Shared) return straight(std::move(env));
        env.vars[s.var.index] = s.expr ? expr(s.expr, env) : constant(v.type, 0);
        return straight(std::move(env));
      }
      case ir::StmtKind::Assign:
        env.vars[s.var.index] = expr(s.expr, env);
        return straight(std::move(env));
      case ir::StmtKind::Store: {
        const Id p = expr(s.ptr, env);
        const Id i = expr(s.index, env);
        const Id v = expr(s.expr, env);
        env.state = add(Kind::Store, PegType(s.expr->type), {env.state, p, i, v});
        return straight(std::move(env));
      }
      case ir::StmtKind::Eval:
        expr(s.expr, env);
        return straight(std::move(env));
      case ir::StmtKind::Barrier:
        env.state = add(Kind::Barrier, PegType::state(), {env.state});
        return straight(std::move(env));
      case ir::StmtKind::Break:
        return leave(std::move(env), break_slot(s.levels));
      case ir::StmtKind::Continue:
        return leave(std::move(env), continue_slot(s.levels));
      case ir::StmtKind::Return:
        if (s.expr) env.ret = expr(s.expr, env);
        return leave(std::move(env), kReturn);
      case ir::StmtKind::If:
        return branch(s, std::move(env), depth);
      case ir::StmtKind::While:
        return loop(s.expr, s.body, nullptr, std::move(env), depth);
      case ir::StmtKind::For: {
        Flow init = block(s.init, std::move(env), depth);
        Flow l = loop(s.expr, s.body, &s.step, std::move(init.fall), depth);
        return l;
      }
    }
    throw unsupported("to_peg: unknown statement");
  }

  // The branch of an `if` on `c` taken where c is `taken`. At the top level
  // (or on every pass of a branch there), what it computes on every pass is
  // defined whenever its path's conditions hold; a constant condition
  // (`if (true || x)`): the branch it takes runs on every pass the `if` does.
  Flow arm(const ir::Block& b, Env env, unsigned depth, Id c, bool taken) {
    const bool every_pass = every_pass_;
    const bool on_path = every_pass && always_ == path_always_;
    const bool certain = taken ? is_true(c) : is_false(c);
    every_pass_ = every_pass && certain;
    Flow f = on_path && !certain ? path_block(b, std::move(env), depth, c, taken)
                                 : block(b, std::move(env), depth);
    every_pass_ = every_pass;
    return f;
  }

  // Where paths join on every run, the variables' values there (those that
  // changed since `before`) are computed on every run too; not those of
  // variables declared on one path (kNone before): merge() keeps that path's
  // value, which only that path computes (`if (i < n) { var t = p[i]; }`).
  void note_joined(std::span<const Id> before, const Env& joined) {
    for (std::size_t v = 0; v < before.size(); ++v)
      if (before[v] != kNone && joined.vars[v] != before[v] && joined.vars[v] != kNone)
        always_->push_back(joined.vars[v]);
  }

  Flow branch(const ir::Stmt& s, Env env, unsigned depth) {
    const Id c = expr(s.expr, env);
    const bool every_pass = every_pass_;
    // An if on every run that always falls through computes its variables'
    // values (the φs of its branches) on every run too.
    const std::vector<Id> before = every_pass ? env.vars : std::vector<Id>{};
    Flow t = arm(s.body, env, depth, c, true);
    Flow e = arm(s.orelse, std::move(env), depth, c, false);
    Flow out;
    out.fall_cond = phi_typed(PegType(ir::Type::bool_()), c, t.fall_cond, e.fall_cond);
    out.fall = paths(c, t.fall_cond, t.fall, e.fall_cond, e.fall);
    if (every_pass && is_true(out.fall_cond) && !t.leaves() && !e.leaves())
      note_joined(before, out.fall);
    for (std::size_t k = 0; k < std::max(t.exits.size(), e.exits.size()); ++k) {
      std::optional<Exit>& a = t.exit(k);
      std::optional<Exit>& b = e.exit(k);
      if (a && b) {
        out.exit(k) = Exit{phi_typed(PegType(ir::Type::bool_()), c, a->cond, b->cond),
                           merge(c, a->env, b->env)};
      } else if (a) {
        out.exit(k) = Exit{conj(c, a->cond), std::move(a->env)};
      } else if (b) {
        out.exit(k) = Exit{phi_typed(PegType(ir::Type::bool_()), c, truth(false), b->cond),
                           std::move(b->env)};
      }
    }
    return out;
  }

  // A branch taken when `c` is `taken`, its values on every pass recorded
  // with the path (PegFunction::defined_when).
  Flow path_block(const ir::Block& b, Env env, unsigned depth, Id c, bool taken) {
    return on_path_of(c, taken, [&] { return block(b, std::move(env), depth); });
  }

  // `translate()` (a block or a statement) on the path step where `c` is
  // `taken`, inside the current one.
  template <class Translate>
  Flow on_path_of(Id c, bool taken, const Translate& translate) {
    // !x taken is x not taken: reversion knows x where it branched on x (a
    // statement after a loop that may return runs where !returned holds).
    // (A few steps: a class may hold its own double negation.)
    constexpr int kMaxNegations = 4;
    for (int k = 0; k < kMaxNegations; ++k) {
      const std::optional<Id> x = negated(c);
      if (!x) break;
      c = *x;
      taken = !taken;
    }
    std::vector<Id> on_every_pass;
    std::vector<Id>* const always = always_;
    std::vector<Id>* const path_always = path_always_;
    always_ = path_always_ = &on_every_pass;
    every_pass_ = true;
    const std::uint32_t outer = path_;
    path_ = static_cast<std::uint32_t>(out_.path_steps.size());
    out_.path_steps.push_back({c, taken, outer, std::nullopt});
    Flow f = translate();
    for (Id v : on_every_pass) out_.defined_when.push_back({v, path_});
    path_ = outer;
    always_ = always;
    path_always_ = path_always;
    every_pass_ = false;
    return f;
  }

  // A loop whose body never goes on (every path through it breaks, returns
  // or leaves an outer loop) is an `if` on its condition: no θ, pass or
  // eval, its nested loops one level out. Its breaks fall through after it;
  // its exits of outer loops are one loop fewer.
  Flow single_pass(const ir::ExprPtr& cond, const ir::Block& body, Env env, unsigned depth) {
    const Id c = expr(cond, env);
    const bool every_pass = every_pass_;
    const std::vector<Id> before = every_pass ? env.vars : std::vector<Id>{};
    Flow b = arm(body, env, depth, c, true);
    // Every path through the body leaves.
    b.take_only_exit(truth(true));
    Flow out;
    const Exit* brk = b.find(break_slot(1));
    out.fall_cond =
        phi_typed(PegType(ir::Type::bool_()), c, brk ? brk->cond : truth(false), truth(true));
    out.fall = brk ? paths(c, brk->cond, brk->env, truth(true), env) : env;
    if (const Exit* ret = b.find(kReturn)) out.exit(kReturn) = Exit{conj(c, ret->cond), ret->env};
    for (std::size_t k = continue_slot(1) + 1; k < b.exits.size(); ++k)
      if (b.exits[k]) out.exit(outer_slot(k)) = Exit{conj(c, b.exits[k]->cond), b.exits[k]->env};
    // Like an `if` (branch()): on every run and always falling through, it
    // computes the values its paths join on every run too.
    if (every_pass && is_true(out.fall_cond) && !out.leaves()) note_joined(before, out.fall);
    return out;
  }

  // θ for a loop variable: the placeholder `self` becomes θ_ℓ(init, next),
  // or init itself when the loop never changes it.
  Id close(Id self, PegType t, Id init, Id next, unsigned l) {
    if (same(next, self)) {
      g_.merge(self, init);
      return init;
    }
    const Id theta = add(Kind::Theta, t, {init, next}, l);
    g_.merge(self, theta);
    return theta;
  }

  Flow loop(const ir::ExprPtr& cond, const ir::Block& body, const ir::Block* step, Env env,
            unsigned depth) {
    const unsigned l = depth + 1;
    if (l > eqsat::LoopInvariance::kMaxLoop)
      throw unsupported("to_peg: loops nested deeper than " +
                        std::to_string(eqsat::LoopInvariance::kMaxLoop));
    out_.max_depth = std::max(out_.max_depth, l);
    // A condition false on entry (`for (k = 0; k < 0; …)`, a bound that
    // folds to 0), or true with a body that first breaks on a test true on
    // entry (`while (true) { if (c >= 0) break; … }`): the body never runs,
    // and nothing of it is translated.
    const std::optional<std::uint64_t> enters = constant_on_entry(cond, env);
    const auto breaks_at_once = [&] {
      if (body.empty()) return false;
      const ir::Stmt& s = body.front();
      return s.kind == ir::StmtKind::If && s.orelse.empty() && s.body.size() == 1 &&
             s.body.front().kind == ir::StmtKind::Break && s.body.front().levels == 1 &&
             constant_on_entry(s.expr, env).value_or(0) != 0;
    };
    if (enters == 0u || (enters && breaks_at_once())) {
      Flow out;
      out.fall = std::move(env);
      out.fall_cond = truth(true);
      return out;
    }
    const auto folds = [&](const ir::ExprPtr& e) { return constant_on_entry(e, env, false); };
    if (const GoesOn on = goes_on(body, 1, folds); !on.falls && !on.continues)
      return single_pass(cond, body, std::move(env), depth);
    std::vector<bool> assigned(f_.vars.size(), false), declared(f_.vars.size(), false);
    assigned_vars(body, assigned, declared);
    if (step) assigned_vars(*step, assigned, declared);
    std::vector<std::size_t> carried;
    for (std::size_t v = 0; v < assigned.size(); ++v)
      if (assigned[v] && !declared[v] && env.vars[v] != kNone) carried.push_back(v);

    Env in = env;
    std::vector<Id> self(f_.vars.size(), kNone);
    for (std::size_t v : carried) in.vars[v] = self[v] = g_.add_placeholder();
    const Id state_self = in.state = g_.add_placeholder();

    // Values computed at every iteration up to the exit, the one that
    // leaves included: the condition's, and the body's where the condition
    // is constant (`while (true)`), up to its first way out.
    const bool every_pass = every_pass_;
    std::vector<Id>* const always = always_;
    // A loop on a path (PegFunction::defined_when): what its body computes
    // on every pass is defined whenever the path's conditions and the
    // loop's condition hold, in that iteration.
    const bool on_path = every_pass && always == path_always_;
    std::vector<Id> each_iteration;
    always_ = &each_iteration;
    every_pass_ = true;
    Env top = in;  // after the condition
    const Id c = expr(cond, top);
    every_pass_ = is_true(c);
    Flow b;
    const auto loop_step = static_cast<std::uint32_t>(out_.path_steps.size());
    if (on_path && !is_true(c)) {
      b = path_block(body, top, l, c, true);
    } else if (on_path) {
      // `while (true)` on a path: its body is on the path too, what it
      // computes before its first way out on every iteration (as above),
      // what its branches and the statements after that way out compute
      // where they run, in that iteration.
      std::vector<Id>* const path_always = path_always_;
      path_always_ = &each_iteration;
      b = block(body, top, l);
      path_always_ = path_always;
    } else {
      b = block(body, top, l);
    }
    every_pass_ = false;

    // The next iteration starts from the paths that fall through or continue.
    const bool falls = !is_false(b.fall_cond);
    const Exit* cont = b.find(continue_slot(1));
    Env next = top;
    if (cont && falls) {
      // Going on, the body either falls through or continues. Where it falls
      // through exactly where x does not hold (an `if (x)` that ends by
      // continuing or leaving), x chooses: simpler than the continue's
      // condition, x and the tests inside.
      const std::optional<std::array<Id, 3>> fall_unless = phi_of(b.fall_cond);
      const bool by_fall = fall_unless && is_false((*fall_unless)[1]) && is_true((*fall_unless)[2]);
      next = merge(by_fall ? (*fall_unless)[0] : cont->cond, cont->env, b.fall);
    } else if (cont) {
      next = cont->env;
    } else if (falls) {
      next = b.fall;
    }
    if (step) next = block(*step, std::move(next), l).fall;
    every_pass_ = every_pass;
    always_ = always;

    LoopFacts facts;
    facts.total = std::move(each_iteration);
    facts.depth = l;
    for (std::size_t v : carried)
      facts.total.push_back(close(self[v], var_type(v), env.vars[v], next.vars[v], l));
    facts.total.push_back(close(state_self, PegType::state(), env.state, next.state, l));

    // The ways out of the loop besides its condition: its breaks, returns,
    // and the exits of loops around it (a `break L` or `continue L` with
    // L > 1 leaves this loop first), innermost first for exit_value.
    const Exit* brk = b.find(break_slot(1));
    const Exit* ret = b.find(kReturn);
    std::vector<std::size_t> outer;
    for (std::size_t k = b.exits.size(); k > continue_slot(1) + 1; --k)
      if (b.exits[k - 1]) outer.push_back(k - 1);
    std::vector<const Exit*> ways;
    for (std::size_t k : outer) ways.push_back(&*b.exits[k]);
    if (ret) ways.push_back(ret);
    if (brk) ways.push_back(brk);

    // Exit when the condition fails, or the body leaves.
    Id stops = truth(false);
    for (auto way = ways.rbegin(); way != ways.rend(); ++way) stops = disj(stops, (*way)->cond);
    const Id exit_cond = phi_typed(PegType(ir::Type::bool_()), c, stops, truth(true));
    const Id pass = add(Kind::Pass, PegType::index(), {exit_cond}, l);
    if (on_path && !is_true(c)) out_.path_steps[loop_step].unless_exit = exit_cond;
    facts.pass = pass;
    facts.total.push_back(exit_cond);

    // A value at the exit, the same for every way out (the one taken, or the
    // failed condition); on iterations that go on, the value after the
    // condition, which is always defined. At the exit, past a condition that
    // held, some way was taken, so the innermost choice's other arm is never
    // read there. Where the first way's value is the one carried to the next
    // iteration (a break at the body's end), it is computed on every
    // iteration anyway and needs no φ, which would ask reversion for it in a
    // second context (a loop nested in the body emitted twice). A σ needs no
    // such φ either: its φ on the first way's condition asked for what
    // decides that way (a call's value, say) and, in its other arm, for the
    // memory before it. Such a σ is no longer the one after the condition on
    // iterations that go on, so it is not total.
    const auto exit_value = [&](PegType t, const auto& at, Id otherwise, Id carried_on) {
      const bool carried = !ways.empty() && same(at(ways[0]->env), carried_on);
      const bool first_stands = carried || (!ways.empty() && t.is_state());
      Id inner = first_stands ? at(ways[0]->env) : otherwise;
      for (std::size_t k = first_stands ? 1 : 0; k < ways.size(); ++k)
        inner = phi_typed(t, ways[k]->cond, at(ways[k]->env), inner);
      const Id v = phi_typed(t, c, inner, otherwise);
      if (!first_stands || carried) facts.total.push_back(v);
      return v;
    };
    const auto eval = [&](PegType t, Id seq, Id before) {
      if (same(seq, before)) return before;
      const Id e = add(Kind::Eval, t, {seq, pass}, l);
      facts.evals.push_back(e);
      return e;
    };
    // Whether the loop left by `way`, at its exit.
    const auto taken = [&](const Exit& way) {
      const Id now = phi_typed(PegType(ir::Type::bool_()), c, way.cond, truth(false));
      facts.total.push_back(now);
      return add(Kind::Eval, PegType(ir::Type::bool_()), {now, pass}, l);
    };

    Flow out;
    out.fall = env;
    for (std::size_t v : carried) {
      const auto at = [v](const Env& e) { return e.vars[v]; };
      out.fall.vars[v] =
          eval(var_type(v), exit_value(var_type(v), at, top.vars[v], next.vars[v]), env.vars[v]);
    }
    const auto state_at = [](const Env& e) { return e.state; };
    out.fall.state = eval(PegType::state(),
                          exit_value(PegType::state(), state_at, top.state, next.state), env.state);
    out.fall_cond = truth(true);
    if (every_pass_) {
      for (std::size_t v : carried) always_->push_back(out.fall.vars[v]);
    }
    if (ret) {
      const Id returned = taken(*ret);
      Env r = out.fall;
      if (!f_.ret.is_void()) {
        const Id zero = constant(f_.ret, 0);
        const Id value =
            phi_typed(ret_type(), c, phi_typed(ret_type(), ret->cond, ret->env.ret, zero), zero);
        facts.total.push_back(value);
        r.ret = eval(ret_type(), value, zero);
      }
      out.exit(kReturn) = Exit{returned, std::move(r)};
      out.fall_cond = negate(returned);
    }
    // An exit of loops around this one: it leaves this loop, then one loop
    // fewer (continue 2 is the enclosing loop's continue), with the values
    // at this loop's exit.
    for (auto k = outer.rbegin(); k != outer.rend(); ++k) {
      const Id left = taken(*b.exits[*k]);
      out.exit(outer_slot(*k)) = Exit{left, out.fall};
      out.fall_cond = conj(out.fall_cond, negate(left));
    }
    out_.loops.push_back(std::move(facts));
    return out;
  }

  // ------------------------------------------------------------ expressions

  // Out of line: the check's lambdas stay out of translate's frame, which
  // expressions recurse through.
  [[gnu::noinline]] bool division_may_trap(Id dividend, Id divisor, ir::Type t) const {
    return !division_cannot_trap(DivisionView{*this}, dividend, divisor, t);
  }
  // The e-graph being built, as division_cannot_trap reads it.
  struct DivisionView {
    const Translator& t;
    std::optional<std::uint64_t> constant(Id id) const { return t.constant_bits(id); }
    bool same(Id a, Id b) const { return t.same(a, b); }
    template <class F>
    bool any_node(Id id, F&& f) const {
      for (Id n : t.g_.nodes_of(id)) {
        const eqsat::ENodeView v = t.g_.node(n);
        if (f(kind_of(v.label.op), v.children)) return true;
      }
      return false;
    }
  };

  std::vector<Id> args(const ir::Expr& e, Env& env, std::size_t first = 0) {
    std::vector<Id> out;
    for (std::size_t i = first; i < e.args.size(); ++i) out.push_back(expr(e.args[i], env));
    return out;
  }

  // The value of a pure expression of constants and of variables that are
  // constants in `env` (with `reads_variables`), if it folds to one (an
  // operation that would trap does not fold).
  std::optional<std::uint64_t> constant_on_entry(const ir::ExprPtr& e, Env& env,
                                                 bool reads_variables = true) {
    std::vector<const ir::Expr*> todo{e.get()};
    while (!todo.empty()) {
      const ir::Expr* x = todo.back();
      todo.pop_back();
      switch (x->kind) {
        case ir::ExprKind::Const:
          break;
        case ir::ExprKind::Var:
          if (!reads_variables || f_.var(x->var).kind == ir::VarKind::Shared) return std::nullopt;
          if (env.vars.at(x->var.index) == kNone || !constant_bits(env.vars[x->var.index]))
            return std::nullopt;
          break;
        case ir::ExprKind::Unary:
        case ir::ExprKind::Binary:
        case ir::ExprKind::Select:
        case ir::ExprKind::Cast:
          for (const ir::ExprPtr& a : x->args) todo.push_back(a.get());
          break;
        default:
          return std::nullopt;
      }
    }
    return constant_bits(translate(e, env));
  }

  // The PEG of `e`; notes it as defined on every run when it is evaluated on
  // every run.
  Id expr(const ir::ExprPtr& e, Env& env) {
    const Id id = translate(e, env);
    if (every_pass_ && lazy_ == 0 && id != kNone) always_->push_back(id);
    return id;
  }

  Id translate(const ir::ExprPtr& e, Env& env) {
    const PegType t(e->type);
    switch (e->kind) {
      case ir::ExprKind::Const:
        return add(Kind::Const, t, {}, e->bits);
      case ir::ExprKind::Var: {
        if (f_.var(e->var).kind == ir::VarKind::Shared)
          return add(Kind::Shared, t, {}, e->var.index);
        const Id v = env.vars.at(e->var.index);
        if (v == kNone) throw unsupported("to_peg: a variable read before its declaration");
        return v;
      }
      case ir::ExprKind::Unary:
        return add(kind_of(e->unary_op()), t, {expr(e->args[0], env)});
      case ir::ExprKind::Binary:
        return binary(*e, env);
      case ir::ExprKind::Select:
        return select(*e, env);
      case ir::ExprKind::Cast:
        return add(Kind::Cast, t, {expr(e->args[0], env)}, PegType(e->args[0]->type).code());
      case ir::ExprKind::Load: {
        const Id p = expr(e->args[0], env);
        const Id i = expr(e->args[1], env);
        // A table is never written: its elements read no memory state.
        if (into_table(p)) return add(Kind::ReadTable, t, {p, i});
        return add(Kind::Load, t, {env.state, p, i});
      }
      case ir::ExprKind::Call:
        return call(*e, env);
      case ir::ExprKind::Math:
        return add(kind_of(e->math_op()), t, args(*e, env));
      case ir::ExprKind::GpuIndex:
        return add(Kind::GpuIndex, t, {}, 4u * e->op + e->axis);
      case ir::ExprKind::Table:
        return table(*e);
      case ir::ExprKind::Atomic:
        return atomic(*e, env);
    }
    throw unsupported("to_peg: unknown expression");
  }

  // Out of line, as the other cases with locals of their own: translate()
  // recurses once per expression level and keeps a small frame.
  [[gnu::noinline]] Id select(const ir::Expr& e, Env& env) {
    const Id c = expr(e.args[0], env);
    Env te = env, fe = env;
    const Id a = operand_where(e.args[1], te, c, true);
    const Id b = operand_where(e.args[2], fe, c, false);
    env.state = phi_typed(PegType::state(), c, te.state, fe.state);
    return phi_typed(PegType(e.type), c, a, b);
  }

  [[gnu::noinline]] Id atomic(const ir::Expr& e, Env& env) {
    std::vector<Id> children = args(e, env);
    children.insert(children.begin(), env.state);
    const PegType t(e.type);
    const Id tuple = add(Kind::Atomic, t, children, e.op);
    env.state = add(Kind::ProjState, PegType::state(), {tuple});
    return add(Kind::ProjValue, t, {tuple});
  }

  // A Table leaf: its payload is a hash of the table's contents, the same for
  // equal tables (they are one table); two different tables of one function
  // with one hash are refused rather than merged. Out of line, as into_table
  // (translate's frame, above).
  [[gnu::noinline]] Id table(const ir::Expr& e) {
    const ir::TableRef& data = table_of(e);
    auto [it, fresh] = table_ids_.try_emplace(data.get(), 0);
    if (fresh) {
      ir::Hasher h;
      h.add(PegType(data->element).code());
      h.add(
          std::string_view(reinterpret_cast<const char*>(data->bytes.data()), data->bytes.size()));
      it->second = h.finish().lo;
      const auto [known, added] = out_.tables.try_emplace(it->second, data);
      if (!added && !(*known->second == *data))
        throw unsupported("to_peg: two tables with one content hash");
    }
    return add(Kind::Table, PegType(e.type), {}, it->second);
  }
  static const ir::TableRef& table_of(const ir::Expr& e) { return e.table; }

  // Whether `p` points into a table: a Table leaf, moved by pointer
  // arithmetic (walked iteratively, each class once).
  [[gnu::noinline]] bool into_table(Id p) {
    std::vector<std::uint32_t> path;
    bool found = false;
    for (;;) {
      const std::uint32_t key = eqsat::index(p);
      if (auto it = into_table_.find(key); it != into_table_.end()) {
        found = it->second;
        break;
      }
      path.push_back(key);
      std::optional<Id> base;
      for (Id n : g_.nodes_of(p)) {
        const eqsat::ENodeView v = g_.node(n);
        const Kind k = kind_of(v.label.op);
        if (k == Kind::Table) found = true;
        if ((k == Kind::Add || k == Kind::Sub) && result_type(v.label.op).is_ir() &&
            result_type(v.label.op).ir().is_pointer())
          base = v.children[0];
      }
      if (found || !base) break;
      p = *base;
    }
    for (std::uint32_t key : path) into_table_[key] = found;
    return found;
  }

  // An operand evaluated only where `c` is `taken` (a select's arm, the
  // right operand of && and ||): lazily, unless c is that constant, where it
  // is evaluated whenever the expression is (and so defined there:
  // `false ? x : y` computes y on every pass).
  Id operand_where(const ir::ExprPtr& x, Env& env, Id c, bool taken) {
    const std::optional<std::uint64_t> k = constant_bits(c);
    const bool lazy = !k || (*k != 0) != taken;
    lazy_ += lazy;
    const Id id = expr(x, env);
    lazy_ -= lazy;
    return id;
  }

  // && and || evaluate their right operand lazily (out of line: its Env copy
  // stays out of translate's frame).
  [[gnu::noinline]] Id short_circuit(const ir::Expr& e, Env& env) {
    const Id a = expr(e.args[0], env);
    Env rest = env;
    const Id b = operand_where(e.args[1], rest, a, e.binary_op() == ir::BinaryOp::And);
    const PegType boolean(ir::Type::bool_());
    if (e.binary_op() == ir::BinaryOp::And) {
      env.state = phi_typed(PegType::state(), a, rest.state, env.state);
      return phi_typed(boolean, a, b, truth(false));
    }
    env.state = phi_typed(PegType::state(), a, env.state, rest.state);
    return phi_typed(boolean, a, truth(true), b);
  }

  Id binary(const ir::Expr& e, Env& env) {
    const ir::BinaryOp op = e.binary_op();
    if (op == ir::BinaryOp::And || op == ir::BinaryOp::Or) return short_circuit(e, env);
    const Id a = expr(e.args[0], env);
    const Id b = expr(e.args[1], env);
    const Kind k = kind_of(op);
    const ir::Type operand = e.args[0]->type;
    const PegType slot = is_comparison(k) ? PegType(operand) : PegType(e.type);
    const Id v = add(k, slot, {a, b});
    if ((k == Kind::Div || k == Kind::Rem) && e.type.is_integer() &&
        division_may_trap(a, b, e.type))
      env.state = add(Kind::Demand, PegType::state(), {env.state, v});
    return v;
  }

  [[gnu::noinline]] Id call(const ir::Expr& e, Env& env) {
    const std::uint64_t id = extern_name_id(e.callee->name);
    out_.externs.emplace(id, e.callee);
    std::vector<Id> children = args(e, env);
    const PegType t(e.type);
    switch (e.callee->effect) {
      case ir::Effect::Pure:
        return add(Kind::CallPure, t, children, id);
      case ir::Effect::ReadOnly:
        children.insert(children.begin(), env.state);
        return add(Kind::CallRead, t, children, id);
      case ir::Effect::Effectful: {
        children.insert(children.begin(), env.state);
        const Id tuple = add(Kind::CallEffect, t, children, id);
        env.state = add(Kind::ProjState, PegType::state(), {tuple});
        if (e.type.is_void()) return kNone;
        return add(Kind::ProjValue, t, {tuple});
      }
    }
    return kNone;
  }

  const ir::Function& f_;
  EGraph& g_;
  std::span<const ir::VarId> outputs_;
  PegFunction out_;
  std::unordered_map<const ir::TableData*, std::uint64_t> table_ids_;  // table -> payload
  std::unordered_map<std::uint32_t, bool> into_table_;                 // class -> into_table
  // Whether the statement being translated runs on every pass of its scope:
  // every call at the top level, every iteration up to the exit in a loop;
  // what it computes then goes to always_ (PegFunction::defined, or the
  // loop's LoopFacts::total).
  bool every_pass_ = true;
  std::vector<Id>* always_ = &out_.defined;
  // The branches around the statement being translated, from the top level
  // (path_block), and where values on every pass of the innermost go: an
  // `if` is on the path when always_ is that.
  std::uint32_t path_ = PegFunction::kTopLevel;  // the innermost step (out_.path_steps)
  std::vector<Id>* path_always_ = &out_.defined;
  unsigned lazy_ = 0;  // inside operands `&&`, `||` or `?:` may skip
};

}  // namespace

PegFunction to_peg(const ir::Function& function, eqsat::EGraph& egraph,
                   std::span<const ir::VarId> outputs) {
  return Translator(function, egraph, outputs).run();
}

}  // namespace augur::peg
