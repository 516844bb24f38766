#include "runtime/peg/revert_emitter.h"

#include <algorithm>
#include <initializer_list>
#include <unordered_set>
#include <utility>

#include "runtime/ir/visit.h"

namespace augur::peg::revert_detail {

namespace {

// The height of an expression tree, counted up to `cap`.
unsigned height(const ir::ExprPtr& e, unsigned cap) {
  if (cap == 0 || e->args.empty()) return 1;
  unsigned h = 0;
  for (const ir::ExprPtr& a : e->args) h = std::max(h, height(a, cap - 1));
  return h + 1;
}

bool is_bool_constant(const ir::ExprPtr& e, bool value) {
  return e->kind == ir::ExprKind::Const && e->type.is_bool() && e->bits == (value ? 1u : 0u);
}

// c ? a : b, in the shortest spelling.
ir::ExprPtr select_expr(const ir::ExprPtr& c, const ir::ExprPtr& a, const ir::ExprPtr& b) {
  if (a->type.is_bool()) {
    if (is_bool_constant(a, true) && is_bool_constant(b, false)) return c;
    if (is_bool_constant(a, false) && is_bool_constant(b, true))
      return ir::unary(ir::UnaryOp::Not, c);
    if (is_bool_constant(b, false)) return ir::binary(ir::BinaryOp::And, c, a);
    if (is_bool_constant(a, true)) return ir::binary(ir::BinaryOp::Or, c, b);
  }
  return ir::select(c, a, b);
}

bool is_simple(const ir::ExprPtr& e) {
  return e->kind == ir::ExprKind::Const || e->kind == ir::ExprKind::Var;
}

// Whether `root` answers true, walked without recursion. `answered(n)` is an
// answer n has already (kept, or one that needs no walk); `own(n)` n's own
// answer, or std::nullopt when n answers as its operands do: true at the
// first (in order) that answers true. `record(n, answer)` keeps answers. A
// node answers false while its operands are walked: a cycle adds nothing.
template <class Answered, class Own, class Record>
bool any_operand_answers(const PegGraph& g, std::uint32_t root, Answered&& answered, Own&& own,
                         Record&& record) {
  struct Frame {
    std::uint32_t n;
    std::size_t next;  // the operand to walk next
  };
  std::vector<Frame> path;
  // n's answer, when it has one without walking its operands.
  const auto enter = [&](std::uint32_t n) -> std::optional<bool> {
    if (const std::optional<bool> a = answered(n)) return a;
    record(n, false);
    if (const std::optional<bool> a = own(n)) {
      record(n, *a);
      return a;
    }
    path.push_back({n, 0});
    return std::nullopt;
  };
  if (const std::optional<bool> a = enter(root)) return *a;
  bool left_true = false;  // whether the node just left answered true
  while (!path.empty()) {
    const std::size_t top = path.size() - 1;
    const std::vector<std::uint32_t>& operands = g.nodes[path[top].n].children;
    bool found = std::exchange(left_true, false);
    bool descended = false;
    while (!found && !descended && path[top].next < operands.size()) {
      const std::optional<bool> a = enter(operands[path[top].next++]);
      descended = !a;
      found = a.value_or(false);
    }
    if (descended) continue;
    record(path[top].n, found);
    left_true = found;
    path.pop_back();
  }
  return left_true;
}

}  // namespace

Emitter::Emitter(const RevertInput& input, bool split_exit_tests)
    : in_(input),
      g_(*input.graph),
      cached_in_(input.graph->nodes.size(), 0),
      reached_in_(input.graph->nodes.size(), 0),
      in_branches_of_(input.graph->nodes.size(), 0),
      split_exit_tests_(split_exit_tests) {
  compute_facts();
  for (std::uint32_t n = 0; n < g_.nodes.size(); ++n) {
    const std::uint32_t c = eqsat::index(g_.nodes[n].eclass);
    if (c >= node_of_class_.size()) node_of_class_.resize(c + 1, kNoNode);
    if (node_of_class_[c] == kNoNode) node_of_class_[c] = n;
  }
  known_class_ = [this](eqsat::Id cls) -> std::optional<bool> {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      for (const auto& [cond, value] : s->known)
        if (node(cond).eclass == cls) return value;
    // A condition known without a fact: a constant, a loop's invariant
    // value (a `returned` flag no exit sets).
    const std::uint32_t c = eqsat::index(cls);
    if (c < node_of_class_.size() && node_of_class_[c] != kNoNode) return known(node_of_class_[c]);
    return std::nullopt;
  };
}

void Emitter::fail(std::uint32_t n, std::string why) const {
  throw Failure{n, std::move(why)};
}

// ------------------------------------------------------------ scopes

Emitter::Marks::Marks(std::vector<std::unique_ptr<eqsat::StampedSet>>& pool, std::size_t nodes)
    : pool_(pool) {
  if (pool.empty()) {
    set_ = std::make_unique<eqsat::StampedSet>();
  } else {
    set_ = std::move(pool.back());
    pool.pop_back();
  }
  set_->clear(nodes);
}

void Emitter::push_scope(ir::Block* out) {
  scopes_.push_back(Scope{});
  scopes_.back().out = out;
  scopes_.back().serial = ++scopes_pushed_;
}

void Emitter::pop_scope() {
  for (const auto& [n, value] : scopes_.back().values) --cached_in_[n];
  for (std::uint32_t state : scopes_.back().states) --reached_in_[state];
  for (const auto& [n, kept] : scopes_.back().in_branches)
    in_branches_of_[n] -= static_cast<std::uint32_t>(kept.size());
  scopes_.pop_back();
}

void Emitter::keep_branch_values(const ir::Block& block, std::uint32_t cond, bool holds) {
  Scope& branch = scopes_.back();
  if ((branch.values.empty() && branch.in_branches.empty()) || scopes_.size() < 2) return;
  std::unordered_set<std::uint32_t> declared;
  for (const ir::Stmt& s : block)
    if (s.kind == ir::StmtKind::Decl) declared.insert(s.var.index);
  Scope& outer = scopes_[scopes_.size() - 2];
  for (const auto& [n, value] : branch.values) {
    if (value->kind != ir::ExprKind::Var || !declared.contains(value->var.index)) continue;
    outer.in_branches[n].push_back({{{cond, holds}}, value->var});
    ++in_branches_of_[n];
  }
  for (const auto& [n, kept] : branch.in_branches)
    for (const Scope::InBranch& inner : kept) {
      if (inner.conditions.size() >= kBranchConditions) continue;
      Scope::InBranch up = inner;
      up.conditions.push_back({cond, holds});
      outer.in_branches[n].push_back(std::move(up));
      ++in_branches_of_[n];
    }
}

ir::ExprPtr Emitter::lookup_in_scopes(std::uint32_t n) const {
  // A branch's condition seen from inside a loop entered since is known
  // for this iteration: it says nothing of the branch unless invariant.
  std::uint64_t entered = 0;
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    if (auto it = s->values.find(n); it != s->values.end()) return it->second;
    if (in_branches_of_[n] != 0)
      if (auto it = s->in_branches.find(n); it != s->in_branches.end())
        for (const Scope::InBranch& kept : it->second)
          if (std::all_of(kept.conditions.begin(), kept.conditions.end(),
                          [&](const Scope::InBranch::Condition& c) {
                            if ((g_.variant[c.cond] & entered) != 0) return false;
                            // (By cases too: `if (!a) loop` has run where
                            // neither `a && b` nor `a && !b` held.)
                            const std::optional<bool> k = known(c.cond);
                            return (k ? k : implied(c.cond)) == c.holds;
                          })) {
            hoisted_.push_back(kept.var);
            return read(kept.var);
          }
    if ((g_.variant[n] & s->barrier) != 0) break;
    entered |= s->barrier;
  }
  return nullptr;
}

void Emitter::finish_hoisting() {
  if (hoisted_.empty()) return;
  std::vector<std::uint8_t> hoist(fn_.vars.size(), 0);
  for (ir::VarId v : hoisted_) hoist[v.index] = 1;
  // A variable read only while a loop's iteration was tried out, in a block
  // since dropped, has no declaration left and needs none.
  const std::vector<std::uint8_t> found = ir::declarations_to_assignments(fn_, hoist);
  ir::Block decls;
  for (std::uint32_t v = 0; v < found.size(); ++v)
    if (found[v]) decls.push_back(ir::Stmt::decl(ir::VarId{v}));
  fn_.body.insert(fn_.body.begin(), std::make_move_iterator(decls.begin()),
                  std::make_move_iterator(decls.end()));
}

void Emitter::know(std::uint32_t cond, bool holds) {
  std::vector<std::pair<std::uint32_t, bool>> todo{{cond, holds}};
  for (std::size_t i = 0; i < todo.size() && i < kKnowImplied; ++i) {
    const auto [c, value] = todo[i];
    scopes_.back().known[c] = value;
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      if (auto it = s->phis_by_condition.find(c); it != s->phis_by_condition.end())
        for (std::uint32_t phi : it->second)
          if (const std::optional<bool> phi_value = known(phi))
            todo.emplace_back(node(phi).children[value ? 1 : 2], *phi_value);
      // Past a loop c varies in, no φ of c was known.
      if ((g_.variant[c] & s->barrier) != 0 && !s->knows_through_barrier) break;
    }
    const PegNode& p = node(c);
    // An arm known to be the other value (a constant, a loop's invariant
    // flag): the φ took its other arm.
    const auto known_as_other = [&](std::uint32_t k) {
      const std::optional<bool> known_k = known(k);
      return known_k && *known_k != value;
    };
    if (std::optional<std::uint32_t> first = first_pass(c)) {
      todo.emplace_back(*first, value);
    } else if (p.kind() == Kind::Not) {
      todo.emplace_back(p.children[0], !value);
    } else if (p.kind() == Kind::Phi && p.type() == PegType(ir::Type::bool_())) {
      // φ(c, a, b) = v with c known is its arm: that arm is v.
      if (const std::optional<bool> chosen = known(p.children[0])) {
        todo.emplace_back(p.children[*chosen ? 1 : 2], value);
      } else if (known_as_other(p.children[2])) {
        todo.emplace_back(p.children[0], true);
        todo.emplace_back(p.children[1], value);
      } else if (known_as_other(p.children[1])) {
        todo.emplace_back(p.children[0], false);
        todo.emplace_back(p.children[2], value);
      } else {
        scopes_.back().phis_by_condition[p.children[0]].push_back(c);
      }
    }
  }
}

std::optional<bool> Emitter::known(std::uint32_t cond) const {
  return known(cond, 16);
}

std::optional<std::uint32_t> Emitter::negation_of(std::uint32_t n) const {
  const PegNode& p = node(n);
  if (p.kind() == Kind::Not) return p.children[0];
  const auto is_const = [&](std::uint32_t k, bool value) {
    return node(k).kind() == Kind::Const && (node(k).label.payload != 0) == value;
  };
  if (p.kind() == Kind::Phi && is_const(p.children[1], false) && is_const(p.children[2], true))
    return p.children[0];
  return std::nullopt;
}

std::optional<bool> Emitter::known(std::uint32_t cond, unsigned depth) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    if (auto it = s->known.find(cond); it != s->known.end()) return it->second;
    if ((g_.variant[cond] & s->barrier) != 0 && !s->knows_through_barrier) break;
  }
  const PegNode& p = node(cond);
  if (p.kind() == Kind::Const) return p.label.payload != 0;
  if (p.kind() == Kind::Eval && single_pass(cond) && node(p.children[0]).kind() == Kind::Const)
    return node(p.children[0]).label.payload != 0;
  if (depth == 0) return std::nullopt;
  // What the known conditions imply: φ(c, a, b) with c known, or with a and
  // b known alike; !x with x known; a single-pass loop's value with its
  // first iteration's known; a loop's invariant value (computed as that
  // value, whatever the loop does) with that value known.
  if (invariant_eval(cond)) return known(p.children[0], depth - 1);
  if (p.kind() == Kind::Not) {
    if (std::optional<bool> x = known(p.children[0], depth - 1)) return !*x;
  } else if (p.kind() == Kind::Phi && p.type() == PegType(ir::Type::bool_())) {
    if (std::optional<bool> c = known(p.children[0], depth - 1))
      return known(p.children[*c ? 1 : 2], depth - 1);
    const std::optional<bool> a = known(p.children[1], depth - 1);
    if (a && known(p.children[2], depth - 1) == a) return a;
  } else if (std::optional<std::uint32_t> first = first_pass(cond)) {
    return known(*first, depth - 1);
  }
  return std::nullopt;
}

namespace {
// implied()'s bounds: the conditions it splits on, the φs and !s it walks
// under each condition it evaluates, the known conditions it respects.
constexpr std::size_t kMaxCaseAtoms = 4;
constexpr std::size_t kMaxCaseNodes = 64;
constexpr std::size_t kMaxCaseFacts = 32;
}  // namespace

std::optional<bool> Emitter::implied(std::uint32_t cond) const {
  // The φs and !s under `root`, operands first (the root last, though it
  // may be known: a fact); its atoms, when asked for. Empty when there are
  // more than kMaxCaseNodes of them.
  const auto walk = [&](std::uint32_t root, std::vector<std::uint32_t>* atoms) {
    std::vector<std::uint32_t> order;
    std::vector<std::pair<std::uint32_t, bool>> stack{{root, false}};
    std::unordered_set<std::uint32_t> seen;
    while (!stack.empty()) {
      const auto [n, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        order.push_back(n);
        continue;
      }
      if (!seen.insert(n).second) continue;
      if (seen.size() > kMaxCaseNodes) return std::vector<std::uint32_t>{};
      const PegNode& p = node(n);
      const bool op = p.type() == PegType(ir::Type::bool_()) &&
                      (p.kind() == Kind::Phi || p.kind() == Kind::Not);
      if (!op || (n != root && known(n))) {
        if (atoms && !op && !known(n) && p.kind() != Kind::Const) atoms->push_back(n);
        continue;
      }
      stack.emplace_back(n, true);
      for (std::uint32_t c : p.children) stack.emplace_back(c, false);
    }
    return order;
  };
  std::vector<std::uint32_t> atoms;
  const std::vector<std::uint32_t> order = walk(cond, &atoms);
  // (An atom asked is its own value: `a` where `a && a` is known false.)
  const bool atom_asked = order.empty() && atoms.size() == 1 && atoms.front() == cond;
  if ((order.empty() && !atom_asked) || atoms.empty() || atoms.size() > kMaxCaseAtoms)
    return std::nullopt;
  // The known conditions to respect: those still known here, the innermost
  // scopes' first.
  // A fact over the condition's atoms and others splits on those too,
  // while there are at most kMaxCaseAtoms in all (`a && b` and `a && !b`
  // known false imply `!a`).
  std::vector<std::pair<std::vector<std::uint32_t>, bool>> facts;
  std::vector<std::uint32_t> fact_atoms;
  for (auto s = scopes_.rbegin(); s != scopes_.rend() && facts.size() < kMaxCaseFacts; ++s)
    for (const auto& [c, holds] : s->known) {
      if (facts.size() == kMaxCaseFacts) break;
      if (known(c) != holds) continue;
      fact_atoms.clear();
      std::vector<std::uint32_t> fact = walk(c, &fact_atoms);
      if (fact.empty()) continue;
      facts.emplace_back(std::move(fact), holds);
      const auto is_atom = [&](std::uint32_t x) {
        return std::ranges::find(atoms, x) != atoms.end();
      };
      if (!std::ranges::any_of(fact_atoms, is_atom)) continue;
      std::erase_if(fact_atoms, is_atom);
      if (atoms.size() + fact_atoms.size() <= kMaxCaseAtoms)
        atoms.insert(atoms.end(), fact_atoms.begin(), fact_atoms.end());
    }
  std::optional<bool> out;
  std::unordered_map<std::uint32_t, std::optional<bool>> value;
  for (std::uint32_t bits = 0; bits < (1u << atoms.size()); ++bits) {
    value.clear();
    for (std::size_t i = 0; i < atoms.size(); ++i) value[atoms[i]] = ((bits >> i) & 1) != 0;
    const auto of = [&](std::uint32_t n) -> std::optional<bool> {
      if (const auto it = value.find(n); it != value.end()) return it->second;
      return known(n);  // a constant or a known condition; unknown otherwise
    };
    const auto evaluate = [&](const std::vector<std::uint32_t>& nodes) {
      for (std::uint32_t n : nodes) {
        if (value.contains(n)) continue;
        const PegNode& p = node(n);
        std::optional<bool> v;
        if (p.kind() == Kind::Not) {
          if (const std::optional<bool> x = of(p.children[0])) v = !*x;
        } else if (const std::optional<bool> c = of(p.children[0])) {
          v = of(p.children[*c ? 1 : 2]);
        } else if (const std::optional<bool> a = of(p.children[1]); a && of(p.children[2]) == a) {
          v = a;
        }
        value[n] = v;
      }
      return of(nodes.back());
    };
    const bool allowed = std::none_of(facts.begin(), facts.end(), [&](const auto& fact) {
      const std::optional<bool> v = evaluate(fact.first);
      return v && *v != fact.second;
    });
    if (!allowed) continue;
    const std::optional<bool> v = atom_asked ? of(cond) : evaluate(order);
    if (!v || (out && *out != *v)) return std::nullopt;
    out = v;
  }
  return out;
}

bool Emitter::reached(std::uint32_t state) const {
  if (reached_in_[state] == 0) return false;
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    if (s->states.contains(state)) return true;
    if ((g_.variant[state] & s->barrier) != 0) break;
  }
  return false;
}

ir::VarId Emitter::new_var(ir::Type type, char prefix) {
  std::string name;
  do {
    name = std::string(1, prefix) + std::to_string(next_name_++);
  } while (names_.contains(name));
  names_.insert(name);
  fn_.vars.push_back(ir::Variable{name, type, ir::VarKind::Local, 0});
  return ir::VarId{static_cast<std::uint32_t>(fn_.vars.size() - 1)};
}

ir::ExprPtr Emitter::read(ir::VarId v) const {
  return ir::read(v, fn_.vars[v.index].type);
}

ir::ExprPtr Emitter::temp(ir::ExprPtr e) {
  if (is_simple(e)) return e;
  const ir::VarId v = new_var(e->type, 't');
  emit(ir::Stmt::decl(v, std::move(e)));
  return read(v);
}

// ------------------------------------------------------------ values

ir::ExprPtr Emitter::constant(const PegNode& n) const {
  const ir::Type t = n.type().ir();
  if (t.is_pointer()) {
    if (n.label.payload != 0) fail(kNoBlame, "a pointer constant other than null");
    return ir::null_pointer(t);
  }
  return ir::constant(t, n.label.payload);
}

ir::ExternRef Emitter::callee(const PegNode& n) const {
  auto it = in_.externs->find(n.label.payload);
  if (it == in_.externs->end()) throw Failure{kNoBlame, "a call to an undeclared extern"};
  return it->second;
}

void Emitter::materialize(std::uint32_t n) {
  ir::ExprPtr v = value(n);
  if (!lookup(n) || !is_simple(v)) cache(n, temp(std::move(v)));
}

ir::ExprPtr Emitter::value(std::uint32_t n) {
  if (ir::ExprPtr v = lookup(n)) return v;
  if (!in_progress_.insert(n).second) fail(n, "a value that depends on itself outside a θ");
  struct Done {
    std::unordered_set<std::uint32_t>& set;
    std::uint32_t n;
    ~Done() { set.erase(n); }
  } done{in_progress_, n};
  const PegNode& p = node(n);
  switch (p.kind()) {
    case Kind::Const:
      return constant(p);
    case Kind::Param: {
      const ir::VarId v{static_cast<std::uint32_t>(p.label.payload)};
      if (v.index >= fn_.num_params) fail(n, "a parameter that does not exist");
      return read(v);
    }
    case Kind::Shared: {
      auto it = shared_.find(p.label.payload);
      if (it == shared_.end()) {
        const ir::Variable& original = in_.original->vars.at(p.label.payload);
        const ir::VarId v = new_var(original.type, 's');
        fn_.vars[v.index].kind = ir::VarKind::Shared;
        fn_.vars[v.index].shared_count = original.shared_count;
        it = shared_.emplace(p.label.payload, v).first;
      }
      return read(it->second);
    }
    case Kind::Table:
      return ir::table(table(p));
    case Kind::GpuIndex:
      return ir::gpu_index(static_cast<ir::GpuIndex>(p.label.payload / 4),
                           static_cast<unsigned>(p.label.payload % 4));
    case Kind::Phi:
      if (!p.type().is_ir()) fail(n, "a φ over " + p.type().name() + " used as a value");
      return phi(n);
    case Kind::Eval: {
      if (invariant_eval(n)) return value(p.children[0]);
      if (ir::ExprPtr v = zero_trip(n)) return v;
      loop(p.children[1], n);
      if (ir::ExprPtr v = lookup(n)) return v;
      fail(n, "a loop value the loop did not compute");
    }
    case Kind::Load:
    case Kind::CallRead: {
      std::vector<ir::ExprPtr> args;
      for (std::size_t i = 1; i < p.children.size(); ++i) args.push_back(value(p.children[i]));
      if (p.kind() == Kind::Load) {
        if (ir::ExprPtr e = load_past_overwrite(n, args[0], args[1])) {
          e = temp(std::move(e));
          cache(n, e);
          return e;
        }
      }
      if (p.kind() != Kind::Load || !reads_past_other_indices(n)) read_at(p.children[0], n);
      ir::ExprPtr e =
          p.kind() == Kind::Load ? ir::load(args[0], args[1]) : ir::call(callee(p), args);
      e = temp(std::move(e));
      cache(n, e);
      return e;
    }
    case Kind::ProjValue: {
      const std::uint32_t tuple = p.children[0];
      if (ir::ExprPtr v = lookup(tuple)) return v;
      auto it = state_of_tuple_.find(tuple);
      if (it == state_of_tuple_.end()) fail(n, "the value of a call that never happens");
      reach(it->second);
      if (ir::ExprPtr v = lookup(tuple)) return v;
      fail(n, "the value of a call made elsewhere");
    }
    case Kind::Theta:
      fail(n, "a θ outside its loop");
    default:
      break;
  }
  if (!is_pure_value_op(p.kind()))
    fail(n, "a " + std::string(name_of(p.kind())) + " used as a value");
  ir::ExprPtr e = compute(n);
  // Work that may trap is kept too: a peeled first iteration computes the
  // loop-invariant part of it for the iterations after it.
  if (uses_[n] > 1 || !speculatable_[n] || height(e, 8) >= 8) {
    e = temp(std::move(e));
    cache(n, e);
  }
  return e;
}

ir::ExprPtr Emitter::zero_trip(std::uint32_t n) {
  const PegNode& p = node(n);
  const PegNode& pass = node(p.children[1]);
  if (pass.kind() != Kind::Pass || known(pass.children[0]) != true) return nullptr;
  const unsigned l = p.loop();
  const std::uint32_t root[] = {p.children[0]};
  const std::vector<std::uint32_t> thetas = loop_thetas(l, root);
  std::vector<ir::ExprPtr> inits;
  for (std::uint32_t t : thetas) {
    const std::uint32_t init = node(t).children[0];
    if (!node(t).type().is_ir() || g_.depth(init) >= l) return nullptr;
    if (!lookup(init) && !speculatable_[init] && !in_.total(node(t).eclass, pass.eclass))
      return nullptr;
  }
  for (std::uint32_t t : thetas) inits.push_back(value(node(t).children[0]));
  // The θs are their initial values; what varies in the loop is computed
  // anew in this scope (its statements go where the current scope's go).
  const std::uint64_t bit = std::uint64_t{1} << (l - 1);
  const std::size_t outer = scopes_.size() - 1;
  push_scope(scopes_.back().out);
  scopes_.back().barrier = bit;
  // (The conditions known outside that vary in the loop are known of its
  // first iteration: know() records a single-pass loop's values so.)
  scopes_.back().knows_through_barrier = true;
  for (std::size_t i = 0; i < thetas.size(); ++i) cache(thetas[i], inits[i]);
  reuse_first_pass(p.children[1]);
  ir::ExprPtr v = value(p.children[0]);
  // What does not vary in the loop (an invariant loop its bound reads) is
  // the same outside this scope, whose statements are the outer scope's.
  std::vector<std::pair<std::uint32_t, ir::ExprPtr>> invariant;
  FirstPass first{outer, scopes_[outer].serial, {}, scopes_.back().in_branches};
  for (const auto& [m, e] : scopes_.back().values)
    ((g_.variant[m] & bit) == 0 ? invariant : first.values).emplace_back(m, e);
  spend(first.values.size() + first.in_branches.size());
  first_passes_.insert_or_assign(p.children[1], std::move(first));
  pop_scope();
  for (auto& [m, e] : invariant)
    if (!lookup(m)) cache(m, std::move(e));
  v = temp(std::move(v));
  cache(n, v);
  return v;
}

void Emitter::reuse_first_pass(std::uint32_t pass) {
  const auto it = first_passes_.find(pass);
  if (it == first_passes_.end()) return;
  const FirstPass& first = it->second;
  const std::size_t inner = scopes_.size() - 1;  // the new pass's scope
  if (first.scope >= inner || scopes_[first.scope].serial != first.serial) return;
  for (std::size_t s = first.scope + 1; s < inner; ++s)
    if (scopes_[s].barrier != 0) return;
  spend(first.values.size() + first.in_branches.size());
  for (const auto& [m, e] : first.values)
    if (!scopes_.back().values.contains(m)) cache(m, e);
  for (const auto& [m, kept] : first.in_branches) {
    std::vector<Scope::InBranch>& to = scopes_.back().in_branches[m];
    to.insert(to.end(), kept.begin(), kept.end());
    in_branches_of_[m] += static_cast<std::uint32_t>(kept.size());
  }
}

ir::ExprPtr Emitter::compute(std::uint32_t n) {
  const PegNode& p = node(n);
  std::vector<ir::ExprPtr> args;
  for (std::uint32_t c : p.children) args.push_back(value(c));
  const Kind k = p.kind();
  if (std::optional<ir::UnaryOp> op = unary_op(k)) return ir::unary(*op, args[0]);
  if (std::optional<ir::BinaryOp> op = binary_op(k)) return ir::binary(*op, args[0], args[1]);
  if (std::optional<ir::MathOp> op = math_op(k)) return ir::math(*op, std::move(args));
  if (k == Kind::Cast) return ir::cast(p.type().ir(), args[0]);
  if (k == Kind::CallPure) return ir::call(callee(p), std::move(args));
  if (k == Kind::ReadTable) return ir::load(args[0], args[1]);
  fail(n, "no expression for " + std::string(name_of(k)));
}

ir::ExprPtr Emitter::phi(std::uint32_t n) {
  const PegNode& p = node(n);
  if (std::optional<bool> k = known(p.children[0])) return value(p.children[*k ? 1 : 2]);
  // Both arms one value (extraction may choose so): no `if` to make, so
  // none that a loop's value in the condition's branches would need again.
  if (p.children[1] == p.children[2]) return value(p.children[1]);
  if (const std::optional<std::uint32_t> sigma = effect_phi(n)) {
    produce(*sigma, n);
    if (ir::ExprPtr v = lookup(n)) return v;
  }
  // A condition that is a φ made with a σ φ (`c = g || f() > 0` where the
  // call is made only when g fails): computed first, with its σ φ, so that
  // this φ branches on a value instead of splitting on g (whose branches
  // would make the call without its σ φ).
  if (const std::uint32_t cond = p.children[0];
      node(cond).kind() == Kind::Phi && !lookup(cond) && effect_phi(cond))
    value(cond);
  // Where taking a branch would make effects a value φ's branch may not,
  // the condition may still follow from what is known (`implied`), asked
  // once:
  // - an arm that reads a call neither the condition nor the bundle's
  //   certain work makes first (at a loop's `break` exit, the value it
  //   would have returned is a φ on `returned`, false there, whose arm
  //   reads the call only the return makes; a loop's σ is left to the
  //   group, which runs such loops where it can);
  // - an arm that reads memory this code cannot reach (a σ made only where
  //   the condition is known to choose the other arm);
  // - a condition that reads such a call (at the exit by either of two
  //   `break`s, `returned` itself reads the call only the return's test
  //   makes);
  // - an arm that would run a loop not made yet, whose exits compute all
  //   its values and effects (`returned` as φ(went on, a value of an inner
  //   loop whose return makes a call, false)), or a condition that would
  //   (at a `break`'s exit, `returned` tests a value of an inner loop).
  const auto call_not_certain = [&](std::uint32_t s) {
    if (node(s).kind() != Kind::ProjState) return false;
    if (bundles_.empty()) return true;
    const NodeSet& must_now = bundles_.back().must;
    return !std::binary_search(must_now.begin(), must_now.end(), s) || overwritten(s);
  };
  const NodeSet cond_reads = unmade_reads(p.children[0]);
  const auto off_the_way = [&](std::uint32_t s) {
    const bool read_by_cond = std::binary_search(cond_reads.begin(), cond_reads.end(), s);
    return (!read_by_cond && call_not_certain(s)) || !can_reach(s);
  };
  const auto arm_off_the_way = [&](int side) {
    const NodeSet unmade = unmade_reads(p.children[side]);
    return std::any_of(unmade.begin(), unmade.end(), off_the_way);
  };
  const auto runs_inner_loop = [&](int child) {
    const std::uint32_t operand = p.children[child];
    return may_run_inner_loop(std::span(&operand, 1), depth_);
  };
  if (arm_off_the_way(1) || arm_off_the_way(2) ||
      std::any_of(cond_reads.begin(), cond_reads.end(), call_not_certain) || runs_inner_loop(0) ||
      runs_inner_loop(1) || runs_inner_loop(2))
    if (const std::optional<bool> k = implied(p.children[0])) return value(p.children[*k ? 1 : 2]);
  std::vector<std::uint32_t> members{n};
  for (std::uint32_t m : fusable_phis(p.children[0], n, {})) members.push_back(m);
  phi_group(p.children[0], std::move(members), std::nullopt);
  if (ir::ExprPtr v = lookup(n)) return v;
  fail(n, "a φ that was not emitted");
}

namespace {
constexpr int kSides[] = {1, 2};  // a φ's arms, as child indices
}  // namespace

std::optional<std::uint32_t> Emitter::effect_phi(std::uint32_t n) {
  const PegNode& p = node(n);
  const auto on_cond = state_phis_.find(p.children[0]);
  if (on_cond == state_phis_.end()) return std::nullopt;
  {
    NodeSetMemoHandle memo = node_set_memo();
    // A side reads memory a call leaves, or a σ that a σ φ on the same
    // condition makes on that side (a loop with effects in the branch,
    // perhaps followed by other effects).
    const auto moves_memory = [&](int side) {
      NodeSet unmade;
      for (std::uint32_t s : lazy_reads(p.children[side], *memo)) {
        if (s == kNoBlame || reached(s)) continue;
        if (node(s).kind() == Kind::ProjState) return true;
        unmade.push_back(s);
      }
      if (unmade.empty()) return false;
      // What the σ φs on this condition make on this side, each asked once.
      NodeSet made;
      for (std::uint32_t sigma : on_cond->second) {
        const std::uint32_t arm = node(sigma).children[side];
        unite_into(made, states_towards(arm));
        unite_into(made, NodeSet{arm});
      }
      return std::any_of(unmade.begin(), unmade.end(), [&](std::uint32_t s) {
        return std::binary_search(made.begin(), made.end(), s);
      });
    };
    if (!moves_memory(1) && !moves_memory(2)) return std::nullopt;
  }
  for (std::uint32_t sigma : on_cond->second) {
    if (reached(sigma)) continue;
    if (!certainly_reached(sigma)) continue;
    const std::optional<std::uint32_t> in = input_of(sigma);
    if (in && memory_at(resolve(*in))) return sigma;
  }
  // A σ φ not certainly reached, but whose every side makes only calls
  // whose values this φ's side reads (`if (a) t = 1; else t = f();` where
  // later σ φs join from the call's σ): this φ's evaluation makes them
  // anyway. Not a loop's σ: a loop value read is no sign that the loop's
  // effects happen here (its value may be computed ahead of its `if`).
  NodeSetMemoHandle memo = node_set_memo();
  for (std::uint32_t sigma : on_cond->second) {
    if (reached(sigma)) continue;
    spend(1);
    const std::optional<std::uint32_t> in = input_of(sigma);
    if (!in || !memory_at(resolve(*in))) continue;
    const bool within = std::all_of(std::begin(kSides), std::end(kSides), [&](int side) {
      const NodeSet& reads = lazy_reads(p.children[side], *memo);
      const NodeSet makes = states_towards(node(sigma).children[side]);
      return std::all_of(makes.begin(), makes.end(),
                         [&](std::uint32_t s) { return node(s).kind() == Kind::ProjState; }) &&
             std::includes(reads.begin(), reads.end(), makes.begin(), makes.end());
    });
    if (within) return sigma;
  }
  return std::nullopt;
}

std::optional<Emitter::TestSite> Emitter::phi_making_test_reads(std::uint32_t guard, bool holds,
                                                                std::uint32_t test) {
  if (bundles_.empty() || known(guard) || splits(guard)) return std::nullopt;
  const NodeSet needs = unmade_reads(test);
  if (needs.empty()) {
    const std::optional<std::uint32_t> sigma = decided_phi_going_on_reads(guard);
    if (!sigma) return std::nullopt;
    return TestSite{*sigma, guard, holds, true};
  }
  // (`certainly`: on every way the known conditions leave open.)
  const auto makes_needs = [&](std::uint32_t arm, bool certainly = false) {
    NodeSet side;
    if (certainly) {
      // (The arm itself too: a σ φ the test reads.)
      const std::uint32_t decided = resolve_by_cases(arm);
      side = unite(certain_states_towards(decided), NodeSet{decided});
    } else {
      side = states_towards(arm);
    }
    return std::includes(side.begin(), side.end(), needs.begin(), needs.end());
  };
  const NodeSet& going_on = bundles_.back().going_on;
  // Going on certainly makes it, or a σ φ going on follows it arm by arm
  // (`if (g) loop; if (g && b) { p[3] = 0; continue; }`: the loop's `if`
  // is made on every way on): reached itself. Or a σ φ going on makes it
  // where the guard holds (`if (g) t = f(); else if (b) continue; else
  // p[0] = 1;`, the test reading the call): that σ φ is reached instead.
  const auto way_to_make = [&](std::uint32_t sigma) -> std::optional<std::uint32_t> {
    if (std::binary_search(going_on.begin(), going_on.end(), sigma)) return sigma;
    std::optional<std::uint32_t> via;
    for (std::uint32_t s : going_on) {
      const PegNode& q = node(s);
      if (s == sigma || q.kind() != Kind::Phi || !q.type().is_state() || reached(s)) continue;
      spend(1);
      if (follows_arm_by_arm(s, sigma)) return sigma;
      if (!via) {
        ir::Block none;
        in_scope(none, [&] {
          know(guard, holds);
          if (resolve_by_cases(s) == resolve_by_cases(sigma)) via = s;
        });
      }
    }
    return via;
  };
  if (const auto on_guard = state_phis_.find(guard); on_guard != state_phis_.end()) {
    for (std::uint32_t sigma : on_guard->second) {
      // Going on makes it, and so its input (the effects both its sides
      // start from, made before its `if`).
      if (reached(sigma) || !makes_needs(node(sigma).children[holds ? 1 : 2])) continue;
      const std::optional<std::uint32_t> made = way_to_make(sigma);
      if (!made || !can_reach(*made)) continue;
      return TestSite{sigma, guard, holds, false, made != sigma ? made : std::nullopt};
    }
  }
  // A σ φ on another condition, whose `if` first branches on a condition b
  // that the guard decides: on b's side, every way on makes what the test
  // reads (where the guard holds and the test fails, and where the guard
  // does not hold), and every way out has made it (the test read it). So
  // the test can be made there, after those effects. b is the guard itself
  // when the σ φ's condition splits on it (`c = !a && g && !t`, with a
  // known false here and t the test), or a condition the guard implies
  // (the σ φ makes a call where b fails, and the guard is `!b && h`).
  for (std::uint32_t sigma : going_on) {
    const PegNode& s = node(sigma);
    if (s.kind() != Kind::Phi || !s.type().is_state() || s.children[0] == guard || reached(sigma))
      continue;
    spend(1);
    std::optional<std::uint32_t> first = first_branch(s.children[0]);
    // (Past a first branch on the σ φ's condition's own condition that the
    // known conditions imply: the side phi_into() takes there branches next.)
    if (const PegNode& c = node(s.children[0]);
        first && c.kind() == Kind::Phi && c.children[0] == *first)
      if (const std::optional<bool> k = implied(*first))
        first = first_branch(c.children[*k ? 1 : 2]);
    if (!first) continue;
    // (By cases too: the guard may be a part of the σ φ's condition's
    // negation, `!b && !t && !g` against `b || g`.)
    const auto known_or_implied = [&](std::uint32_t c) {
      const std::optional<bool> k = known(c);
      return k ? k : implied(c);
    };
    // What the side the known conditions take makes; either side where they
    // leave the σ φ's condition open (`if (g) { loop; if (b) p[3] = 0; else
    // continue; if (t) break; }`: both make the loop).
    const auto taken_side_makes_needs = [&] {
      const std::optional<bool> k = known_or_implied(s.children[0]);
      return k ? makes_needs(s.children[*k ? 1 : 2], true)
               : makes_needs(s.children[1], true) && makes_needs(s.children[2], true);
    };
    const auto site_on = [&](std::uint32_t branch) -> std::optional<TestSite> {
      std::optional<bool> side;
      bool made = false;
      ir::Block none;
      in_scope(none, [&] {
        know(guard, holds);
        side = known_or_implied(branch);
        know(test, false);
        made = side && taken_side_makes_needs();
      });
      if (!made) return std::nullopt;
      if (branch != guard) {
        in_scope(none, [&] {
          know(branch, *side);
          // (Nothing to ask where the guard cannot fail on that side.)
          if (known_or_implied(guard) == holds) return;
          know(guard, !holds);
          made = taken_side_makes_needs();
        });
        if (!made) return std::nullopt;
      }
      if (!can_reach(sigma)) return std::nullopt;
      return TestSite{sigma, branch, *side};
    };
    // A σ φ phi_into() makes by branching on its condition's own condition
    // first (splits_on_arm): there, or, the test waiting in the `if` on the
    // whole condition, there (phi_into then does not split).
    if (*first == s.children[0] && splits_on_arm(sigma, *first))
      if (std::optional<TestSite> site = site_on(node(*first).children[0])) return site;
    if (std::optional<TestSite> site = site_on(*first)) return site;
  }
  return std::nullopt;
}

std::optional<Emitter::TestSite> Emitter::phi_deciding_test(std::uint32_t test) {
  if (bundles_.empty()) return std::nullopt;
  const NodeSet needs = unmade_reads(test);
  if (needs.empty()) return std::nullopt;
  for (std::uint32_t sigma : bundles_.back().going_on) {
    const PegNode& s = node(sigma);
    if (s.kind() != Kind::Phi || !s.type().is_state() || reached(sigma)) continue;
    const std::uint32_t cond = s.children[0];
    if (known(cond) || splits(cond)) continue;
    spend(1);
    for (const bool side : {true, false}) {
      std::optional<bool> elsewhere;
      ir::Block none;
      in_scope(none, [&] {
        know(cond, !side);
        elsewhere = known(test);
      });
      if (elsewhere != false) continue;
      const NodeSet makes = states_towards(s.children[side ? 1 : 2]);
      if (std::includes(makes.begin(), makes.end(), needs.begin(), needs.end()) && can_reach(sigma))
        return TestSite{sigma, cond, side};
    }
  }
  return std::nullopt;
}

std::optional<std::uint32_t> Emitter::decided_phi_going_on_reads(std::uint32_t guard) {
  if (bundles_.empty() || known(guard) || splits(guard)) return std::nullopt;
  const auto on_guard = state_phis_.find(guard);
  if (on_guard == state_phis_.end()) return std::nullopt;
  const Bundle& b = bundles_.back();
  NodeSetMemoHandle memo = node_set_memo();
  for (std::uint32_t sigma : on_guard->second) {
    if (reached(sigma) ||
        !std::binary_search(b.decided_by_leaving.begin(), b.decided_by_leaving.end(), sigma))
      continue;
    const NodeSet inside =
        unite(states_towards(node(sigma).children[1]), states_towards(node(sigma).children[2]));
    for (std::uint32_t m : b.going_on) {
      spend(1);
      const PegNode& q = node(m);
      if (q.kind() != Kind::Phi || q.children[0] != guard || !q.type().is_ir() || lookup(m) ||
          std::binary_search(b.must.begin(), b.must.end(), m))
        continue;
      const NodeSet& r = lazy_reads(m, *memo);
      const bool reads_inside = std::any_of(r.begin(), r.end(), [&](std::uint32_t s) {
        return std::binary_search(inside.begin(), inside.end(), s);
      });
      if (reads_inside && can_reach(sigma)) return sigma;
    }
  }
  return std::nullopt;
}

NodeSet Emitter::unmade_reads(std::uint32_t n) {
  NodeSet out;
  NodeSetMemoHandle memo = node_set_memo();
  for (std::uint32_t s : lazy_reads(n, *memo))
    if (s != kNoBlame && !reached(s)) out.push_back(s);
  return out;
}

std::optional<std::uint32_t> Emitter::first_branch(std::uint32_t cond) {
  // phi_into()'s choice, without emitting: through conditions that split
  // on a known condition of their own, to the `if` it makes.
  for (std::size_t steps = 0; steps < g_.nodes.size(); ++steps) {
    spend(1);
    if (known(cond)) return std::nullopt;
    if (!splits(cond)) return cond;
    const std::uint32_t test = node(cond).children[0];
    if (const std::optional<bool> k = known(test)) {
      cond = node(cond).children[*k ? 1 : 2];
      continue;
    }
    if (splits(test) && !known(node(test).children[0])) return node(test).children[0];
    return test;
  }
  return std::nullopt;
}

bool Emitter::splits_on_arm(std::uint32_t state, std::uint32_t cond) const {
  const PegNode& c = node(cond);
  // (Not where an exit test waits for a branch of this `if` on another
  // condition.)
  if (c.kind() != Kind::Phi || (test_in_branch_ && test_in_branch_->state == state &&
                                test_in_branch_->branch != c.children[0]))
    return false;
  // (Past the effects that arm makes first: `if (h) { loop; if (x)
  // continue; } p[i] = 5;` leaves φ(h && x, the loop's σ, a store on φ(h,
  // the loop's σ, σ)).)
  const auto goes_on_from_phi_on_h = [&](std::uint32_t s) {
    for (std::size_t steps = 0; steps < kEffectsBeforePhi && !reached(s); ++steps) {
      if (is_phi_on(s, c.children[0])) return true;
      const PegNode& e = node(s);
      if (e.kind() == Kind::Phi && e.children[1] == e.children[2])
        s = e.children[1];
      else if (const std::optional<std::uint32_t> in = effect_input(s))
        s = *in;
      else
        return false;
    }
    return false;
  };
  return std::ranges::any_of(taken_by_constant_arms(cond), [&](int child) {
    return child != 0 && goes_on_from_phi_on_h(node(state).children[child]);
  });
}

bool Emitter::shares_memory_past_split(std::uint32_t state, std::uint32_t cond) {
  const PegNode& c = node(cond);
  const bool holds = node(c.children[1]).kind() != Kind::Const;
  std::optional<std::uint32_t> common;
  ir::Block none;
  in_scope(none, [&] {
    know(c.children[0], holds);
    common = latest_common_state(node(state).children[1], node(state).children[2]);
  });
  return common.has_value();
}

std::array<int, 2> Emitter::taken_by_constant_arms(std::uint32_t cond) const {
  std::array<int, 2> out{};
  for (int side : {1, 2})
    if (const PegNode& k = node(node(cond).children[side]); k.kind() == Kind::Const)
      out[side - 1] = k.label.payload != 0 ? 1 : 2;
  return out;
}

bool Emitter::is_phi_on(std::uint32_t n, std::uint32_t cond) const {
  return node(n).kind() == Kind::Phi && node(n).children[0] == cond;
}

bool Emitter::splits_values_on_arm(std::uint32_t cond, const std::vector<std::uint32_t>& members) {
  const PegNode& c = node(cond);
  if (c.kind() != Kind::Phi || known(c.children[0])) return false;
  return std::ranges::any_of(taken_by_constant_arms(cond), [&](int child) {
    return child != 0 && std::ranges::any_of(members, [&](std::uint32_t m) {
             return is_phi_on(node(m).children[child], c.children[0]) &&
                    may_run_inner_loop(std::span(&m, 1), depth_);
           });
  });
}

void Emitter::test_pending_in(std::optional<std::uint32_t> state, std::uint32_t branch_on,
                              int side) {
  if (!test_in_branch_ || state != test_in_branch_->state || branch_on != test_in_branch_->branch ||
      side != (test_in_branch_->side ? 0 : 1))
    return;
  const TestInBranch pending = std::move(*test_in_branch_);
  test_in_branch_.reset();
  pending.test();
}

bool Emitter::certainly_reached(std::uint32_t state) {
  if (bundles_.empty()) return true;
  const Bundle& b = bundles_.back();
  if (std::binary_search(b.must.begin(), b.must.end(), state)) return true;
  if (!b.roots_certain) return false;
  const NodeSet now = must(b.roots);
  return std::binary_search(now.begin(), now.end(), state);
}

bool Emitter::splits(std::uint32_t cond) const {
  const PegNode& c = node(cond);
  if (c.kind() != Kind::Phi || known(cond)) return false;
  NodeSetMemoHandle memo = node_set_memo();
  const NodeSet& r = lazy_reads(cond, *memo);
  return std::any_of(r.begin(), r.end(), [&](std::uint32_t s) { return s != cur_; });
}

void Emitter::phi_group(std::uint32_t cond, std::vector<std::uint32_t> members,
                        std::optional<std::uint32_t> state) {
  run_must_loops(members);
  if (state || splits(cond) || splits_values_on_arm(cond, members)) {
    compute_common(members, state);
    std::vector<ir::VarId> vars;
    for (std::uint32_t m : members) {
      vars.push_back(new_var(node(m).type().ir(), 't'));
      emit(ir::Stmt::decl(vars.back()));
    }
    phi_into(cond, members, state, vars);
    for (std::size_t i = 0; i < members.size(); ++i) cache(members[i], read(vars[i]));
    if (state) {
      cur_ = *state;
      mark_reached(*state);
    }
    return;
  }
  // Value φs only: `?:` when neither branch needs a statement. A σ the
  // branches read that is certainly reached anyway is reached first.
  // The members are computed together below: reading memory first must not
  // compute one of them on its own.
  const std::vector<std::uint32_t> group = members;
  for (std::uint32_t m : group) ++in_group_[m];
  const ir::ExprPtr c = value(cond);
  compute_common(members);
  if (!bundles_.empty()) {
    // What each side reads where the condition chooses it (a φ on the same
    // condition in an arm reads only its own arm there).
    NodeSet needs;
    const std::size_t hoisted = hoisted_.size();
    for (int side = 0; side < 2; ++side) {
      NodeSetMemoHandle memo = node_set_memo();
      ir::Block none;
      in_scope(none, [&] {
        know(cond, side == 0);
        for (std::uint32_t m : members)
          unite_into(needs, lazy_reads(node(m).children[1 + side], *memo));
      });
    }
    hoisted_.resize(hoisted);
    // (Not one memory has moved past: a load there may read past the stores
    // since, to other indices, or fail itself.)
    const NodeSet& must_now = bundles_.back().must;
    for (std::uint32_t s : needs)
      if (s != kNoBlame && s != cur_ && !reached(s) && !overwritten(s) &&
          std::binary_search(must_now.begin(), must_now.end(), s) && can_reach(s))
        reach(s);
  }
  flush_readers();
  for (std::uint32_t m : group) --in_group_[m];
  // Computing the condition and what the branches share may still have
  // emitted a member (a φ of the same condition that some shared value
  // needs): it is not emitted again.
  std::erase_if(members, [&](std::uint32_t m) { return lookup(m) != nullptr; });
  if (members.empty()) return;
  const std::uint32_t start = cur_;
  std::vector<ir::ExprPtr> values[2];
  ir::Block blocks[2];
  for (int side = 0; side < 2; ++side) {
    std::vector<std::uint32_t> roots;
    for (std::uint32_t m : members) roots.push_back(node(m).children[1 + side]);
    in_branch(blocks[side], cond, side == 0, [&] { values[side] = bundle(roots); });
    if (cur_ != start) fail(members.front(), "a value φ whose branch has effects");
  }
  if (blocks[0].empty() && blocks[1].empty()) {
    for (std::size_t i = 0; i < members.size(); ++i) {
      ir::ExprPtr e = select_expr(c, values[0][i], values[1][i]);
      if (i > 0 || uses_[members[i]] > 1) e = temp(std::move(e));
      cache(members[i], std::move(e));
    }
    return;
  }
  std::vector<ir::VarId> vars;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const ir::VarId v = new_var(node(members[i]).type().ir(), 't');
    emit(ir::Stmt::decl(v));
    blocks[0].push_back(ir::Stmt::assign(v, values[0][i]));
    blocks[1].push_back(ir::Stmt::assign(v, values[1][i]));
    vars.push_back(v);
  }
  emit(ir::Stmt::if_(c, std::move(blocks[0]), std::move(blocks[1])));
  for (std::size_t i = 0; i < members.size(); ++i) cache(members[i], read(vars[i]));
}

void Emitter::phi_into(std::uint32_t cond, const std::vector<std::uint32_t>& members,
                       std::optional<std::uint32_t> state, const std::vector<ir::VarId>& vars) {
  const auto take = [&](int side) {
    test_pending_in(state, cond, side);
    std::vector<std::uint32_t> roots;
    for (std::uint32_t m : members) roots.push_back(node(m).children[1 + side]);
    if (state) roots.push_back(node(*state).children[1 + side]);
    // A member's arm may read memory past the σ the branch ends at (a value
    // φ on the same condition whose other arm loads after a store the
    // branch does not make): bundle() fails rather than make that store.
    const std::vector<ir::ExprPtr> values = bundle(roots);
    for (std::size_t i = 0; i < members.size(); ++i) emit(ir::Stmt::assign(vars[i], values[i]));
  };
  if (std::optional<bool> k = known(cond)) {
    take(*k ? 0 : 1);
    return;
  }
  // A φ condition whose own condition is known here, taken as the arm it
  // selects where that arm splits on its own condition (below): in an
  // iteration, whose exit test is known false, φ(exit, false, g) is g. (Not
  // while an exit test waits in the branch of an `if` to be made: splitting
  // on g's condition may decide that `if` away.)
  if (const std::uint32_t arm = decided(cond); arm != cond && state && !test_in_branch_ &&
                                               !splits(cond) && splits_on_arm(*state, arm) &&
                                               shares_memory_past_split(*state, arm)) {
    phi_into(arm, members, state, vars);
    return;
  }
  // A condition that is itself a φ and needs effects to be computed: branch
  // on its own condition first (Tate, §8.10), then on what it selects. So
  // for a σ φ on φ(h, x, k), k a constant, whose arm k takes is a σ φ on h
  // too (`if (h) { loop; if (x) { f(); continue; } }` leaves φ(h && x, f()
  // after the loop, φ(h, after the loop, before))): where h fails, that arm
  // is decided; where it holds, both arms start from the loop, made once.
  const bool splits_cond = splits(cond);
  const bool split_on_arm =
      !splits_cond && (state ? splits_on_arm(*state, cond) : splits_values_on_arm(cond, members));
  const bool split = split_on_arm || splits_cond;
  const std::uint32_t test = split ? node(cond).children[0] : cond;
  // A φ condition whose own condition is known here (a branch of an
  // enclosing split decides it): only the side it selects.
  if (std::optional<bool> k = split ? known(test) : std::nullopt) {
    phi_into(node(cond).children[*k ? 1 : 2], members, state, vars);
    return;
  }
  // A test that needs effects itself, a φ whose condition is not known here
  // (`if (f() > b) { if (p[g()] == 0) { if (h() < 5) return 1; } ... }`:
  // whether the first return was taken, a φ on the load, reads h()): on
  // that condition first; in each branch the test is one of its arms.
  // So is a test that is a φ(h2, y, k) itself whose arm k takes of the σ φ
  // goes on from a σ φ on h2 (splits_on_arm): where h2 holds, the memory
  // both arms go through is made first, then the split on the test.
  const bool test_split_on_arm = split && state && !splits(test) && splits_on_arm(*state, test) &&
                                 !known(node(test).children[0]);
  const bool split_test =
      (split && state && splits(test) && !known(node(test).children[0])) || test_split_on_arm;
  const std::uint32_t branch_on = split_test ? node(test).children[0] : test;
  // Effects the condition reads that both sides of the σ φ make first
  // (`if (a) { t = f(); if (t > 0 || b) p[0] = 1; }`: in the split on a,
  // the call before its value decides the store).
  // So is a σ φ both sides make first whose branch makes such an effect
  // (`if (a) { log(); if (b) x = tick(); if (x > 7) return 5 / x; }`: in
  // the split on a, the `if (b)` before the test on x).
  if (state) {
    const NodeSet needs = unmade_reads(branch_on);
    if (!needs.empty()) {
      NodeSet phis[2];
      const NodeSet a = certain_states_towards(node(*state).children[1], &phis[0]);
      const NodeSet b = certain_states_towards(node(*state).children[2], &phis[1]);
      const NodeSet both_phis = intersect(phis[0], phis[1]);
      // What each of those φs goes through, found when first asked.
      std::vector<std::optional<NodeSet>> through(both_phis.size());
      for (std::uint32_t s : needs) {
        if (reached(s)) continue;
        if (std::binary_search(a.begin(), a.end(), s) &&
            std::binary_search(b.begin(), b.end(), s)) {
          if (can_reach(s)) reach(s);
          continue;
        }
        for (std::size_t i = 0; i < both_phis.size(); ++i) {
          const std::uint32_t c = both_phis[i];
          if (reached(c)) continue;
          if (!through[i]) through[i] = states_towards(c);
          if (std::binary_search(through[i]->begin(), through[i]->end(), s) && can_reach(c)) {
            reach(c);
            break;
          }
        }
      }
    }
  }
  const ir::ExprPtr t = value(branch_on);
  flush_readers(cond);  // the members are emitted below, in the branches
  const std::uint32_t start = cur_;
  ir::Block blocks[2];
  for (int side = 0; side < 2; ++side) {
    cur_ = start;
    in_branch(blocks[side], branch_on, side == 0, [&] {
      test_pending_in(state, branch_on, side);
      // Where h holds, the memory both arms go through is made once, first.
      const auto reach_common = [&] {
        if (const std::optional<std::uint32_t> common =
                latest_common_state(node(*state).children[1], node(*state).children[2]);
            common && can_reach(*common))
          reach(*common);
      };
      if (split_test) {
        if (test_split_on_arm) reach_common();
        phi_into(cond, members, state, vars);
      } else if (split) {
        if (split_on_arm && state) reach_common();
        // Where h holds, the values both arms read too.
        if (split_on_arm && !state) compute_common(members);
        phi_into(node(cond).children[1 + side], members, state, vars);
      } else {
        take(side);
      }
    });
    if (!state && cur_ != start) fail(members.front(), "a value φ whose branch has effects");
  }
  cur_ = start;
  emit(ir::Stmt::if_(t, std::move(blocks[0]), std::move(blocks[1])));
}

void Emitter::run_must_loops(const std::vector<std::uint32_t>& members) {
  if (bundles_.empty()) return;
  const NodeSet must_now = bundles_.back().must;
  // Asked only once a loop is a candidate: most groups have none.
  std::optional<std::vector<std::uint32_t>> members_with_loops;
  // Passes held back: nothing is emitted for them, so the answer holds for
  // each of their evals.
  std::vector<std::uint32_t> held_back;
  for (std::uint32_t n : must_now) {
    const PegNode& p = node(n);
    if (p.kind() != Kind::Eval || !p.type().is_ir() || lookup(n) || invariant_eval(n) ||
        in_progress_.contains(n) || g_.depth(p.children[1]) > depth_ || !reads_only_current(n))
      continue;
    const std::uint32_t pass = p.children[1];
    // Nor one that starts from memory yet to come (its values read memory
    // through its σ θ, which lazy_reads does not see).
    if (const std::optional<std::uint32_t> start = start_state_of(pass);
        start && !memory_at(*start) && !reached(*start))
      continue;
    if (std::ranges::find(held_back, pass) != held_back.end()) continue;
    if (!members_with_loops) {
      members_with_loops.emplace();
      for (std::uint32_t m : members)
        if (may_run_inner_loop(std::span(&m, 1), depth_)) members_with_loops->push_back(m);
    }
    // The loop's exits compute its other values too.
    if (!members_with_loops->empty() && computes_any_of(evals_of_.at(pass), *members_with_loops)) {
      held_back.push_back(pass);
      continue;
    }
    materialize(n);
  }
}

bool Emitter::computes_any_of(std::span<const std::uint32_t> roots,
                              std::span<const std::uint32_t> members) {
  Marks seen = marks();
  std::vector<std::uint32_t> todo(roots.begin(), roots.end());
  for (std::size_t walked = 0; walked < kMayRunWalk && !todo.empty(); ++walked) {
    spend(1);
    const std::uint32_t x = todo.back();
    todo.pop_back();
    if (std::ranges::find(members, x) != members.end()) return true;
    for (std::uint32_t c : node(x).children)
      if (!lookup(c) && seen.insert(c)) todo.push_back(c);
  }
  return false;
}

void Emitter::compute_common(const std::vector<std::uint32_t>& members,
                             std::optional<std::uint32_t> state) {
  // What a side certainly evaluates, shallowly: through pure operators and
  // φ conditions, not into φ branches or anything else (a cheap MustEval:
  // each φ of a chain looks at its own operands only), and for a loop it
  // evaluates, the loop (its pass) and what it starts from (a value both
  // sides start their loops from, itself a loop's: that loop was emitted in
  // each branch). What both evaluate and reads no memory is computed here:
  // values used twice, and the loops both run (with the values each needs).
  const auto evaluated = [&](int side) {
    NodeSet out;
    std::vector<std::uint32_t> todo, in_loop;
    for (std::uint32_t m : members) todo.push_back(node(m).children[1 + side]);
    Marks in_out = marks();
    Marks seen_in_loop = marks();
    // With a σ φ, the operands of the effects its side certainly makes, back
    // to memory reached here, and the condition of a σ φ within it (not its
    // branches).
    if (state) {
      std::uint32_t n = node(*state).children[1 + side];
      for (std::size_t walked = 0; walked < kMayRunWalk && !reached(n); ++walked) {
        spend(1);
        const PegNode& q = node(n);
        if (q.kind() == Kind::Phi) {
          todo.push_back(q.children[0]);
          break;
        }
        std::optional<std::uint32_t> before;
        for (std::uint32_t c : q.children) {
          if (node(c).type().is_ir()) {
            todo.push_back(c);
          } else if (before) {
            before.reset();
            break;
          } else {
            before = c;
          }
        }
        if (!before) break;
        n = *before;
      }
    }
    while (!todo.empty()) {
      const std::uint32_t n = todo.back();
      todo.pop_back();
      if (lookup(n) || in_out.contains(n)) continue;
      spend(1);
      in_out.insert(n);
      out.push_back(n);
      const PegNode& q = node(n);
      if (q.kind() == Kind::Phi) {
        // (A φ whose condition is known here is its arm.)
        if (const std::uint32_t d = decided(n); d != n) todo.push_back(d);
        todo.push_back(q.children[0]);
      } else if (is_pure_value_op(q.kind())) {
        for (std::uint32_t c : q.children) todo.push_back(c);
      } else if (q.kind() == Kind::Load || q.kind() == Kind::CallRead) {
        // A read evaluates its operands (a loop's value in an index).
        for (std::uint32_t c : q.children)
          if (node(c).type().is_ir()) todo.push_back(c);
      } else if (q.kind() == Kind::Eval && q.type().is_ir()) {
        if (in_out.insert(q.children[1])) out.push_back(q.children[1]);  // the loop
        const unsigned l = q.loop();
        in_loop.assign(1, q.children[0]);
        while (!in_loop.empty()) {
          const std::uint32_t x = in_loop.back();
          in_loop.pop_back();
          if (!seen_in_loop.insert(x) || lookup(x)) continue;
          spend(1);
          const PegNode& r = node(x);
          if (g_.depth(x) < l) {
            todo.push_back(x);
          } else if (r.kind() == Kind::Theta && r.loop() == l) {
            todo.push_back(r.children[0]);
          } else if (r.kind() == Kind::Phi) {
            in_loop.push_back(r.children[0]);
          } else if (is_pure_value_op(r.kind())) {
            for (std::uint32_t c : r.children) in_loop.push_back(c);
          }
        }
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const NodeSet sides[2] = {evaluated(0), evaluated(1)};
  const auto is_read = [](Kind k) { return k == Kind::Load || k == Kind::CallRead; };
  // A walk of kMayRunWalk nodes at most from the members' arms on `sides`
  // (0: the first), through φs and pure operators (with `reads`, into the
  // operands of reads of memory too), past what is computed; `visit(n)`
  // says whether to go on below n.
  const auto walk_arms = [&](std::initializer_list<int> sides, bool reads, auto&& visit) {
    std::vector<std::uint32_t> todo;
    for (std::uint32_t m : members)
      for (int side : sides) todo.push_back(node(m).children[1 + side]);
    Marks seen = marks();
    for (std::size_t walked = 0; !todo.empty() && walked < kMayRunWalk;) {
      const std::uint32_t n = todo.back();
      todo.pop_back();
      const PegNode& q = node(n);
      if (lookup(n) || !q.type().is_ir() || !seen.insert(n)) continue;
      ++walked;
      spend(1);
      if (!visit(n)) continue;
      if (q.kind() == Kind::Phi || is_pure_value_op(q.kind()) || (reads && is_read(q.kind())))
        for (std::uint32_t c : q.children)
          if (node(c).type().is_ir()) todo.push_back(c);
    }
  };
  const NodeSet common = intersect(sides[0], sides[1]);
  NodeSetMemoHandle memo = node_set_memo();
  // The loops a side may run, into the branches of φs too (kMayRunWalk
  // nodes at most), that are defined here: computing one ahead of need
  // cannot trap or hang where the source does not. A φ stands for a loop
  // not defined here (phi_loops: the φ and the loop's pass).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> phi_loops;
  const auto may_run = [&](int side) {
    NodeSet out;
    std::vector<std::uint32_t> todo;
    for (std::uint32_t m : members) todo.push_back(node(m).children[1 + side]);
    Marks seen = marks();
    std::size_t walked = 0;
    // With a σ φ, the values its side's effects take (operands, conditions
    // of σ φs within), back to memory reached here.
    if (state) {
      std::vector<std::uint32_t> effects{node(*state).children[1 + side]};
      while (!effects.empty() && walked < kMayRunWalk) {
        const std::uint32_t n = effects.back();
        effects.pop_back();
        if (reached(n) || !seen.insert(n)) continue;
        ++walked;
        spend(1);
        for (std::uint32_t c : node(n).children)
          (node(c).type().is_ir() ? todo : effects).push_back(c);
      }
    }
    // Each node with the innermost φ above it on the walk that is defined
    // here: a loop that is not defined here, run where that φ's conditions
    // hold, runs once if the φ is computed ahead.
    constexpr std::uint32_t kNoPhi = ~std::uint32_t{0};
    std::vector<std::pair<std::uint32_t, std::uint32_t>> walk;
    for (std::uint32_t n : todo) walk.emplace_back(n, kNoPhi);
    while (!walk.empty() && walked < kMayRunWalk) {
      const auto [n, defined_phi] = walk.back();
      walk.pop_back();
      if (!leads_to_loop_[n] || lookup(n) || !seen.insert(n)) continue;
      ++walked;
      spend(1);
      const PegNode& q = node(n);
      if (q.kind() != Kind::Eval) {
        const bool phi_here = q.kind() == Kind::Phi && g_.depth(n) <= depth_ && defined(n);
        for (std::uint32_t c : q.children) walk.emplace_back(c, phi_here ? n : defined_phi);
      } else if (g_.depth(n) <= depth_ && !invariant_eval(n)) {
        if (defined(n)) {
          out.push_back(n);
        } else if (defined_phi != kNoPhi) {
          out.push_back(defined_phi);
          phi_loops.emplace_back(defined_phi, q.children[1]);
        } else {
          // A loop run only here: the defined loops it reads.
          for (std::uint32_t c : q.children) walk.emplace_back(c, kNoPhi);
        }
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  const NodeSet runs[2] = {may_run(0), may_run(1)};
  NodeSet hoisted = intersect(runs[0], runs[1]);
  // A loop one side may run that the bundle also needs elsewhere (a later
  // φ's branch, a value after the `if`), for that value or another of its
  // own, would run in each place; so would one a φ runs whose other values
  // the bundle needs under the same conditions (another φ on them).
  if (NodeSet one_side = unite(runs[0], runs[1]); one_side.size() > hoisted.size()) {
    std::sort(phi_loops.begin(), phi_loops.end());
    const auto loops_of = [&](std::uint32_t e, auto&& each) {
      if (node(e).kind() == Kind::Eval) return each(node(e).children[1]);
      each(e);
      for (auto it = std::ranges::lower_bound(phi_loops, std::pair{e, 0u});
           it != phi_loops.end() && it->first == e; ++it)
        each(it->second);
    };
    NodeSet loops;
    for (std::uint32_t e : one_side) loops_of(e, [&](std::uint32_t l) { loops.push_back(l); });
    std::sort(loops.begin(), loops.end());
    loops.erase(std::unique(loops.begin(), loops.end()), loops.end());
    const NodeSet needed = needed_outside(members, state, loops).found;
    std::erase_if(one_side, [&](std::uint32_t e) {
      bool is_needed = false;
      loops_of(e, [&](std::uint32_t l) {
        is_needed = is_needed || std::binary_search(needed.begin(), needed.end(), l);
      });
      return !is_needed;
    });
    unite_into(hoisted, one_side);
  }
  // The loops first: a hoisted φ may run one of them in its branch, which
  // the loop's own value, hoisted too, would then run again after the `if`.
  std::stable_partition(hoisted.begin(), hoisted.end(),
                        [&](std::uint32_t e) { return node(e).kind() == Kind::Eval; });
  for (std::uint32_t e : hoisted) {
    if (lookup(e) || in_progress_.contains(e) || !reads_only_current(e)) continue;
    materialize(e);
    memo->clear();
  }
  for (std::uint32_t n : common) {
    const PegNode& q = node(n);
    if (q.kind() == Kind::Pass) {
      // A loop both sides run, for values of their own: run once, here.
      for (const NodeSet& side : sides)
        for (std::uint32_t e : side) {
          const PegNode& x = node(e);
          if (x.kind() != Kind::Eval || x.children[1] != n || lookup(e) ||
              in_progress_.contains(e) || !lazy_reads(e, *memo).empty())
            continue;
          materialize(e);
        }
      continue;
    }
    if (uses_[n] < 2 || !q.type().is_ir() || lookup(n) || in_progress_.contains(n)) continue;
    if (!is_pure_value_op(q.kind()) && q.kind() != Kind::Phi && q.kind() != Kind::Eval) continue;
    if (!lazy_reads(n, *memo).empty()) continue;
    materialize(n);
  }
  // What one side evaluates and the other may (in a φ's branch; kMayRunWalk
  // nodes at most), when the source computes it here anyway: computed once
  // here, as the source does, not in each branch that needs it (which a
  // loop's work counts twice). It may be shared through a value the source
  // computes only in some branches (a conversion of it), which is not.
  const auto may_evaluate = [&](int side) {
    NodeSet out;
    walk_arms({side}, true, [&](std::uint32_t n) {
      out.push_back(n);
      return true;
    });
    std::sort(out.begin(), out.end());
    return out;
  };
  // Only the outermost such values: their operands come with them. A read
  // of the current memory is one too: the branches would read the same.
  for (int side = 0; side < 2; ++side) {
    const NodeSet other = may_evaluate(1 - side);
    NodeSet source_computed;
    for (std::uint32_t n : sides[side]) {
      const Kind k = node(n).kind();
      if ((is_pure_value_op(k) || is_read(k)) && node(n).type().is_ir() &&
          std::binary_search(other.begin(), other.end(), n) && computed_by_source(n))
        source_computed.push_back(n);
    }
    // What their expressions hold (through selects too), of what this side
    // evaluates.
    Marks operand = marks();
    std::vector<std::uint32_t> todo;
    for (std::uint32_t n : source_computed)
      for (std::uint32_t c : node(n).children) todo.push_back(c);
    while (!todo.empty()) {
      const std::uint32_t n = todo.back();
      todo.pop_back();
      if (!std::binary_search(sides[side].begin(), sides[side].end(), n) || !operand.insert(n))
        continue;
      spend(1);
      for (std::uint32_t c : node(n).children) todo.push_back(c);
    }
    for (std::uint32_t n : source_computed) {
      if (operand.contains(n) || lookup(n) || in_progress_.contains(n)) continue;
      // Where the branches make no effects, they read the memory here, or
      // memory it moved past (a load past a store to another index); not
      // memory yet to come, which the effects before it would have to make.
      const NodeSet& reads = lazy_reads(n, *memo);
      if (std::any_of(reads.begin(), reads.end(), [&](std::uint32_t s) {
            return s != cur_ && (state || s == kNoBlame || !reached(s));
          }))
        continue;
      materialize(n);
      memo->clear();
    }
  }
  // What one side evaluates that the bundle evaluates anyway, is shared and
  // cannot trap (a pure operator or a select): computed here once, not in
  // the branch and again after it. (By index: computing a value may add
  // bundles, moving this one.)
  if (bundles_.empty()) return;
  const std::size_t innermost = bundles_.size() - 1;
  // So is such a value deeper in a side, in a φ's branch (a loop's next
  // value that a condition in one branch also reads; kMayRunWalk nodes at
  // most): computed in that branch, it would be computed again after it.
  NodeSet deeper;
  {
    const NodeSet& anyway = bundles_[innermost].must;
    walk_arms({0, 1}, false, [&](std::uint32_t n) {
      if (!std::binary_search(anyway.begin(), anyway.end(), n)) return true;
      deeper.push_back(n);
      return false;
    });
    std::sort(deeper.begin(), deeper.end());
  }
  std::unordered_map<std::uint32_t, bool> speculatable_here;
  for (const NodeSet* side : std::array<const NodeSet*, 3>{&sides[0], &sides[1], &deeper})
    for (std::uint32_t n : *side) {
      const PegNode& q = node(n);
      const NodeSet& anyway = bundles_[innermost].must;
      if (uses_[n] < 2 || !q.type().is_ir() ||
          (!is_pure_value_op(q.kind()) && q.kind() != Kind::Phi) || lookup(n) ||
          in_progress_.contains(n) || !std::binary_search(anyway.begin(), anyway.end(), n) ||
          !lazy_reads(n, *memo).empty() || !speculatable_now(n, speculatable_here))
        continue;
      materialize(n);
    }
}

Emitter::Needed Emitter::needed_outside(const std::vector<std::uint32_t>& members,
                                        std::optional<std::uint32_t> state, const NodeSet& nodes,
                                        std::size_t first_bundle) const {
  Needed out{{}, true};
  if (bundles_.empty()) return out;
  Marks seen = marks();
  // The group's branches are not looked into: only its conditions.
  Marks group = marks();
  for (std::uint32_t m : members) group.insert(m);
  if (state) group.insert(*state);
  // From the innermost bundle's roots, then the enclosing ones' (each
  // bundle's pushed only once the walk is through the one inside it): what
  // an enclosing bundle needs later under the conditions known here is
  // found in this branch's values.
  std::vector<std::uint32_t> todo;
  std::size_t unwalked_bundles = bundles_.size();
  for (std::size_t walked = 0;;) {
    while (todo.empty() && unwalked_bundles > first_bundle) {
      const std::vector<std::uint32_t>& roots = bundles_[--unwalked_bundles].roots;
      todo.assign(roots.begin(), roots.end());
    }
    if (todo.empty()) break;
    if (walked++ == kNeededWalk) {
      out.complete = false;
      break;
    }
    const std::uint32_t n = todo.back();
    todo.pop_back();
    if (!seen.insert(n) || lookup(n) || reached(n)) continue;
    spend(1);
    if (std::binary_search(nodes.begin(), nodes.end(), n)) out.found.push_back(n);
    const PegNode& p = node(n);
    if (group.contains(n)) {
      todo.push_back(p.children[0]);
      continue;
    }
    for (std::uint32_t c : p.children) todo.push_back(c);
  }
  std::sort(out.found.begin(), out.found.end());
  return out;
}

std::vector<ir::ExprPtr> Emitter::bundle(std::span<const std::uint32_t> roots) {
  bundles_.push_back(Bundle{must(roots), {roots.begin(), roots.end()}, {}, true, {}});
  std::vector<ir::ExprPtr> out(roots.size());
  for (std::uint32_t r : roots)
    if (node(r).type().is_state()) reach(r);
  for (std::size_t i = 0; i < roots.size(); ++i)
    if (!node(roots[i]).type().is_state()) out[i] = value(roots[i]);
  // A value may make an effect of its own (a call's value, made with the σ
  // φ that makes the call): past the σ the bundle ends at, that effect
  // happens where the source makes none (a loop's exit that reads a call
  // only a path not taken makes).
  for (std::uint32_t r : roots)
    if (node(r).type().is_state() && memory_of(r) != cur_)
      fail(r, "values that need effects past the σ they end at");
  bundles_.pop_back();
  return out;
}

Emitter::NodeSetMemoHandle::NodeSetMemoHandle(const Emitter& e) : pool_(e.node_set_memos_) {
  if (pool_.empty()) {
    memo_ = std::make_unique<NodeSetMemo>(e.g_.nodes.size());
  } else {
    memo_ = std::move(pool_.back());
    pool_.pop_back();
    memo_->clear();
  }
}

const NodeSet& Emitter::lazy_reads(std::uint32_t n, NodeSetMemo& memo) const {
  static const NodeSet kNothing;
  static const NodeSet kBlocked = {kNoBlame};
  if (lookup(n)) return kNothing;
  // Cannot be computed yet, or is being computed with its φ group.
  if (in_progress_.contains(n) || in_group_[n] > 0) return kBlocked;
  // A slot stays where it is while the recursion below fills others. It
  // stays empty until the end: a cycle (through θ) adds nothing.
  const auto [slot, known] = memo.slot(n);
  if (known) return slot;
  spend(1);
  const PegNode& p = node(n);
  NodeSet out;
  const auto add = [&](const NodeSet& c) { unite_into(out, c); };
  const auto done = [&]() -> const NodeSet& {
    slot = std::move(out);
    return slot;
  };
  // A call's value and an effectful loop's values come with their effect:
  // computing them moves memory to that effect's σ.
  if (p.kind() == Kind::ProjValue) {
    if (auto state = state_of_tuple_.find(p.children[0]);
        state != state_of_tuple_.end() && !lookup(p.children[0]))
      out.push_back(state->second);
    return done();
  }
  if (p.kind() == Kind::Eval && !invariant_eval(n)) {
    const std::vector<std::uint32_t>& evals = evals_of_.at(p.children[1]);
    // Source loops merged for their equal bounds are emitted apart (loop()):
    // only the evals of n's own come with it.
    const std::optional<unsigned> source =
        in_.source_loop ? in_.source_loop(p.eclass) : std::nullopt;
    const auto of_another_loop = [&](std::uint32_t e) {
      if (!source) return false;
      const std::optional<unsigned> k = in_.source_loop(node(e).eclass);
      return k && *k != *source;
    };
    for (std::uint32_t e : evals)
      if (node(e).type().is_state() && !invariant_eval(e) && !reached(e) && !of_another_loop(e)) {
        // Unless it is a value the effects need first: a loop of its own.
        const std::vector<std::uint32_t> first = evals_before_effects(p.children[1], e);
        if (std::binary_search(first.begin(), first.end(), n)) break;
        out.push_back(e);
        return done();
      }
    // Emitting the loop computes its other values too (loop()): what they
    // read is read here.
    for (std::uint32_t e : evals) {
      if (e == n || node(e).type().is_state() || lookup(e) || of_another_loop(e)) continue;
      add(lazy_reads(node(e).children[0], memo));
    }
  }
  // A value φ whose condition is known here is its arm (phi()): the other
  // arm's reads are not made, and a loop reaching them would make effects
  // only that arm's path makes.
  if (p.kind() == Kind::Phi && !p.type().is_state()) {
    if (const std::optional<bool> k = Emitter::known(p.children[0])) {
      add(lazy_reads(p.children[*k ? 1 : 2], memo));
      return done();
    }
  }
  if (!p.type().is_state()) {
    const std::size_t first = reads_state(p.kind()) ? 1 : 0;
    if (first == 1 && g_.depth(p.children[0]) <= depth_) out.push_back(memory_of(p.children[0]));
    for (std::size_t i = first; i < p.children.size(); ++i) add(lazy_reads(p.children[i], memo));
  }
  return done();
}

std::optional<std::uint32_t> Emitter::start_state_of(std::uint32_t pass) const {
  if (const auto it = start_states_.find(pass); it != start_states_.end()) return it->second;
  std::vector<std::uint32_t> roots{node(pass).children[0]};
  for (std::uint32_t e : evals_of_.at(pass)) roots.push_back(node(e).children[0]);
  std::optional<std::uint32_t> start;
  const unsigned loop = node(pass).loop();
  for (std::uint32_t t : loop_thetas(loop, roots))
    if (node(t).type().is_state()) start = node(t).children[0];
  start_states_.emplace(pass, start);
  return start;
}

std::vector<std::uint32_t> Emitter::fusable_phis(std::uint32_t cond, std::uint32_t except,
                                                 const std::array<NodeSet, 2>& inside) {
  std::vector<std::uint32_t> out;
  if (bundles_.empty()) return out;
  NodeSetMemoHandle memos[2] = {node_set_memo(), node_set_memo()};
  // Each arm, where the condition is known to choose it, reads only the
  // current memory or what that branch makes (an arm that makes a call
  // its branch does not make joins no `if`: the call would move memory
  // off the σ the branch ends at).
  // Whether it fits, and whether it reads memory its branch makes.
  enum class Fit { no, reads_current, reads_branch };
  const auto fits = [&](std::uint32_t m) {
    if (may_read_call_never_made(m)) return Fit::no;
    bool all = true;
    bool read_inside = false;
    // A question, not code: a branch's value found here is not hoisted.
    const std::size_t hoisted = hoisted_.size();
    for (int side = 0; side < 2 && all; ++side) {
      ir::Block none;
      in_scope(none, [&] {
        know(cond, side == 0);
        const NodeSet& r = lazy_reads(node(m).children[1 + side], *memos[side]);
        const NodeSet& made = inside[side];
        all = std::all_of(r.begin(), r.end(), [&](std::uint32_t s) {
          if (s == cur_) return true;
          read_inside = true;
          return std::binary_search(made.begin(), made.end(), s);
        });
      });
    }
    hoisted_.resize(hoisted);
    return !all ? Fit::no : read_inside ? Fit::reads_branch : Fit::reads_current;
  };
  const std::vector<std::uint32_t>& must = bundles_.back().must;
  const auto take_phis_of = [&](const NodeSet& from) {
    for (std::uint32_t m : from) {
      const PegNode& q = node(m);
      if (m == except || q.kind() != Kind::Phi || q.children[0] != cond || !q.type().is_ir() ||
          lookup(m) || std::find(out.begin(), out.end(), m) != out.end())
        continue;
      if (fits(m) != Fit::no) out.push_back(m);
    }
  };
  take_phis_of(must);
  // A loop the bundle certainly runs starts from its initial values, even
  // those only a loop that leaves at once returns (`a = f(); for (…) a =
  // g();` with the call in an `if`: its value is read in its branch).
  NodeSet inits;
  append_loop_initial_values(must, inits);
  std::sort(inits.begin(), inits.end());
  take_phis_of(inits);
  // An exit test pending inside this σ φ's `if` is made first in its branch,
  // and the other branch goes on: there, what going on needs is needed.
  if (test_in_branch_ && test_in_branch_->state == except) take_phis_of(bundles_.back().going_on);
  const auto on_cond = value_phis_.find(cond);
  if (on_cond == value_phis_.end()) return out;
  // A φ that is not defined joins too when each arm is, where its branch
  // is taken: one that cannot trap and reads no memory the branch makes
  // (which it may make in an `if` of its own), or a loop's value at its
  // exit, defined once the loop ran: an arm that a loop the branch makes
  // leaves (`if (c) { loop }`, the loop's variable read after the `if`
  // where the loop did not return).
  const auto arms_defined = [&](std::uint32_t m) {
    for (int side = 0; side < 2; ++side) {
      const std::uint32_t arm = node(m).children[1 + side];
      // Defined on every call, or where its side is taken (the source
      // computes it on every pass of that branch) if it runs no loop not
      // made yet: the loop would run in this `if` and again where the
      // φ's other users need it.
      bool defined_on_side = defined(arm);
      if (!defined_on_side && !may_run_inner_loop(std::span(&arm, 1), 0)) {
        ir::Block none;
        in_scope(none, [&] {
          know(cond, side == 0);
          defined_on_side = defined(arm);
        });
      }
      if (defined_on_side && unmade_reads(arm).empty()) continue;
      const PegNode& e = node(arm);
      if (e.kind() != Kind::Eval || invariant_eval(arm) ||
          !in_.total(node(e.children[0]).eclass, node(e.children[1]).eclass))
        return false;
      const auto evals = evals_of_.find(e.children[1]);
      const NodeSet& made = inside[side];
      if (evals == evals_of_.end() ||
          std::none_of(evals->second.begin(), evals->second.end(), [&](std::uint32_t x) {
            return node(x).type().is_state() && std::binary_search(made.begin(), made.end(), x);
          }))
        return false;
    }
    return true;
  };
  // A φ that would run a loop which is not nested here (one of the open
  // loops' siblings, or a loop after them) is left to where that loop runs.
  const auto runs_loop_not_nested_here = [&](std::uint32_t m) {
    const std::span<const std::uint32_t> arms = std::span(node(m).children).subspan(1);
    return depth_ > 0 && may_run_loop(arms, 0, 1, depth_);
  };
  NodeSet defined_only;
  // One whose arms read memory their branch makes, and nothing else, can be
  // computed nowhere else: past the `if` that memory is gone.
  const PegNode& state_phi = node(except);
  const bool state_group = state_phi.kind() == Kind::Phi && state_phi.type().is_state();
  std::optional<BranchEffects> branches[2];
  // The `if` followed by an effect no load moves past (a call after it
  // that the bundle makes): the memory each branch ends at is gone there.
  std::optional<bool> followed_by_fix;
  const auto followed = [&] {
    const Bundle& b = bundles_.back();
    for (const NodeSet* states : {&b.must, &b.going_on})
      for (std::uint32_t y : *states) {
        const Kind k = node(y).kind();
        if (!node(y).type().is_state() || reached(y) ||
            (k != Kind::ProjState && k != Kind::Barrier && k != Kind::Eval))
          continue;
        spend(1);
        if (const std::optional<std::uint32_t> in = input_of(y); in && resolve(*in) == except)
          return true;
      }
    return false;
  };
  const auto made_in_branches = [&](std::uint32_t m) {
    for (int side = 0; side < 2; ++side) {
      if (!branches[side]) {
        if (!followed_by_fix) followed_by_fix = followed();
        branches[side] = branch_effects(state_phi.children[1 + side], *followed_by_fix);
      }
      if (!made_in_branch(node(m).children[1 + side], *branches[side])) return false;
    }
    return true;
  };
  for (std::uint32_t m : on_cond->second) {
    if (m == except || lookup(m) || g_.depth(m) > depth_ ||
        std::binary_search(must.begin(), must.end(), m) || std::ranges::find(out, m) != out.end() ||
        !of_open_loops(m) || runs_loop_not_nested_here(m))
      continue;
    const bool defined_anyway = defined(m) || arms_defined(m);
    if (!defined_anyway && !state_group) continue;
    const Fit fit = fits(m);
    if (fit != Fit::no && (defined_anyway || (fit == Fit::reads_branch && made_in_branches(m))))
      defined_only.push_back(m);
  }
  if (defined_only.empty()) return out;
  std::sort(defined_only.begin(), defined_only.end());
  // Inside a loop, what only the code after it needs is made there: made
  // in the iteration, it was made on every pass and again after the loop.
  const Needed needed = needed_outside({}, std::nullopt, defined_only, iteration_bundle_);
  const NodeSet& joining = needed.complete ? needed.found : defined_only;
  out.insert(out.end(), joining.begin(), joining.end());
  return out;
}

Emitter::BranchEffects Emitter::branch_effects(std::uint32_t branch_state, bool end_fixed) {
  BranchEffects out{certain_states_towards(branch_state), {}};
  for (std::uint32_t y : out.made) {
    if (const std::optional<std::uint32_t> in = input_of(y)) {
      const Kind k = node(y).kind();
      out.next_fixes_reads.emplace_back(
          resolve(*in), k == Kind::ProjState || k == Kind::Barrier || k == Kind::Eval);
    }
  }
  if (end_fixed) out.next_fixes_reads.emplace_back(resolve(branch_state), true);
  std::sort(out.next_fixes_reads.begin(), out.next_fixes_reads.end());
  return out;
}

bool Emitter::made_in_branch(std::uint32_t arm, const BranchEffects& branch) {
  const NodeSet& made = branch.made;
  const auto read_in_place = [&](std::uint32_t state) {
    const std::uint32_t x = resolve(state);
    if (x != cur_ && !std::binary_search(made.begin(), made.end(), x)) return false;
    const auto next = std::lower_bound(branch.next_fixes_reads.begin(),
                                       branch.next_fixes_reads.end(), std::pair(x, false));
    return next != branch.next_fixes_reads.end() && next->first == x && next->second;
  };
  std::vector<std::uint32_t> todo{arm};
  Marks seen = marks();
  for (std::size_t walked = 0; !todo.empty(); ++walked) {
    if (walked == kMayRunWalk) return false;
    spend(1);
    const std::uint32_t x = todo.back();
    todo.pop_back();
    if (lookup(x) || speculatable_[x] || !seen.insert(x)) continue;
    const PegNode& q = node(x);
    if (reads_state(q.kind())) {
      if (!read_in_place(q.children[0])) return false;
      todo.insert(todo.end(), q.children.begin() + 1, q.children.end());
    } else if (q.kind() == Kind::ProjValue) {
      const auto state = state_of_tuple_.find(q.children[0]);
      if (!lookup(q.children[0]) && (state == state_of_tuple_.end() ||
                                     !std::binary_search(made.begin(), made.end(), state->second)))
        return false;
    } else if (q.kind() == Kind::Phi || (is_pure_value_op(q.kind()) && op_speculatable(q))) {
      todo.insert(todo.end(), q.children.begin(), q.children.end());
    } else {
      return false;
    }
  }
  return true;
}

bool Emitter::may_read_call_never_made(std::uint32_t n) const {
  std::vector<std::uint32_t> todo{n};
  Marks seen = marks();
  for (std::size_t walked = 0; !todo.empty(); ++walked) {
    if (walked == kMayRunWalk) return true;
    spend(1);
    const std::uint32_t x = todo.back();
    todo.pop_back();
    const PegNode& q = node(x);
    if (q.kind() == Kind::ProjValue) {
      if (!lookup(q.children[0]) && !state_of_tuple_.contains(q.children[0])) return true;
      continue;
    }
    if (q.kind() != Kind::Phi && !is_pure_value_op(q.kind())) continue;
    for (std::uint32_t c : q.children)
      if (node(c).type().is_ir() && !lookup(c) && seen.insert(c)) todo.push_back(c);
  }
  return false;
}

bool Emitter::of_open_loops(std::uint32_t n) const {
  std::vector<std::uint32_t> todo{n};
  Marks seen = marks();
  for (std::size_t walked = 0; !todo.empty(); ++walked) {
    if (walked == kMayRunWalk) return false;
    spend(1);
    const std::uint32_t x = todo.back();
    todo.pop_back();
    if (node(x).kind() == Kind::Theta) return false;
    for (std::uint32_t c : node(x).children)
      if (g_.variant[c] != 0 && g_.depth(c) <= depth_ && !node(c).type().is_state() && !lookup(c) &&
          seen.insert(c))
        todo.push_back(c);
  }
  return true;
}

const std::vector<std::uint32_t>& Emitter::loop_initial_values(std::uint32_t e) {
  const auto [it, added] = initial_values_.try_emplace(e);
  if (added) {
    const std::uint32_t value[] = {node(e).children[0]};
    for (std::uint32_t t : loop_thetas(node(e).loop(), value)) {
      spend(1);
      if (!node(t).type().is_state()) it->second.push_back(node(t).children[0]);
    }
  }
  return it->second;
}

void Emitter::append_loop_initial_values(std::span<const std::uint32_t> evals,
                                         std::vector<std::uint32_t>& out) {
  for (std::uint32_t e : evals) {
    const PegNode& p = node(e);
    if (p.kind() != Kind::Eval || !p.type().is_ir() || lookup(e) || invariant_eval(e)) continue;
    const std::vector<std::uint32_t>& inits = loop_initial_values(e);
    out.insert(out.end(), inits.begin(), inits.end());
  }
}

void Emitter::flush_readers(std::optional<std::uint32_t> joining, Readers which) {
  if (bundles_.empty()) return;
  NodeSetMemoHandle memo = node_set_memo();
  std::vector<std::uint32_t> candidates = bundles_.back().must;
  // Nodes the bundle may need that are defined on every call, through φs
  // and into loops (a value read before a loop and used only in it).
  {
    Marks seen = marks();
    std::vector<std::uint32_t> todo = bundles_.back().roots;
    while (!todo.empty()) {
      const std::uint32_t n = todo.back();
      todo.pop_back();
      const PegNode& p = node(n);
      if (!seen.insert(n) || lookup(n) || reached(n)) continue;
      if (p.type().is_ir() && g_.depth(n) <= depth_ &&
          !std::binary_search(bundles_.back().must.begin(), bundles_.back().must.end(), n) &&
          !speculatable_[n] && defined(n))
        candidates.push_back(n);
      for (std::uint32_t c : p.children) todo.push_back(c);
    }
  }
  // The initial values of the loops whose values the bundle certainly
  // needs: a loop whose σ starts from an effect about to be made computes
  // them after it, and they may read the memory before.
  append_loop_initial_values(bundles_.back().must, candidates);
  // Whether computing `n` now (through pure operators) computes a value φ
  // on `joining`.
  std::unordered_map<std::uint32_t, bool> joins;
  const auto computes_joining = [&](std::uint32_t n) {
    return any_operand_answers(
        g_, n,
        [&](std::uint32_t x) -> std::optional<bool> {
          if (lookup(x)) return false;
          if (const auto it = joins.find(x); it != joins.end()) return it->second;
          return std::nullopt;
        },
        [&](std::uint32_t x) -> std::optional<bool> {
          spend(1);
          const PegNode& p = node(x);
          if (p.kind() == Kind::Phi) return p.type().is_ir() && p.children[0] == *joining;
          if (is_pure_value_op(p.kind())) return std::nullopt;
          return false;
        },
        [&](std::uint32_t x, bool answer) { joins[x] = answer; });
  };
  // Whether computing `n` now (through pure operators and value φs, the
  // nodes that lead to a loop) needs a value of a loop being made, or runs
  // a loop with effects not made yet (a value after two loops the PEG runs
  // as one: computing it would move memory).
  Marks seen = marks();
  Marks needing = marks();
  const auto needs_loop = [&](std::uint32_t n) {
    return any_operand_answers(
        g_, n,
        [&](std::uint32_t x) -> std::optional<bool> {
          if (!leads_to_loop_[x] || lookup(x)) return false;
          if (seen.contains(x)) return needing.contains(x);
          return std::nullopt;
        },
        [&](std::uint32_t x) -> std::optional<bool> {
          spend(1);
          const PegNode& p = node(x);
          if (p.kind() != Kind::Eval) return std::nullopt;
          if (std::ranges::find(loops_in_progress_, p.children[1]) != loops_in_progress_.end())
            return true;
          if (invariant_eval(x)) return false;
          const auto evals = evals_of_.find(p.children[1]);
          return evals != evals_of_.end() &&
                 std::ranges::any_of(evals->second, [&](std::uint32_t e) {
                   return node(e).type().is_state() && !reached(e);
                 });
        },
        [&](std::uint32_t x, bool answer) {
          seen.insert(x);
          if (answer) needing.insert(x);
        });
  };
  for (std::uint32_t m : candidates) {
    const PegNode& p = node(m);
    if (p.type().is_state() || !p.type().is_ir() || lookup(m) || in_progress_.contains(m)) continue;
    if (joining && computes_joining(m)) continue;
    const NodeSet& r = lazy_reads(m, *memo);
    // A reader of this memory: of cur_, and maybe of stores it overwrote
    // (load_past_overwrite reads those while cur_ is still over them); or,
    // when asked, a reader of such stores alone.
    const bool reads_cur = std::find(r.begin(), r.end(), cur_) != r.end();
    if (r.empty() || reads_cur == (which == Readers::of_overwritten_only) ||
        !std::all_of(r.begin(), r.end(),
                     [&](std::uint32_t s) { return s == cur_ || overwritten(s); }) ||
        needs_loop(m))
      continue;
    materialize(m);
    memo->clear();
  }
}

void Emitter::read_where_chosen(std::uint32_t effect) {
  if (bundles_.empty() || !read_directly_[cur_]) return;
  const NodeSet& must_now = bundles_.back().must;
  // The paths a walk takes, as a tree of steps: a φ's condition and the arm
  // taken, and the step outside it.
  constexpr std::uint32_t kNoStep = ~std::uint32_t{0};
  constexpr std::uint32_t kTwoPaths = kNoStep - 1;
  struct Step {
    std::uint32_t cond;
    bool holds;
    std::uint32_t outer;
    std::uint32_t depth;
  };
  std::vector<Step> steps;
  // From the bundle's roots, through the effects on the way to its σ. Each
  // reader found with the path it was found on; one found on two paths is
  // left alone (read on one, it would be missing on the other).
  std::unordered_map<std::uint32_t, std::uint32_t> found;
  std::vector<std::uint32_t> order;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> todo;
  Marks seen_on_no_path = marks();
  for (std::uint32_t r : bundles_.back().roots) todo.emplace_back(r, kNoStep);
  for (std::size_t walked = 0; !todo.empty() && walked < kChosenReadsWalk; ++walked) {
    spend(1);
    const auto [n, path] = todo.back();
    todo.pop_back();
    if (path == kNoStep && !seen_on_no_path.insert(n)) continue;
    const PegNode& p = node(n);
    if (p.type().is_state()) {
      // The effects on the way to a σ the bundle ends at: their operands
      // (the effect made now computes its own before memory moves).
      if (n == effect || memory_at(n) || reached(n)) continue;
      if (p.kind() == Kind::Store || p.kind() == Kind::Demand || p.kind() == Kind::Barrier) {
        for (std::uint32_t c : p.children) todo.emplace_back(c, path);
        continue;
      }
      if (p.kind() == Kind::ProjState) {
        for (std::uint32_t c : node(p.children[0]).children) todo.emplace_back(c, path);
        continue;
      }
      if (p.kind() != Kind::Phi) continue;
    } else if (!p.type().is_ir() || lookup(n)) {
      continue;
    }
    if (reads_state(p.kind())) {
      if (path == kNoStep || std::binary_search(must_now.begin(), must_now.end(), n)) continue;
      if (const auto [it, fresh] = found.emplace(n, path); !fresh) {
        if (it->second != path) it->second = kTwoPaths;
      } else {
        order.push_back(n);
      }
    } else if (p.kind() == Kind::Phi) {
      todo.emplace_back(p.children[0], path);
      const std::optional<bool> k = known(p.children[0]);
      const std::uint32_t depth = path == kNoStep ? 0 : steps[path].depth;
      for (const bool side : {true, false}) {
        if (k && *k != side) continue;
        std::uint32_t arm = path;
        if (!k) {
          if (depth == kBranchConditions) continue;
          arm = static_cast<std::uint32_t>(steps.size());
          steps.push_back({p.children[0], side, path, depth + 1});
        }
        todo.emplace_back(p.children[side ? 1 : 2], arm);
      }
    } else if (is_pure_value_op(p.kind())) {
      for (std::uint32_t c : p.children) todo.emplace_back(c, path);
    }
  }
  if (order.empty()) return;
  NodeSetMemoHandle memo = node_set_memo();
  const auto reads_only_cur = [&](std::uint32_t n) {
    const NodeSet& r = lazy_reads(n, *memo);
    return std::all_of(r.begin(), r.end(), [&](std::uint32_t s) { return s == cur_; });
  };
  // Nor what runs a loop not made yet: made in the `if`, it would be made
  // again where the loop is needed elsewhere.
  const auto runs_loop = [&](std::uint32_t x) { return may_run_inner_loop(std::span(&x, 1), 0); };
  const auto ready = [&](std::uint32_t x) { return reads_only_cur(x) && !runs_loop(x); };
  for (std::uint32_t n : order) {
    const std::uint32_t last_step = found.at(n);
    if (last_step == kTwoPaths) continue;
    std::vector<std::pair<std::uint32_t, bool>> path;  // outermost first
    for (std::uint32_t st = last_step; st != kNoStep; st = steps[st].outer)
      path.emplace_back(steps[st].cond, steps[st].holds);
    std::reverse(path.begin(), path.end());
    if (lookup(n) || !ready(n) ||
        !std::ranges::all_of(path, [&](const auto& c) { return ready(c.first); }))
      continue;
    // The `if`s, outermost first, each condition computed before its own.
    const auto read_in = [&](const auto& self, std::size_t depth) -> void {
      const auto [cond, holds] = path[depth];
      const ir::ExprPtr c = value(cond);
      ir::Block blocks[2];
      in_branch(blocks[holds ? 0 : 1], cond, holds, [&] {
        if (depth + 1 < path.size())
          self(self, depth + 1);
        else if (!lookup(n))
          cache(n, temp(value(n)));
      });
      if (!blocks[0].empty() || !blocks[1].empty())
        emit(ir::Stmt::if_(c, std::move(blocks[0]), std::move(blocks[1])));
    };
    read_in(read_in, 0);
    memo->clear();
  }
}

// ------------------------------------------------------------ the function

ir::Function Emitter::run() {
  const ir::Function& original = *in_.original;
  fn_.name = original.name;
  fn_.ret = original.ret;
  fn_.kernel = original.kernel;
  fn_.num_params = original.num_params;
  for (std::uint32_t i = 0; i < original.num_params; ++i) {
    fn_.vars.push_back(original.vars[i]);
    names_.insert(original.vars[i].name);
  }
  for (const ir::Variable& v : original.vars) names_.insert(v.name);

  std::optional<std::uint32_t> state_in;
  for (std::uint32_t i = 0; i < g_.nodes.size(); ++i)
    if (node(i).kind() == Kind::StateIn) state_in = i;
  if (!state_in) fail(g_.state, "no initial σ");
  push_scope(&fn_.body);
  mark_reached(*state_in);
  cur_ = *state_in;

  if (g_.outputs.size() != in_.outputs.size()) fail(g_.state, "outputs without variables");
  std::vector<std::uint32_t> roots;
  if (g_.result) roots.push_back(*g_.result);
  roots.insert(roots.end(), g_.outputs.begin(), g_.outputs.end());
  roots.push_back(g_.state);
  const std::vector<ir::ExprPtr> values = bundle(roots);
  if (g_.result) emit(ir::Stmt::return_(values[0]));
  // A region's outputs: every value is read before any output parameter is
  // assigned, since one may read another's entry value (a swap, or `v = a;
  // a = f(a)`): a read of an output variable is copied too, not just used.
  const std::size_t first_output = g_.result ? 1 : 0;
  std::unordered_set<std::uint32_t> output_vars;
  for (const ir::VarId v : in_.outputs) output_vars.insert(v.index);
  std::vector<std::pair<ir::VarId, ir::ExprPtr>> assignments;
  for (std::size_t i = 0; i < in_.outputs.size(); ++i) {
    ir::ExprPtr v = values[first_output + i];
    const ir::VarId out = in_.outputs[i];
    if (v->kind == ir::ExprKind::Var && v->var == out) continue;  // unchanged
    if (v->kind == ir::ExprKind::Var && output_vars.contains(v->var.index)) {
      const ir::VarId copy = new_var(v->type, 't');
      emit(ir::Stmt::decl(copy, std::move(v)));
      v = read(copy);
    } else if (v->kind != ir::ExprKind::Const) {
      v = temp(std::move(v));
    }
    assignments.emplace_back(out, std::move(v));
  }
  for (auto& [var, v] : assignments) emit(ir::Stmt::assign(var, std::move(v)));
  pop_scope();
  finish_hoisting();

  ir::Block shared;
  for (const auto& [original_index, v] : shared_) shared.push_back(ir::Stmt::decl(v));
  std::sort(shared.begin(), shared.end(),
            [](const ir::Stmt& a, const ir::Stmt& b) { return a.var.index < b.var.index; });
  fn_.body.insert(fn_.body.begin(), std::make_move_iterator(shared.begin()),
                  std::make_move_iterator(shared.end()));
  return std::move(fn_);
}

}  // namespace augur::peg::revert_detail
