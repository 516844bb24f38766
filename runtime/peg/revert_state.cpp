// σ during reversion: memory is one mutable state, so σ's chain becomes the
// order of the effects, and every producer must take the current σ.
#include "runtime/peg/revert_emitter.h"

#include <algorithm>
#include <unordered_set>

namespace augur::peg::revert_detail {

bool Emitter::is_producer(std::uint32_t n) const {
  const PegNode& p = node(n);
  if (!p.type().is_state()) return false;
  switch (p.kind()) {
    case Kind::Store:
    case Kind::Demand:
    case Kind::Barrier:
    case Kind::ProjState:
    case Kind::Phi:
    case Kind::Eval:
      return true;
    default:
      return false;
  }
}

std::optional<std::uint32_t> Emitter::effect_input(std::uint32_t p) const {
  const PegNode& n = node(p);
  switch (n.kind()) {
    case Kind::Store:
    case Kind::Demand:
    case Kind::Barrier:
      return n.children[0];
    case Kind::ProjState:
      return node(n.children[0]).children[0];
    default:
      return std::nullopt;
  }
}

std::optional<std::uint32_t> Emitter::input_of(std::uint32_t p) {
  if (auto it = inputs_.find(p); it != inputs_.end()) return it->second;
  const PegNode& n = node(p);
  std::optional<std::uint32_t> in = effect_input(p);
  switch (n.kind()) {
    case Kind::Phi: {
      // The latest σ both branches' chains start from.
      std::unordered_set<std::uint32_t> before_then;
      for (std::optional<std::uint32_t> x = n.children[1]; x && before_then.insert(*x).second;)
        x = is_producer(*x) ? input_of(*x) : std::nullopt;
      for (std::optional<std::uint32_t> x = n.children[2]; x;) {
        if (before_then.contains(*x)) {
          in = x;
          break;
        }
        x = is_producer(*x) ? input_of(*x) : std::nullopt;
      }
      break;
    }
    case Kind::Eval: {
      // The loop's σ at its first iteration: the initial value of the θ the
      // exit state's chain starts from inside the loop.
      std::unordered_set<std::uint32_t> seen;
      std::optional<std::uint32_t> x = n.children[0];
      while (x && seen.insert(*x).second) {
        const PegNode& q = node(*x);
        if (q.kind() == Kind::Theta && q.loop() == n.loop()) {
          in = q.children[0];
          break;
        }
        if (g_.depth(*x) < n.loop()) {
          in = x;  // a loop that leaves memory alone
          break;
        }
        x = is_producer(*x) ? input_of(*x) : std::nullopt;
      }
      break;
    }
    default:
      break;
  }
  if (in) inputs_.emplace(p, *in);
  return in;
}

std::uint32_t Emitter::resolve(std::uint32_t state) const {
  for (unsigned i = 0; i < g_.nodes.size(); ++i) {
    const PegNode& p = node(state);
    if (invariant_eval(state)) {
      state = p.children[0];
      continue;
    }
    if (p.kind() != Kind::Phi) break;
    const std::optional<bool> c = known(p.children[0]);
    if (!c) break;
    state = p.children[*c ? 1 : 2];
  }
  return state;
}

std::uint32_t Emitter::memory_of(std::uint32_t state) const {
  const std::uint32_t target = resolve(state);
  if (memory_at(target)) return cur_;
  const std::uint32_t at = memory_through_checks(state, target);
  // A σ φ the known conditions decide by cases to memory here (an exit
  // whose way out the earlier exit tests decide).
  if (at != cur_ && node(target).kind() == Kind::Phi && memory_at(resolve_by_cases(target)))
    return cur_;
  return at;
}

std::uint32_t Emitter::memory_through_checks(std::uint32_t state, std::uint32_t target) const {
  const auto changes_none = [&](std::uint32_t x) {
    return node(x).kind() == Kind::Demand || checks_only_[x] ||
           std::find(peeled_states_.begin(), peeled_states_.end(), x) != peeled_states_.end();
  };
  const auto is_state_phi = [&](std::uint32_t x) {
    return node(x).kind() == Kind::Phi && node(x).type().is_state();
  };
  // From what cur_ is under this scope's conditions (a σ φ made on a
  // condition known here is the σ of that branch).
  std::uint32_t x = resolve(cur_);
  for (; x != target && !is_state_phi(x); x = resolve(node(x).children[0]))
    if (!changes_none(x)) return state;
  if (x == target) return cur_;
  // A σ φ both of whose arms lead down so (a loop left either before or
  // after a division's Demand), looked at up to a bound.
  constexpr std::size_t kMaxPhis = 64;
  std::size_t phis = 0;
  std::vector<std::uint32_t> todo{x};
  while (!todo.empty()) {
    for (x = todo.back(), todo.pop_back(); x != target; x = resolve(node(x).children[0])) {
      if (is_state_phi(x)) {
        if (++phis > kMaxPhis) return state;
        todo.push_back(resolve(node(x).children[1]));
        todo.push_back(resolve(node(x).children[2]));
        break;
      }
      if (!changes_none(x)) return state;
    }
  }
  return cur_;
}

void Emitter::read_at(std::uint32_t state, std::uint32_t reader) {
  if (memory_of(state) == cur_) return;
  if (reached(resolve(state))) fail(reader, "a σ read after memory moved past it");
  reach(state);
}

bool Emitter::overwritten(std::uint32_t state) const {
  // Stores between the σ and cur_, at most: a longer chain of stores to one
  // address is no shape the rules make.
  constexpr unsigned kMaxOverwrites = 8;
  if (state == kNoBlame) return false;
  const std::uint32_t store = resolve(state);
  if (memory_of(store) == cur_ || node(store).kind() != Kind::Store) return false;
  const PegNode& read = node(store);
  const std::uint32_t below = resolve(read.children[0]);
  if (below == cur_) return false;  // the store follows cur_: it can be reached
  // cur_ may be a σ φ made before, in a branch that decides it (the later
  // store made in an `if`, the load read in another on the same condition).
  std::uint32_t x = resolve(cur_);
  for (unsigned k = 0; x != below; ++k) {
    const PegNode& over = node(x);
    if (k == kMaxOverwrites || over.kind() != Kind::Store || over.children[1] != read.children[1] ||
        over.children[2] != read.children[2])
      return false;
    x = resolve(over.children[0]);
  }
  return true;
}

bool Emitter::reads_past_other_indices(std::uint32_t load) const {
  // Indices compared as the integers they are, within a range where element
  // offsets cannot wrap onto each other.
  constexpr std::int64_t kMaxIndex = std::int64_t{1} << 31;
  constexpr unsigned kMaxSteps = 16;
  const auto index_of = [&](std::uint32_t k) -> std::optional<std::int64_t> {
    const PegNode& c = node(k);
    if (c.kind() != Kind::Const) return std::nullopt;
    const std::optional<std::int64_t> v = integer_value(c.type(), c.label.payload);
    if (!v || *v <= -kMaxIndex || *v >= kMaxIndex) return std::nullopt;
    return v;
  };
  // A pointer as a base and a constant element offset (`p + 1` is p, 1):
  // both sides' offsets count elements of the same type, their base's.
  constexpr unsigned kMaxPointerSteps = 4;
  const auto base_and_offset = [&](std::uint32_t ptr) {
    std::int64_t offset = 0;
    for (unsigned k = 0; k < kMaxPointerSteps; ++k) {
      const PegNode& q = node(ptr);
      if ((q.kind() != Kind::Add && q.kind() != Kind::Sub) || !q.type().is_ir() ||
          !q.type().ir().is_pointer())
        break;
      const std::optional<std::int64_t> by = index_of(q.children[1]);
      if (!by) break;
      offset += q.kind() == Kind::Add ? *by : -*by;
      ptr = q.children[0];
    }
    return std::pair{ptr, offset};
  };
  const PegNode& l = node(load);
  const std::optional<std::int64_t> index = index_of(l.children[2]);
  if (!index) return false;
  const auto [base, offset] = base_and_offset(l.children[1]);
  const std::int64_t at = offset + *index;
  // Every way down from cur_, through σ φs (a store made in an `if`).
  const std::uint32_t target = resolve(l.children[0]);
  std::vector<std::uint32_t> todo{resolve(cur_)};
  for (unsigned steps = 0; !todo.empty(); ++steps) {
    const std::uint32_t x = todo.back();
    todo.pop_back();
    if (x == target) continue;
    const PegNode& e = node(x);
    if (steps == kMaxSteps) return false;
    if (e.kind() == Kind::Phi && e.type().is_state()) {
      todo.push_back(resolve(e.children[1]));
      todo.push_back(resolve(e.children[2]));
      continue;
    }
    if (e.kind() == Kind::Store) {
      const std::optional<std::int64_t> to = index_of(e.children[2]);
      const auto [to_base, to_offset] = base_and_offset(e.children[1]);
      if (to_base != base || !to || to_offset + *to == at) return false;
    } else if (e.kind() != Kind::Demand) {
      return false;
    }
    todo.push_back(resolve(e.children[0]));
  }
  return true;
}

bool Emitter::overwrites(std::uint32_t effect, std::uint32_t store) const {
  const PegNode& e = node(effect);
  const PegNode& at = node(resolve(store));
  return e.kind() == Kind::Store && at.kind() == Kind::Store && e.children[1] == at.children[1] &&
         e.children[2] == at.children[2] && resolve(e.children[0]) == resolve(at.children[0]);
}

bool Emitter::stores_over_cur(std::uint32_t effect) const {
  const PegNode& over = node(cur_);
  if (over.kind() != Kind::Store) return true;  // nothing is overwritten
  const PegNode& e = node(effect);
  return e.kind() == Kind::Store && e.children[1] == over.children[1] &&
         e.children[2] == over.children[2];
}

ir::ExprPtr Emitter::load_past_overwrite(std::uint32_t load, const ir::ExprPtr& ptr,
                                         const ir::ExprPtr& index) {
  const PegNode& l = node(load);
  if (!overwritten(l.children[0])) return nullptr;
  const PegNode& read = node(resolve(l.children[0]));
  if (read.children[1] != l.children[1]) return nullptr;  // another pointer: may alias
  const std::uint32_t at = cur_;
  ir::ExprPtr stored_index = value(read.children[2]);
  ir::ExprPtr stored = value(read.children[3]);
  if (cur_ != at || stored_index->type != index->type) return nullptr;
  return ir::select(ir::binary(ir::BinaryOp::Eq, index, std::move(stored_index)), std::move(stored),
                    ir::load(ptr, index));
}

Emitter::WayToState Emitter::way_to(std::uint32_t target) {
  const std::uint32_t state = resolve(target);
  const auto no_way = [](std::uint32_t blame, const char* failure) {
    return WayToState{{}, blame, failure};
  };
  WayToState way;
  if (memory_at(state)) return way;
  // A σ φ the known conditions decide by cases to memory here.
  if (node(state).kind() == Kind::Phi && memory_at(resolve_by_cases(state))) return way;
  // Past it only by checks (Demands, loops that make only Demands): memory is
  // as it was there, and the checks made are ones the way here needed (a
  // call that reads a division's Demand, made to compute a condition whose
  // other arm keeps memory as it was before the division).
  if (reached(state) && memory_of(state) == cur_) return way;
  if (reached(state)) return no_way(state, "a σ read after memory moved past it");
  for (std::uint32_t x = state; !memory_at(x);) {
    if (!is_producer(x) || way.effects.size() > g_.nodes.size()) {
      // (Down to the σ cur_, a store, wrote over, from a store over its
      // address: made on cur_, that store leaves the same memory.)
      if (!way.effects.empty() && overwrites(way.effects.back(), cur_)) break;
      return no_way(state, "a σ that does not follow the current one");
    }
    way.effects.push_back(x);
    if (follows_arm_by_arm(x, cur_)) break;
    const std::optional<std::uint32_t> in = input_here(x);
    if (!in) return no_way(x, "an effect whose input σ is unknown");
    x = resolve(*in);
  }
  return way;
}

NodeSet Emitter::states_towards(std::uint32_t state) {
  NodeSet out;
  Marks seen = marks();
  std::vector<std::uint32_t> todo{state};
  while (!todo.empty()) {
    const std::uint32_t x = todo.back();
    todo.pop_back();
    if (memory_at(x) || reached(x) || !seen.insert(x)) continue;
    spend(1);
    out.push_back(x);
    const PegNode& p = node(x);
    if (p.kind() == Kind::Phi) {
      todo.push_back(p.children[1]);
      todo.push_back(p.children[2]);
    } else if (is_producer(x)) {
      if (const std::optional<std::uint32_t> in = input_of(x)) todo.push_back(*in);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

template <class Visit>
std::optional<std::uint32_t> Emitter::find_certain_state(std::uint32_t state, Visit visit) {
  std::optional<std::uint32_t> x = resolve(state);
  for (std::size_t steps = 0;
       x && !memory_at(*x) && !reached(*x) && is_producer(*x) && steps <= g_.nodes.size();
       ++steps) {
    spend(1);
    if (visit(*x)) return x;
    x = node(*x).kind() == Kind::Phi ? phi_input_here(*x) : input_of(*x);
    if (x) x = resolve(*x);
  }
  return std::nullopt;
}

std::optional<std::uint32_t> Emitter::phi_input_here(std::uint32_t phi) {
  // input_of()'s walk, each σ φ on the way resolved (kMaxChain σs an arm).
  constexpr std::size_t kMaxChain = 64;
  const auto walk = [&](std::uint32_t from, auto&& each) {
    std::optional<std::uint32_t> x = resolve(from);
    for (std::size_t steps = 0; x && steps < kMaxChain; ++steps) {
      spend(1);
      if (each(*x)) return true;
      x = is_producer(*x) ? input_of(*x) : std::nullopt;
      if (x) x = resolve(*x);
    }
    return false;
  };
  std::vector<std::uint32_t> before_then;
  walk(node(phi).children[1], [&](std::uint32_t x) {
    before_then.push_back(x);
    return false;
  });
  std::sort(before_then.begin(), before_then.end());
  std::optional<std::uint32_t> in;
  walk(node(phi).children[2], [&](std::uint32_t x) {
    if (!std::binary_search(before_then.begin(), before_then.end(), x)) return false;
    in = x;
    return true;
  });
  return in ? in : input_of(phi);
}

std::optional<std::uint32_t> Emitter::input_here(std::uint32_t producer) {
  std::optional<std::uint32_t> in = input_of(producer);
  if (in && node(producer).kind() == Kind::Phi && !memory_at(resolve(*in)) &&
      !is_producer(resolve(*in)))
    in = phi_input_here(producer);
  return in;
}

NodeSet Emitter::certain_states_towards(std::uint32_t state, NodeSet* phis) {
  NodeSet out;
  find_certain_state(state, [&](std::uint32_t x) {
    // A σ φ whose condition is not known here: only what both arms start
    // from is certain.
    if (node(x).kind() != Kind::Phi)
      out.push_back(x);
    else if (phis)
      phis->push_back(x);
    return false;
  });
  std::sort(out.begin(), out.end());
  if (phis) std::sort(phis->begin(), phis->end());
  return out;
}

std::optional<std::uint32_t> Emitter::latest_common_state(std::uint32_t a, std::uint32_t b) {
  const NodeSet on_b = certain_states_towards(b);
  return find_certain_state(a, [&](std::uint32_t x) {
    return node(x).kind() != Kind::Phi && std::binary_search(on_b.begin(), on_b.end(), x);
  });
}

bool Emitter::can_reach(std::uint32_t target) {
  return way_to(target).failure == nullptr;
}

void Emitter::reach(std::uint32_t target) {
  const WayToState way = way_to(target);
  if (way.failure) fail(way.blame, way.failure);
  for (auto p = way.effects.rbegin(); p != way.effects.rend(); ++p) produce(*p);
}

bool Emitter::follows_arm_by_arm(std::uint32_t phi, std::uint32_t made, unsigned nesting) {
  constexpr std::size_t kMaxChain = 64;
  const PegNode& p = node(phi);
  const PegNode& at = node(made);
  if (p.kind() != Kind::Phi || !p.type().is_state()) return false;
  const bool at_phi = at.kind() == Kind::Phi && at.type().is_state();
  bool by_arm = false;
  for (const int side : {1, 2}) {
    // `made` where phi's condition takes this side: its arm on the same
    // condition, or what that condition implies of its own by cases (`if
    // (g) loop; if (g && b) p[3] = 0;` follows the loop's `if` where g && b
    // holds, and keeps its memory where it fails).
    std::uint32_t there = at_phi ? at.children[side] : made;
    if (at_phi && at.children[0] != p.children[0]) {
      ir::Block none;
      in_scope(none, [&] {
        know(p.children[0], side == 1);
        there = resolve_by_cases(made);
      });
    }
    std::optional<std::uint32_t> x = p.children[side];
    std::size_t steps = 0;
    // (Or to a store over `made`'s address on the σ `made` wrote over.)
    for (; x && *x != made && *x != there && !overwrites(*x, made); ++steps) {
      spend(1);
      if (steps == kMaxChain || !is_producer(*x)) return false;
      if (nesting > 0 && follows_arm_by_arm(*x, made, nesting - 1)) break;
      x = input_of(*x);
    }
    if (!x) return false;
    by_arm |= *x != made;
  }
  // (Both arms down to `made` itself: phi follows it as any effect does,
  // through the effects both arms start from.)
  return by_arm;
}

void Emitter::make_dropped_store_for(std::uint32_t p) {
  const NodeSet& must_now = bundles_.back().must;
  for (const auto& [store, reader] : read_through_other_pointers_) {
    spend(1);
    if (store == p || reached(store) || !overwrites(p, store) ||
        !memory_at(resolve(node(store).children[0])) || lookup(reader) ||
        !std::binary_search(must_now.begin(), must_now.end(), reader))
      continue;
    produce(store);
    flush_readers();
    return;
  }
}

void Emitter::make_read_phi_below(std::uint32_t p) {
  constexpr std::size_t kMaxChain = 64;
  const PegNode& n = node(p);
  for (const int side : {1, 2}) {
    std::optional<std::uint32_t> x = n.children[side];
    for (std::size_t steps = 0; x && steps < kMaxChain && !memory_at(*x) && !reached(*x); ++steps) {
      spend(1);
      const PegNode& q = node(*x);
      if (q.kind() == Kind::Phi) {
        if (q.children[0] == n.children[0] && read_directly_[*x] && follows_arm_by_arm(p, *x) &&
            can_reach(*x)) {
          reach(*x);
          flush_readers();
          return;
        }
        break;
      }
      if (!is_producer(*x)) break;
      x = input_of(*x);
    }
  }
}

void Emitter::produce(std::uint32_t p, std::optional<std::uint32_t> with) {
  if (node(p).kind() == Kind::Phi && node(p).type().is_state() && !bundles_.empty())
    make_read_phi_below(p);
  if (node(p).kind() == Kind::Store && !read_through_other_pointers_.empty() && !bundles_.empty())
    make_dropped_store_for(p);
  const std::uint32_t from = resolve(*input_here(p));
  if (!memory_at(from) && !follows_arm_by_arm(p, cur_) && !overwrites(p, cur_))
    fail(p, "an effect on a σ that is not the current one");
  const std::uint32_t input = cur_;  // where memory stays while operands are computed
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    if (s->leaves_loop) break;
    if (s->barrier == 0) continue;
    if (s->pure_loop) fail(p, "an effect inside a loop that has none");
    break;
  }
  const PegNode& n = node(p);
  const std::optional<std::uint32_t> joining =
      n.kind() == Kind::Phi ? std::optional(n.children[0]) : std::nullopt;
  // A Demand leaves memory as it is: what reads it may wait for the effect
  // that moves it (a σ φ after the check, whose `if` a reader's value φ joins).
  if (n.kind() != Kind::Demand) {
    flush_readers(joining);
    // Value φs on `joining` join its `if`, reading there what they read.
    if (!joining) read_where_chosen(p);
  }
  if (cur_ != input) fail(p, "memory moved while computing an effect's operands");
  const auto check_unmoved = [&] {
    if (cur_ != input) fail(p, "memory moved while computing an effect's operands");
  };
  // After the effect's own operands (which often compute them): what reads
  // only stores cur_ overwrote, read before memory moves off them.
  const auto flush_overwritten = [&] {
    if (dropped_stores_ && !stores_over_cur(p))
      flush_readers(joining, Readers::of_overwritten_only);
    check_unmoved();
  };
  switch (n.kind()) {
    case Kind::Store: {
      ir::ExprPtr ptr = value(n.children[1]);
      ir::ExprPtr index = value(n.children[2]);
      ir::ExprPtr v = value(n.children[3]);
      flush_overwritten();
      emit(ir::Stmt::store(std::move(ptr), std::move(index), std::move(v)));
      break;
    }
    case Kind::Demand: {
      ir::ExprPtr v = value(n.children[1]);
      flush_overwritten();
      // Evaluate it here: it may trap, and the trap belongs here.
      if (v->kind != ir::ExprKind::Const && v->kind != ir::ExprKind::Var)
        cache(n.children[1], temp(std::move(v)));
      break;
    }
    case Kind::Barrier:
      flush_overwritten();
      emit(ir::Stmt::barrier());
      break;
    case Kind::ProjState: {
      const std::uint32_t tuple = n.children[0];
      const PegNode& call = node(tuple);
      std::vector<ir::ExprPtr> args;
      for (std::size_t i = 1; i < call.children.size(); ++i)
        args.push_back(value(call.children[i]));
      flush_overwritten();
      ir::ExprPtr e;
      if (call.kind() == Kind::CallEffect) {
        e = ir::call(callee(call), std::move(args));
      } else if (call.kind() == Kind::Atomic) {
        e = ir::atomic(static_cast<ir::AtomicOp>(call.label.payload), std::move(args));
      } else {
        fail(p, "ρ_σ of a " + std::string(name_of(call.kind())));
      }
      if (uses_[tuple] > 1 && !e->type.is_void()) {
        cache(tuple, temp(std::move(e)));
      } else {
        emit(ir::Stmt::eval(std::move(e)));
      }
      break;
    }
    case Kind::Phi: {
      const std::uint32_t cond = n.children[0];
      // Value φs on the same condition go in the same `if` (branch fusion),
      // those that read memory inside the branches included: each side's
      // states, where a σ φ on the same condition is its arm on that side.
      std::array<NodeSet, 2> inside;
      for (int side = 0; side < 2; ++side) {
        NodeSet& made = inside[side];
        Marks seen = marks();  // a branch's σ chain may be long: no linear search
        std::vector<std::uint32_t> todo{n.children[1 + side]};
        while (!todo.empty()) {
          const std::uint32_t x = todo.back();
          todo.pop_back();
          if (x == from || x == input || !is_producer(x) || !seen.insert(x)) continue;
          spend(1);
          made.push_back(x);
          const PegNode& q = node(x);
          if (q.kind() == Kind::Phi && q.children[0] == cond) {
            todo.push_back(q.children[1 + side]);
          } else if (q.kind() == Kind::Phi) {
            todo.push_back(q.children[1]);
            todo.push_back(q.children[2]);
          } else if (std::optional<std::uint32_t> in = input_of(x)) {
            todo.push_back(*in);
          }
        }
        std::sort(made.begin(), made.end());
      }
      flush_overwritten();
      std::vector<std::uint32_t> members = fusable_phis(cond, p, inside);
      if (with && std::find(members.begin(), members.end(), *with) == members.end())
        members.push_back(*with);
      phi_group(cond, std::move(members), p);
      return;
    }
    case Kind::Eval:
      flush_overwritten();
      loop(n.children[1], p);
      return;
    default:
      fail(p, "not an effect");
  }
  cur_ = p;
  mark_reached(p);
}

}  // namespace augur::peg::revert_detail
