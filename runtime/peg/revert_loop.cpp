// Loops during reversion (Tate, §8.3, §8.6, §8.9, §8.10): the eval_ℓ nodes of
// one pass_ℓ become one `while (true)` loop whose variables are the θ_ℓ they
// reach. Each iteration tests the exit condition first, as guards that
// `break` (one per φ level of the condition, so a loop with breaks gets one
// exit per break), computing the exit values at each exit; then it computes
// the θs' next values and assigns them all at once.
//
// Before the loop it computes what the first test certainly evaluates and
// does not vary in the loop (safe loop-invariant code motion), and the θs'
// initial values, which must not be speculated: a θ's initial value is
// computed only if it cannot trap, is evaluated by the first test anyway, or
// belongs to a loop variable of the source program (LoopFacts::total).
#include <algorithm>
#include <functional>
#include <unordered_set>
#include <utility>

#include "runtime/peg/revert_emitter.h"

namespace augur::peg::revert_detail {

std::vector<std::uint32_t> Emitter::loop_thetas(unsigned loop,
                                                std::span<const std::uint32_t> roots) const {
  const std::uint64_t bit = std::uint64_t{1} << (loop - 1);
  std::vector<std::uint32_t> thetas;
  Marks seen = marks();
  std::vector<std::uint32_t>& stack = theta_walk_;
  stack.assign(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    if (seen.contains(n) || (g_.variant[n] & bit) == 0) continue;
    seen.insert(n);
    const PegNode& p = node(n);
    if (p.kind() == Kind::Theta && p.loop() == loop) thetas.push_back(n);
    for (auto c = p.children.rbegin(); c != p.children.rend(); ++c) stack.push_back(*c);
  }
  return thetas;
}

namespace {

// Whether `s` leaves the loop being peeled: a `break` in it, not in a loop
// inside it (reversion's exits are one-level breaks, its blocks `if`s).
bool leaves(const ir::Stmt& s) {
  if (s.kind == ir::StmtKind::Break) return true;
  if (s.kind != ir::StmtKind::If) return false;
  return std::any_of(s.body.begin(), s.body.end(), leaves) ||
         std::any_of(s.orelse.begin(), s.orelse.end(), leaves);
}

// The exits of `block` nested in `if`s clear `going`; what follows one runs
// only while `going` holds.
ir::Block clearing(ir::Block block, ir::VarId going) {
  for (std::size_t i = 0; i < block.size(); ++i) {
    ir::Stmt& s = block[i];
    if (s.kind == ir::StmtKind::Break) {
      block.resize(i);
      block.push_back(ir::Stmt::assign(going, ir::constant(false)));
      return block;
    }
    if (!leaves(s)) continue;
    s.body = clearing(std::move(s.body), going);
    s.orelse = clearing(std::move(s.orelse), going);
    ir::Block rest(std::make_move_iterator(block.begin() + static_cast<std::ptrdiff_t>(i) + 1),
                   std::make_move_iterator(block.end()));
    block.resize(i + 1);
    if (!rest.empty())
      block.push_back(
          ir::Stmt::if_(ir::read(going, ir::Type::bool_()), clearing(std::move(rest), going)));
    return block;
  }
  return block;
}

// A peeled iteration, emitted like a loop body whose exits end in `break`,
// turned into branches: `s; if (g) { exit; break; } rest` becomes
// `s; if (g) { exit } else { rest }`. From an exit deeper in an `if` on (a
// test made inside a σ φ's branch: exit_test), exits clear a flag instead,
// and what follows each runs under it (clearing).
ir::Block without_breaks(ir::Block block, const std::function<ir::VarId()>& new_flag) {
  for (std::size_t i = 0; i < block.size(); ++i) {
    ir::Stmt& s = block[i];
    if (s.kind == ir::StmtKind::Break) {
      block.resize(i);
      return block;
    }
    if (!leaves(s)) continue;
    ir::Block rest(std::make_move_iterator(block.begin() + static_cast<std::ptrdiff_t>(i) + 1),
                   std::make_move_iterator(block.end()));
    if (s.orelse.empty() && !s.body.empty() && s.body.back().kind == ir::StmtKind::Break &&
        std::none_of(s.body.begin(), s.body.end() - 1, leaves)) {
      s.body.pop_back();
      block.resize(i + 1);
      block[i].orelse = without_breaks(std::move(rest), new_flag);
      return block;
    }
    rest.insert(rest.begin(), std::move(s));
    const ir::VarId going = new_flag();
    block.resize(i);
    block.push_back(ir::Stmt::decl(going, ir::constant(true)));
    for (ir::Stmt& t : clearing(std::move(rest), going)) block.push_back(std::move(t));
    return block;
  }
  return block;
}

}  // namespace

template <class Exit, class Iteration>
bool Emitter::exit_test(std::uint32_t c, const Exit& exit, const Iteration& iteration) {
  bundles_.back() = iteration(c);
  // A σ φ the test goes inside (φ(g, A, false), below) is not made ahead.
  std::optional<std::uint32_t> test_inside;
  if (const PegNode& p = node(c); p.kind() == Kind::Phi)
    for (const bool holds : {true, false})
      if (!test_inside && known(p.children[holds ? 2 : 1]) == false)
        test_inside = decided_phi_going_on_reads(p.children[0]);
  run_common_work(c, test_inside);
  if (std::optional<bool> k = known(c)) {
    if (!*k) return true;
    ir::Block b = exit(c, true);
    for (ir::Stmt& s : b) emit(std::move(s));
    return false;
  }
  // The test made first in the branch of `site`'s σ φ, after the effects
  // `test` reads that are not made yet (or, `on_guard`, with the test's
  // guard known there: `test` is the φ's arm), then that σ φ.
  const auto make_test_inside = [&](const TestSite& site, std::uint32_t test, bool on_guard) {
    const std::uint32_t arm = node(site.state).children[site.side ? 1 : 2];
    const bool arm_first = site.arm_first;
    test_in_branch_ =
        TestInBranch{site.state, site.branch, site.side, [&, test, on_guard, arm, arm_first] {
                       if (arm_first) reach(arm);
                       if (!on_guard)
                         for (std::uint32_t s : unmade_reads(test))
                           if (!reached(s)) reach(s);
                       bundles_.emplace_back();
                       exit_test(on_guard ? test : c, exit, iteration);
                       bundles_.pop_back();
                     }};
    reach(site.via.value_or(site.state));
    if (test_in_branch_) fail(site.state, "an exit test inside a branch that was not made");
    know(c, false);
    return true;
  };
  const PegNode& p = node(c);
  if (p.kind() == Kind::Phi) {
    const std::uint32_t guard = p.children[0], then_ = p.children[1], else_ = p.children[2];
    // A guard known here (an earlier exit decided it): a φ arm it takes is
    // the test, tested as itself (it may need a σ φ's branch, below). Any
    // other arm, or a test computed already, is this φ's value, read below.
    // So is a guard the known conditions imply, where the test reads memory
    // not made yet (`if (a) { if (b) break; } if (c) return; if (f()) ...`
    // after the `break`'s exit: the loop went on, so the arm tests c, then
    // makes the call only where c fails).
    std::optional<bool> k = known(guard);
    if (!k && !lookup(c) && !unmade_reads(c).empty()) k = implied(guard);
    if (k && !lookup(c) && node(*k ? then_ : else_).kind() == Kind::Phi)
      return exit_test(*k ? then_ : else_, exit, iteration);
    // On h first, each side testing with h known. Memory may move in a side
    // that goes on only to a σ φ going on makes, whose arms are where each
    // side ends (`if (g) { if (h) continue; if (f()) break; }`: the test in
    // the branch on g makes the σ φ on g && h, which keeps memory as it was
    // where g fails).
    const auto split_on = [&](std::uint32_t h) {
      split_an_exit_test_ = true;
      const ir::ExprPtr hv = value(h);
      const std::uint32_t start = cur_;
      ir::Block blocks[2];
      bool goes_on[2];
      std::uint32_t end[2];
      std::vector<std::uint32_t> joins[2];
      for (int side = 0; side < 2; ++side) {
        cur_ = start;
        in_branch(blocks[side], h, side == 0, [&] {
          bundles_.emplace_back();
          goes_on[side] = exit_test(c, exit, iteration);
          bundles_.pop_back();
          end[side] = goes_on[side] ? cur_ : start;
          // Here, where the exits this side tested are known not taken (a
          // call made before a `continue` only where the test reaches it).
          if (goes_on[side]) joins[side] = going_on_joins_here(end[side]);
        });
      }
      // A side that always leaves does not choose: no path goes on from it,
      // and where it is the only other side, memory goes on as the side
      // that goes on left it (an inner loop's σ, with no σ φ to join at).
      std::optional<std::uint32_t> joined;
      if (end[0] != start || end[1] != start) {
        const int first = goes_on[0] ? 0 : 1;
        for (std::uint32_t s : joins[first])
          if (!goes_on[1 - first] ||
              std::ranges::find(joins[1 - first], s) != joins[1 - first].end()) {
            joined = s;
            break;
          }
        if (!joined && !goes_on[1 - first]) joined = end[first];
        // Or a σ φ on h whose arms are where the sides end (`if (!a) { if
        // (f() > 3) { log(); continue; } }`: going on joins past the log,
        // but this `if` at the call).
        if (const auto on_h = state_phis_.find(h); !joined && on_h != state_phis_.end())
          for (std::uint32_t s : on_h->second)
            if (resolve(node(s).children[1]) == resolve(end[0]) &&
                resolve(node(s).children[2]) == resolve(end[1])) {
              joined = s;
              break;
            }
        if (!joined) fail(guard, "an exit test that moves memory on a path that goes on");
      }
      cur_ = start;
      emit(ir::Stmt::if_(hv, std::move(blocks[0]), std::move(blocks[1])));
      know(c, false);
      if (joined) {
        cur_ = *joined;
        mark_reached(*joined);
      }
      return goes_on[0] || goes_on[1];
    };
    // A guard that needs a call made only on the way out, where h holds
    // (`if (h) { if (f()) break; else return; }`: whether the loop breaks
    // needs the call).
    if (const std::optional<std::uint32_t> h = test_split_on(guard)) return split_on(*h);
    // φ(g, A, true): leave unless g, then test A knowing g; and the mirror.
    // When g is a φ on A (`if (A) return; if (f()) break;` leaves where
    // φ(A, false, B) or A holds), A is tested first: g then decides to B,
    // whose effects only paths where A fails make; so when g is a φ on !A.
    // Where the φ leaves on g, what is left to test is g, on its arm for A
    // false (which may need a σ φ's branch, above). Both as they are and as
    // the known conditions decide them.
    const auto guard_on = [&](std::uint32_t g_test, std::uint32_t a, bool or_negation) {
      return g_test == a || (or_negation && (negation_of(g_test) == a || negation_of(a) == g_test));
    };
    // A guard known here (a peeled iteration decided it for the loop) is
    // this φ's value, read below: its `if` would exit where it cannot.
    for (const bool leaves_when : {false, true}) {
      if (known(leaves_when ? then_ : else_) != true || known(guard)) continue;
      const std::uint32_t other = leaves_when ? else_ : then_;
      // φ(g, true, B) with B known false here (an exit tested before it):
      // the test is g itself, tested as an exit test, not as a value (`if
      // (a) { if (f()) continue; return 2; } if (b) return 3;` after the
      // exit on !a && b: g makes the call only where a holds).
      if (leaves_when && known(other) == false && !lookup(c))
        return exit_test(guard, exit, iteration);
      if (node(guard).kind() == Kind::Phi && !known(other) &&
          (guard_on(node(guard).children[0], other, leaves_when) ||
           guard_on(decided(node(guard).children[0]), decided(other), leaves_when))) {
        const ir::ExprPtr a = value(other);  // before the exit, which reads it
        emit(ir::Stmt::if_(a, exit(other, true)));
        know(other, false);
        return exit_test(leaves_when ? guard : c, exit, iteration);
      }
      // A guard that reads memory not made yet, a call's or a store's: its
      // own condition first, where that decides to leave (`if (!a) break;
      // if (p[0] > 0) break;` after a store where a holds); else, where the
      // other arm reads none (`if (a) break; if (b) continue 2; if (f())
      // break;` leaves where (a || f()) || b), the other arm first. Then
      // the rest. Each exit made before those effects reads the memory
      // from before them.
      if (!known(other) && !unmade_reads(guard).empty()) {
        const PegNode& d = node(decided(guard));
        if (d.kind() == Kind::Phi && unmade_reads(d.children[0]).empty())
          for (const bool h_leaves : {true, false}) {
            if (known(d.children[h_leaves ? 1 : 2]) != leaves_when) continue;
            const std::uint32_t h = d.children[0];
            ir::ExprPtr hv = value(h);
            if (!h_leaves) hv = ir::unary(ir::UnaryOp::Not, hv);
            emit(ir::Stmt::if_(hv, exit(h, h_leaves)));
            know(h, !h_leaves);
            return exit_test(c, exit, iteration);
          }
        std::unordered_map<std::uint32_t, bool> memo;
        if (unmade_reads(other).empty() && (defined(other) || speculatable_now(other, memo))) {
          const ir::ExprPtr b = value(other);
          emit(ir::Stmt::if_(b, exit(other, true)));
          know(other, false);
          return exit_test(c, exit, iteration);
        }
        if (const std::optional<TestSite> site = phi_deciding_test(c))
          return make_test_inside(*site, c, false);
        // The other arm a φ on the guard's condition h too (`if (h) {} else
        // { a = f(); if (p[0]) break; return; }` leaves where h fails,
        // either way), or on !h (`if (k > a) return 2; loop { if (b)
        // return f(); if (c) break 2; }`: returned on k > a, broke where
        // it fails): on h first, which decides both.
        const auto same_or_negated = [&](std::uint32_t x, std::uint32_t y) {
          return x == y || negation_of(x) == y || negation_of(y) == x;
        };
        if (const PegNode& o = node(other); d.kind() == Kind::Phi && o.kind() == Kind::Phi &&
                                            same_or_negated(o.children[0], d.children[0]) &&
                                            !known(d.children[0]) &&
                                            unmade_reads(d.children[0]).empty())
          return split_on(d.children[0]);
        // Else a guard that is a φ itself (`if (h) { loop; if (a) return; }
        // if (f()) break;` leaves where φ(h, a, false) or the call says so):
        // the guard tested as an exit test on its own, then the other arm.
        if (leaves_when && node(guard).kind() == Kind::Phi) {
          if (!exit_test(guard, exit, iteration)) return false;
          return exit_test(other, exit, iteration);
        }
      }
      ir::ExprPtr g = value(guard);
      if (!leaves_when) g = ir::unary(ir::UnaryOp::Not, g);
      emit(ir::Stmt::if_(g, exit(guard, leaves_when)));
      know(guard, !leaves_when);
      return exit_test(leaves_when ? else_ : then_, exit, iteration);
    }
    // φ(g, A, false): leave only where g holds and then A does. When A reads
    // what a σ φ going on needs makes where g holds (`if (g) { t = f();
    // if (t) break; p[2] = 0; }`), A is tested inside that σ φ's `if`, after
    // the effects it reads; and the mirror. Where that `if` is on another
    // condition than g, those effects come first in its branch, then the
    // whole test. Also when A reads nothing unmade but going on reads the
    // branches of a σ φ on g that leaving needs too (`if (g) { p[0] = 1;
    // if (t) break; x = p[1]; }`): its side's effects, then A, inside.
    // A guard that reads memory both ways make (`if (b) loop; if (a < v ||
    // c) { p[0] = 1; if (p[1] > 0) break; }`, v the loop's): those effects
    // first, so the guard is a value the test can branch on.
    if (splits(guard)) reach_effects_both_ways_make(guard);
    for (const bool holds : {true, false}) {
      if (known(holds ? else_ : then_) != false) continue;
      const std::uint32_t test = holds ? then_ : else_;
      if (const std::optional<TestSite> site = phi_making_test_reads(guard, holds, test))
        return make_test_inside(*site, test, site->branch == guard);
    }
    // A φ whose arm reads memory only leaving makes, where its guard holds
    // (`if (g) { x = f(); if (x) return; return; }`: the arm is true, but
    // made of the call): on the guard, the arm tested inside.
    if (const std::optional<std::uint32_t> h = test_split_on(c)) return split_on(*h);
  }
  reach_effects_both_ways_make(c);
  ir::ExprPtr t = value(c);
  emit(ir::Stmt::if_(t, exit(c, true)));
  know(c, false);
  return true;
}

void Emitter::reach_effects_both_ways_make(std::uint32_t test) {
  NodeSet ahead;
  {
    NodeSetMemoHandle memo = node_set_memo();
    const NodeSet& r = lazy_reads(test, *memo);
    if (std::none_of(r.begin(), r.end(),
                     [&](std::uint32_t s) { return s != kNoBlame && !reached(s); }))
      return;
    const Marks none = marks();
    for (std::uint32_t n : bundles_.back().must)
      if (node(n).type().is_state() && !reached(n) && effects_ahead(n, none, {}))
        ahead.push_back(n);
  }
  for (std::uint32_t n : ahead)
    if (!reached(n)) reach(n);
}

std::vector<std::uint32_t> Emitter::going_on_joins_here(std::uint32_t end) {
  std::vector<std::uint32_t> out;
  if (bundles_.empty()) return out;
  for (std::uint32_t s : bundles_.back().going_on) {
    const PegNode& p = node(s);
    // (A side that made s itself, a split inside it joining there, ends at it.)
    if (p.kind() != Kind::Phi || !p.type().is_state() || (reached(s) && s != end)) continue;
    spend(1);
    if (end == s || resolve_by_cases(s) == resolve(end)) out.push_back(s);
  }
  return out;
}

std::uint32_t Emitter::resolve_by_cases(std::uint32_t state) const {
  // (One level of arms: `self` recurses once at most.)
  const auto decide = [&](const auto& self, std::uint32_t s, bool both_arms) -> std::uint32_t {
    for (unsigned i = 0; i < g_.nodes.size(); ++i) {
      s = resolve(s);
      const PegNode& p = node(s);
      if (p.kind() != Kind::Phi) break;
      if (const std::optional<bool> c = implied(p.children[0])) {
        s = p.children[*c ? 1 : 2];
        continue;
      }
      if (!both_arms) break;
      // Its arms decided to one σ (`if (g) { if (h) continue; } ...` where
      // g holds: the σ φ going on on g's `continue` flag).
      const std::uint32_t a = self(self, p.children[1], false),
                          b = self(self, p.children[2], false);
      if (a != b) break;
      s = a;
    }
    return s;
  };
  return decide(decide, state, true);
}

std::uint32_t Emitter::decided(std::uint32_t n) const {
  for (std::size_t k = 0; k < g_.nodes.size() && node(n).kind() == Kind::Phi; ++k) {
    const std::optional<bool> c = known(node(n).children[0]);
    if (!c) break;
    n = node(n).children[*c ? 1 : 2];
  }
  return n;
}

std::optional<std::uint32_t> Emitter::test_split_on(std::uint32_t guard) {
  if (!split_exit_tests_) return std::nullopt;
  const std::uint32_t g = decided(guard);
  const PegNode& p = node(g);
  if (p.kind() != Kind::Phi || known(g)) return std::nullopt;
  std::uint32_t h = p.children[0];
  if (known(h)) return std::nullopt;
  // A condition that reads such memory itself (`if (a) { if (f() > 3)
  // return; break; } if (b) break;` leaves where φ(a, f() <= 3, false) or
  // φ(a, false, b)): on the condition its own `if` branches on first.
  const bool condition_reads = splits(h);
  if (condition_reads) {
    const std::optional<std::uint32_t> first = first_branch(h);
    if (!first || *first == h || known(*first) || splits(*first)) return std::nullopt;
    h = *first;
  }
  // Where going on joins memory on h, a σ φ makes g (effect_phi), the test
  // going inside its `if` (phi_making_test_reads); not where both of g's
  // arms test (`if (h) { loop; if (a) break; } else { if (b) break; p[1] =
  // 0; }`): the split joins at the exit's σ φ on h, which going on follows.
  const NodeSet& going_on = bundles_.back().going_on;
  const auto goes_on_with = [&](std::uint32_t s) {
    return std::binary_search(going_on.begin(), going_on.end(), s);
  };
  const bool both_arms_test = !known(p.children[1]) && !known(p.children[2]);
  if (const auto on_h = state_phis_.find(h); on_h != state_phis_.end() && !both_arms_test)
    for (std::uint32_t sigma : on_h->second)
      if (!reached(sigma) && goes_on_with(sigma)) return std::nullopt;
  // An arm reads memory a call, a store or a Demand leaves that only
  // leaving makes.
  NodeSetMemoHandle memo = node_set_memo();
  for (int side = condition_reads ? 0 : 1; side <= 2; ++side) {
    const NodeSet& r = lazy_reads(p.children[side], *memo);
    if (std::any_of(r.begin(), r.end(), [&](std::uint32_t s) {
          return s != kNoBlame && !reached(s) &&
                 (both_arms_test || (!goes_on_with(s) && (node(s).kind() == Kind::ProjState ||
                                                          node(s).kind() == Kind::Store ||
                                                          node(s).kind() == Kind::Demand)));
        }))
      return h;
  }
  return std::nullopt;
}

void Emitter::run_common_work(std::uint32_t test, std::optional<std::uint32_t> test_inside) {
  if (bundles_.back().roots.empty()) return;
  // The values the test is made of (through φs and pure operators): a σ φ
  // over one of them chooses by the test still pending.
  Marks in_test = marks();
  {
    std::vector<std::uint32_t> todo{test};
    while (!todo.empty()) {
      const std::uint32_t n = todo.back();
      todo.pop_back();
      const PegNode& p = node(n);
      if (!in_test.insert(n) || lookup(n)) continue;
      spend(1);
      if (p.kind() == Kind::Phi || is_pure_value_op(p.kind()))
        for (std::uint32_t c : p.children) todo.push_back(c);
    }
  }
  const NodeSet common = bundles_.back().must;
  // The exit's and the next iteration's values; the test (the first root)
  // is computed where it is tested.
  std::vector<std::uint32_t> roots(bundles_.back().roots.begin() + 1, bundles_.back().roots.end());
  std::sort(roots.begin(), roots.end());
  // Effects first: a σ φ emits the value φs of its condition that read
  // inside its branches with it, which values below may need.
  NodeSet decided = bundles_.back().decided_by_leaving;
  if (test_inside) std::erase(decided, *test_inside);
  // Not a σ φ whose condition reads effects the test reads too, not made
  // yet (`if (a) { if (b && f() > 3) return; continue; }` goes on by a
  // σ φ on whether the call returned): made after the test, which decides
  // it, rather than ahead of it on the paths that leave.
  std::optional<NodeSet> test_needs;
  const auto chooses_by_test_effects = [&](std::uint32_t n) {
    const PegNode& p = node(n);
    if (p.kind() != Kind::Phi || !splits(p.children[0])) return false;
    if (!test_needs) test_needs = unmade_reads(test);
    const NodeSet cond_needs = unmade_reads(p.children[0]);
    return !intersect(*test_needs, cond_needs).empty();
  };
  for (std::uint32_t n : common)
    if (node(n).type().is_state() && !reached(n) && effects_ahead(n, in_test, decided) &&
        !chooses_by_test_effects(n))
      reach(n);
  for (std::uint32_t n : common) {
    const PegNode& p = node(n);
    if (!p.type().is_ir() || lookup(n)) continue;
    const bool loop = p.kind() == Kind::Eval && !invariant_eval(n);
    const bool root = std::binary_search(roots.begin(), roots.end(), n);
    // A value φ both ways need is one `if` ahead of the test, when its
    // branches read no memory but the current one.
    const bool phi = root && p.kind() == Kind::Phi && reads_only_current(n);
    if (loop || phi || (is_pure_value_op(p.kind()) && root)) {
      materialize(n);
    }
  }
}

bool Emitter::runs_every_pass(std::uint32_t eval, eqsat::Id pass) const {
  const PegNode& e = node(eval);
  return in_.total && (in_.total(e.eclass, pass) || in_.total(node(e.children[1]).eclass, pass));
}

bool Emitter::reads_only_current(std::uint32_t n) {
  NodeSetMemoHandle memo = node_set_memo();
  const NodeSet& r = lazy_reads(n, *memo);
  return std::all_of(r.begin(), r.end(), [&](std::uint32_t s) { return s == cur_; });
}

bool Emitter::may_run_loop(std::span<const std::uint32_t> roots, unsigned effects_of,
                           unsigned first, unsigned last) {
  std::vector<std::uint32_t> todo(roots.begin(), roots.end());
  Marks seen = marks();
  for (std::size_t walked = 0; !todo.empty();) {
    // Too far to tell: a loop may lie beyond.
    if (walked == kMayRunWalk) return true;
    const std::uint32_t n = todo.back();
    todo.pop_back();
    const PegNode& q = node(n);
    // Into the values that lead to a loop and the effects of an iteration.
    const bool effect = effects_of > 0 && q.type().is_state() && q.kind() != Kind::Theta &&
                        (g_.variant[n] & (std::uint64_t{1} << (effects_of - 1))) != 0;
    if (!(leads_to_loop_[n] || effect) || lookup(n) || !seen.insert(n)) continue;
    ++walked;
    spend(1);
    if (q.kind() == Kind::Eval) {
      if (q.loop() >= first && q.loop() <= last) return true;
    } else {
      for (std::uint32_t c : q.children) todo.push_back(c);
    }
  }
  return false;
}

bool Emitter::effects_ahead(std::uint32_t state, const Marks& in_test,
                            const NodeSet& decided_by_leaving) {
  std::uint32_t x = resolve(state);
  for (std::size_t steps = 0; x != cur_; ++steps) {
    if (steps > g_.nodes.size() || !is_producer(x)) return false;
    if (node(x).kind() == Kind::Phi && in_test.contains(node(x).children[0]) &&
        !std::binary_search(decided_by_leaving.begin(), decided_by_leaving.end(), x))
      return false;
    const std::optional<std::uint32_t> in = input_of(x);
    if (!in) return false;
    x = resolve(*in);
  }
  return true;
}

bool Emitter::bound_here(std::uint32_t root, unsigned loop) const {
  // Every θ reachable from root is a variable of this loop, of a loop open
  // here (so its value or σ is available), or of a loop an eval on the way encloses (one pass_ℓ can
  // serve loops in different places: loops may only be fused where both can be).
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> todo{{root, std::uint64_t{1} << (loop - 1)}};
  while (!todo.empty()) {
    const auto [n, bound] = todo.back();
    todo.pop_back();
    // A value computed here, or a σ memory has been in here (an enclosing
    // loop's σ θ), is available whatever θs it holds.
    if (lookup(n) || reached(n) || !seen.insert((std::uint64_t{n} << 6) ^ bound).second) continue;
    const PegNode& p = node(n);
    std::uint64_t inner = bound;
    if (p.kind() == Kind::Theta && (bound & (std::uint64_t{1} << (p.loop() - 1))) == 0)
      return false;
    if (p.kind() == Kind::Eval || p.kind() == Kind::Pass)
      inner |= std::uint64_t{1} << (p.loop() - 1);
    for (std::uint32_t c : p.children) todo.emplace_back(c, inner);
  }
  return true;
}

void Emitter::read_invariants_before(unsigned loop, std::span<const std::uint32_t> roots,
                                     std::span<const std::uint32_t> thetas) {
  const std::uint64_t bit = std::uint64_t{1} << (loop - 1);
  std::vector<std::uint32_t> todo(roots.begin(), roots.end());
  for (std::uint32_t t : thetas) todo.push_back(node(t).children[1]);
  Marks seen = marks();
  NodeSetMemoHandle memo = node_set_memo();
  while (!todo.empty()) {
    const std::uint32_t n = todo.back();
    todo.pop_back();
    if (!seen.insert(n) || lookup(n) || reached(n)) continue;
    spend(1);
    const PegNode& q = node(n);
    if ((g_.variant[n] & bit) == 0 && g_.depth(n) < loop && q.type().is_ir() && defined(n) &&
        !in_progress_.contains(n)) {
      const NodeSet r = lazy_reads(n, *memo);
      if (r.size() == 1 && r.front() == cur_) {
        materialize(n);
        memo->clear();
        continue;
      }
    }
    for (std::uint32_t c : q.children) todo.push_back(c);
  }
}

std::vector<std::uint32_t> Emitter::evals_needed_first(
    std::uint32_t pass, std::span<const std::uint32_t> thetas) const {
  // The loop reads them before it starts or, invariant in it, in its body.
  std::vector<std::uint32_t> out, todo;
  for (std::uint32_t t : thetas)
    todo.insert(todo.end(), {node(t).children[0], node(t).children[1]});
  Marks seen = marks();
  while (!todo.empty()) {
    const std::uint32_t n = todo.back();
    todo.pop_back();
    if (!seen.insert(n) || lookup(n)) continue;
    const PegNode& p = node(n);
    if (p.kind() == Kind::Eval && p.children[1] == pass && p.type().is_ir() && !invariant_eval(n))
      out.push_back(n);
    // An enclosing loop's θ is its variable, already there.
    if (p.kind() == Kind::Theta) continue;
    for (std::uint32_t c : p.children) todo.push_back(c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint32_t> Emitter::evals_before_effects(std::uint32_t pass,
                                                         std::uint32_t state_out) const {
  const std::uint32_t root[] = {node(state_out).children[0]};
  std::vector<std::uint32_t> thetas = loop_thetas(node(pass).loop(), root);
  std::erase_if(thetas, [&](std::uint32_t t) { return !node(t).type().is_state(); });
  return evals_needed_first(pass, thetas);
}

void Emitter::loop(std::uint32_t pass, std::uint32_t trigger) {
  loop(pass, trigger, {});
}

void Emitter::loop(std::uint32_t pass, std::uint32_t trigger, std::span<const std::uint32_t> only) {
  const PegNode& pass_node = node(pass);
  const unsigned l = pass_node.loop();
  const std::uint64_t bit = std::uint64_t{1} << (l - 1);  // what varies in the loop
  if (pass_node.kind() != Kind::Pass) fail(trigger, "an eval over something other than a pass");
  // Making a loop reaches the σ it starts from, which may make other loops
  // first, each at most once on the way: more loops being made than there
  // are is a cycle (a random program's loops waited on each other through
  // their σs, and reversion recursed until the stack ran out).
  if (loops_entered_ > 2 * evals_of_.size() + 2)
    fail(trigger, "loops whose starts need each other");
  ++loops_entered_;
  struct Leave {
    std::size_t& entered;
    ~Leave() { --entered; }
  } leave{loops_entered_};
  // ℓ names the loop; where it is emitted depends on where its results are
  // demanded (a loop independent of an enclosing one may sit outside it, a
  // loop whose result a loop body needs is recomputed there).
  const std::uint32_t cond = pass_node.children[0];

  // The evals this loop serves. Source loops merged for their equal bounds
  // (to_peg's LoopFacts::evals): those of the trigger's source loop, so
  // that two effectful loops, two exit states, are two loops again.
  std::vector<std::uint32_t> pass_evals =
      only.empty() ? evals_of_[pass] : std::vector(only.begin(), only.end());
  if (only.empty() && in_.source_loop) {
    if (const std::optional<unsigned> source = in_.source_loop(node(trigger).eclass)) {
      std::erase_if(pass_evals, [&](std::uint32_t e) {
        const std::optional<unsigned> k = in_.source_loop(node(e).eclass);
        return k && *k != *source;
      });
    }
  }

  // The loop's outputs: the σ it leaves (an effectful loop runs where σ's
  // chain reaches it) and the values that are needed now or safe to compute.
  std::optional<std::uint32_t> state_out;
  for (std::uint32_t e : only.empty() ? pass_evals : std::vector<std::uint32_t>{})
    if (node(e).type().is_state() && !invariant_eval(e)) {
      if (state_out) fail(e, "a loop with two exit states");
      state_out = e;
    }
  if (state_out && trigger != *state_out) {
    // A value the effectful loop's start needs (the PEG shares one pass
    // between it and an earlier loop): that earlier loop is emitted alone.
    if (const std::vector<std::uint32_t> first = evals_before_effects(pass, *state_out);
        std::binary_search(first.begin(), first.end(), trigger)) {
      loop(pass, trigger, first);
      return;
    }
    // The effectful loop ran in a branch already made (its σ is off the
    // chain ahead): a value needed now, from a source loop merged with it,
    // is computed by a loop of its own.
    if (!can_reach(*state_out)) {
      loop(pass, trigger, std::vector<std::uint32_t>{trigger});
      return;
    }
    wanted_.push_back(trigger);
    reach(*state_out);
    wanted_.pop_back();
    return;
  }
  const NodeSet* must_now = bundles_.empty() ? nullptr : &bundles_.back().must;
  std::vector<std::uint32_t> outputs;
  for (std::uint32_t e : pass_evals) {
    if (node(e).type().is_state() || lookup(e) || invariant_eval(e)) continue;
    const std::uint32_t x = node(e).children[0];
    const bool needed = e == trigger ||
                        std::find(wanted_.begin(), wanted_.end(), e) != wanted_.end() ||
                        (must_now && std::binary_search(must_now->begin(), must_now->end(), e));
    const bool safe = speculatable_[x] || defined(e) || in_.total(node(x).eclass, pass_node.eclass);
    if (needed || (safe && bound_here(x, l))) outputs.push_back(e);
  }

  std::vector<std::uint32_t> roots{cond};
  for (std::uint32_t e : outputs) roots.push_back(node(e).children[0]);
  if (state_out) roots.push_back(node(*state_out).children[0]);
  const std::vector<std::uint32_t> thetas = loop_thetas(l, roots);
  std::optional<std::uint32_t> state_theta;
  std::vector<std::uint32_t> value_thetas;
  for (std::uint32_t t : thetas) {
    if (g_.depth(node(t).children[0]) >= l) fail(t, "a θ whose initial value varies in its loop");
    if (!node(t).type().is_state()) {
      value_thetas.push_back(t);
    } else if (state_theta) {
      fail(t, "a loop with two σ θs");
    } else {
      state_theta = t;
    }
  }

  // Two loops the PEG shares a pass between (the same exit condition), the
  // second starting from the first's results: the first is a loop of its own.
  if (only.empty()) {
    if (const std::vector<std::uint32_t> first = evals_needed_first(pass, thetas); !first.empty()) {
      loop(pass, first.front(), first);
      loop(pass, trigger);
      return;
    }
  } else if (state_theta) {
    fail(trigger, "a loop's values needed before it, that need its effects");
  }

  // A loop that leaves memory alone reads one σ: memory must be there first.
  if (!state_theta) {
    NodeSetMemoHandle memo = node_set_memo();
    NodeSet reads, every_pass;
    for (std::uint32_t r : roots) unite_into(reads, lazy_reads(r, *memo));
    for (std::uint32_t t : thetas) unite_into(reads, lazy_reads(node(t).children[1], *memo));
    // What the exit test reads on every pass: not what only a φ's arm reads
    // (an inner loop run where an `if` holds: the exit makes it).
    {
      const std::uint32_t test[] = {cond};
      const NodeSet tested = must(test, l);
      const auto in_tested = [&](std::uint32_t n) {
        return std::binary_search(tested.begin(), tested.end(), n);
      };
      for (std::uint32_t st : lazy_reads(cond, *memo)) {
        if (st == kNoBlame) {
          every_pass.push_back(st);
          continue;
        }
        const PegNode& q = node(st);
        const bool certain =
            in_tested(st) || (q.kind() == Kind::ProjState && in_tested(q.children[0])) ||
            (q.kind() == Kind::Eval && std::ranges::any_of(evals_of_.at(q.children[1]), in_tested));
        if (certain) every_pass.push_back(st);
      }
    }
    for (std::uint32_t t : thetas) unite_into(every_pass, lazy_reads(node(t).children[1], *memo));
    // A σ that varies in the loop is made in it, on its way out (a loop
    // that leaves after one pass makes its effects at the exit); so is one
    // on the way to the exit σ that only the values at the exit read (a
    // store on the path of a `break`, with a load after it): the exit
    // makes it before those values.
    const NodeSet way_out = state_out ? states_towards(node(*state_out).children[0]) : NodeSet{};
    std::erase_if(reads, [&](std::uint32_t st) {
      return st == kNoBlame || st == cur_ || reached(st) || overwritten(st) ||
             (g_.variant[st] & bit) != 0 ||
             (std::binary_search(way_out.begin(), way_out.end(), st) &&
              !std::binary_search(every_pass.begin(), every_pass.end(), st));
    });
    if (reads.size() > 1) fail(trigger, "a loop that reads memory at two different times");
    if (reads.size() == 1) {
      // Reaching that σ must not need this loop's own results.
      if (!reaching_for_.insert(pass).second) fail(trigger, "a loop that reads memory it produces");
      reach(reads.front());
      reaching_for_.erase(pass);
    }
  }

  // What the first exit test evaluates, outside the loop: the invariant part
  // is hoisted, and the θs it reads have safe initial values. So is what
  // it evaluates once its φs on the loop's constant start fold (`k < 5 &&
  // t`, k from 0, evaluates t), but for work that runs a loop, which code
  // after this one may run again, reads memory other than the current, or
  // chooses (a φ's `if` flushes the readers of memory, which may run one).
  const std::uint32_t cond_root[] = {cond};
  const NodeSet first_test = must(cond_root, l);
  const NodeSet first_test_folded = must(cond_root, l, true);
  const auto hoistable = [&](std::uint32_t n) {
    const PegNode& q = node(n);
    return (std::binary_search(first_test.begin(), first_test.end(), n) ||
            (!leads_to_loop_[n] && q.kind() != Kind::Phi &&
             std::binary_search(first_test_folded.begin(), first_test_folded.end(), n) &&
             reads_only_current(n))) &&
           g_.depth(n) < l && q.type().is_ir() && !lookup(n) && q.kind() != Kind::Eval &&
           q.kind() != Kind::Const && q.kind() != Kind::Param && q.kind() != Kind::Table;
  };
  // Operands before their users, so that a user reads its operand's temporary
  // rather than computing it again inside its own expression.
  Marks expanded = marks();
  for (std::uint32_t start : first_test_folded) {
    std::vector<std::pair<std::uint32_t, bool>> todo{{start, false}};
    while (!todo.empty()) {
      const auto [n, operands_done] = todo.back();
      todo.pop_back();
      if (!hoistable(n)) continue;
      if (!operands_done) {
        if (!expanded.insert(n)) continue;
        todo.emplace_back(n, true);
        for (std::uint32_t c : node(n).children) todo.emplace_back(c, false);
        continue;
      }
      materialize(n);
    }
  }
  // Invariant work that cannot trap is computed once, before the loop.
  {
    std::vector<std::uint32_t> todo = roots;
    for (std::uint32_t t : thetas) todo.push_back(node(t).children[1]);
    std::vector<std::uint32_t> trapping;  // invariant work left where it is
    // Work on operands computed already (a division by a value the loop
    // does not change, done before it) cannot trap either.
    std::unordered_map<std::uint32_t, bool> speculatable_here;
    Marks seen = marks();
    while (!todo.empty()) {
      const std::uint32_t n = todo.back();
      todo.pop_back();
      if (!seen.insert(n) || lookup(n)) continue;
      spend(1);
      const PegNode& q = node(n);
      if ((g_.variant[n] & bit) != 0) {
        for (std::uint32_t c : q.children) todo.push_back(c);
        continue;
      }
      const bool value_op =
          is_pure_value_op(q.kind()) || (q.kind() == Kind::Phi && q.type().is_ir());
      if (g_.depth(n) < l && value_op && speculatable_now(n, speculatable_here)) {
        materialize(n);
      } else {
        trapping.push_back(n);
      }
    }
    // So is an invariant loop in that work, or in an inner loop's, that the
    // source runs on every call (`defined`) and that reads no memory but
    // the current one: run in the body (for a store made there, or an inner
    // loop's start or bound), it was out of sight of the code after the
    // loop, which ran it again. Likewise, after those loops (a branch may
    // read one of them), a value φ whose branch runs such a loop (`if (a)
    // { loop }` before this loop, in an outer loop's body), or that varies
    // in no loop but the open ones (`if (a) x = y % z;` before the loop:
    // the source makes it once, the body made it every iteration).
    todo = std::move(trapping);
    std::vector<std::uint32_t> phis_with_loops, phis_of_open_loops;
    while (!todo.empty()) {
      const std::uint32_t n = todo.back();
      todo.pop_back();
      spend(1);
      const PegNode& q = node(n);
      const bool before_loop =
          q.type().is_ir() && g_.depth(n) < l && defined(n) && reads_only_current(n);
      if (before_loop && q.kind() == Kind::Eval && !invariant_eval(n)) {
        materialize(n);
        continue;
      }
      if (before_loop && q.kind() == Kind::Phi) {
        if (may_run_inner_loop(std::span(&n, 1), depth_)) {
          phis_with_loops.push_back(n);
          continue;
        }
        if (g_.depth(n) <= depth_ && of_open_loops(n)) {
          phis_of_open_loops.push_back(n);
          continue;
        }
      }
      // Into an inner loop whatever it evaluates; elsewhere into values
      // only, not memory: both arms of a value φ, the operands of a load or
      // a call (what is made here is defined anyway), a σ φ's condition.
      const bool inner_loop = g_.depth(n) > l || q.kind() == Kind::Pass || q.kind() == Kind::Eval;
      for (std::uint32_t c : q.children)
        if ((inner_loop || node(c).type().is_ir()) && seen.insert(c) && !lookup(c))
          todo.push_back(c);
    }
    const auto compute = [&](std::uint32_t n) {
      if (lookup(n) || in_progress_.contains(n)) return;
      materialize(n);
    };
    for (std::uint32_t n : phis_with_loops) compute(n);
    // Those that run no loop read none of this loop's values, which are not
    // ready before it: a φ group's loops run first (run_must_loops) must not
    // make this loop again for them.
    std::vector<std::uint32_t> own_values;
    for (std::uint32_t e : evals_of_.at(pass))
      if (in_progress_.insert(e).second) own_values.push_back(e);
    for (std::uint32_t n : phis_of_open_loops) compute(n);
    for (std::uint32_t e : own_values) in_progress_.erase(e);
  }
  std::vector<ir::ExprPtr> inits;
  for (std::uint32_t t : value_thetas) {
    const std::uint32_t init = node(t).children[0];
    const bool safe = lookup(init) || speculatable_[init] ||
                      std::binary_search(first_test.begin(), first_test.end(), t) ||
                      in_.total(node(t).eclass, pass_node.eclass);
    if (!safe) fail(t, "a loop variable whose initial value would be speculated");
    inits.push_back(value(init));
  }
  if (state_theta) {
    reach(node(*state_theta).children[0]);
    read_invariants_before(l, roots, thetas);
  }
  // While the loop is made, readers flushed ahead of it that need one of
  // its values are left for later (a branch would make the loop again).
  loops_in_progress_.push_back(pass);
  struct Made {
    std::vector<std::uint32_t>& passes;
    ~Made() { passes.pop_back(); }
  } made{loops_in_progress_};
  flush_readers();
  // Flushing may have emitted this very loop (another of its values reads
  // the memory here): it is there, once.
  if (lookup(trigger) || (state_out && reached(*state_out))) return;
  if (state_theta && !memory_at(resolve(node(*state_theta).children[0])))
    fail(*state_theta, "a loop entered with another σ than its θ's");

  std::vector<ir::VarId> vars;
  for (std::size_t i = 0; i < value_thetas.size(); ++i) {
    const ir::VarId v = new_var(node(value_thetas[i]).type().ir(), 'v');
    emit(ir::Stmt::decl(v, inits[i]));
    vars.push_back(v);
  }
  std::vector<ir::VarId> results;
  for (std::uint32_t e : outputs) {
    const ir::VarId v = new_var(node(e).type().ir(), 'r');
    emit(ir::Stmt::decl(v));
    results.push_back(v);
  }

  const std::uint32_t entry = cur_;
  const auto exit = [&](std::uint32_t guard, bool guard_value) {
    ir::Block b;
    const std::uint32_t here = cur_;
    in_scope(b, [&] {
      know(guard, guard_value);
      scopes_.back().leaves_loop = true;
      std::vector<std::uint32_t> exit_roots;
      for (std::uint32_t e : outputs) exit_roots.push_back(node(e).children[0]);
      if (state_out) exit_roots.push_back(node(*state_out).children[0]);
      const std::vector<ir::ExprPtr> values = bundle(exit_roots);
      for (std::size_t i = 0; i < outputs.size(); ++i)
        emit(ir::Stmt::assign(results[i], values[i]));
      emit(ir::Stmt::break_());
    });
    cur_ = here;
    return b;
  };

  std::vector<std::uint32_t> exit_roots, next_roots;
  for (std::uint32_t e : outputs) exit_roots.push_back(node(e).children[0]);
  if (state_out) exit_roots.push_back(node(*state_out).children[0]);
  for (std::uint32_t t : value_thetas) next_roots.push_back(node(t).children[1]);
  if (state_theta) next_roots.push_back(node(*state_theta).children[1]);
  // A scope for one iteration: what varies in the loop is not seen from
  // outside; the θs are the loop variables; σ is the iteration's. The one
  // pass of a single-pass loop sees the conditions known outside (know()
  // recorded its values' as its first iteration's); a loop with an exit σ
  // and no σ θ makes effects only on paths that leave it, once.
  const bool one_pass = single_pass(trigger);
  const auto enter_iteration = [&] {
    scopes_.back().barrier = bit;
    scopes_.back().knows_through_barrier = one_pass;
    scopes_.back().pure_loop = !state_theta && !state_out;
    for (std::size_t i = 0; i < value_thetas.size(); ++i) cache(value_thetas[i], read(vars[i]));
    if (state_theta) {
      cur_ = *state_theta;
      mark_reached(*state_theta);
    }
  };
  // One iteration: the exit test with its exits, then the next values.
  // Returns false when every path through it exits.
  const auto iteration_body = [&] {
    // What the rest of the iteration certainly evaluates while the exit test
    // `test` is pending: the test, and what both leaving and going on need.
    const auto iteration = [&](std::uint32_t test) {
      const auto assuming = [&](bool leaves, std::span<const std::uint32_t> roots) {
        ir::Block none;
        NodeSet out;
        in_scope(none, [&] {
          know(test, leaves);
          out = must(roots);
        });
        return out;
      };
      const std::uint32_t test_root[] = {test};
      const NodeSet leaving = assuming(true, exit_roots);
      const NodeSet going_on = assuming(false, next_roots);
      NodeSet certain = unite(must(test_root), intersect(leaving, going_on));
      // A φ going on needs, on a condition g that leaving decides, whose arm
      // for that g leaving needs: either way it is evaluated (where g is
      // so, both need that arm; elsewhere only going on is possible, and
      // needs the φ). Its `if` comes first, and the exit, knowing g, reads
      // the arm the branch computed (an inner loop and its calls in
      // `if (g) { loop; if (h) break; }` were emitted in the exit and again
      // for the next iteration).
      NodeSet decided;
      ir::Block none;
      in_scope(none, [&] {
        know(test, true);
        for (std::uint32_t n : going_on) {
          const PegNode& q = node(n);
          if (q.kind() != Kind::Phi) continue;
          const std::optional<bool> k = known(q.children[0]);
          if (k && std::binary_search(leaving.begin(), leaving.end(), q.children[*k ? 1 : 2]))
            decided.push_back(n);
        }
      });
      certain = unite(certain, decided);
      // And the inner loops the source runs in every iteration before the
      // test (LoopFacts::total) that either way may need, reading no memory
      // but the current one or one the iteration reaches anyway: once,
      // before the test as in the source (run_must_loops), not in a branch
      // of one way and again in the other, or inside the branch of an `if`
      // that a later loop's start waits for.
      NodeSet inner_loops;
      if (in_.total) {
        // The σs both ways reach: the effects before the test, down to the
        // current σ.
        const auto states_down_from = [&](std::optional<std::uint32_t> root) {
          NodeSet out;
          if (!root) return out;
          std::uint32_t x = resolve(*root);
          while (x != cur_ && out.size() <= g_.nodes.size() && is_producer(x)) {
            out.push_back(x);
            const std::optional<std::uint32_t> in = input_of(x);
            if (!in) break;
            x = resolve(*in);
          }
          std::sort(out.begin(), out.end());
          return out;
        };
        const NodeSet reached_anyway =
            intersect(states_down_from(state_out ? std::optional(node(*state_out).children[0])
                                                 : std::nullopt),
                      states_down_from(state_theta ? std::optional(node(*state_theta).children[1])
                                                   : std::nullopt));
        NodeSetMemoHandle memo = node_set_memo();
        Marks seen = marks();
        std::vector<std::uint32_t> todo = exit_roots;
        todo.insert(todo.end(), next_roots.begin(), next_roots.end());
        while (!todo.empty()) {
          const std::uint32_t n = todo.back();
          todo.pop_back();
          // What is invariant here holds no loop of this one's iterations.
          if (!seen.insert(n) || lookup(n) || g_.depth(n) < l) continue;
          spend(1);
          const PegNode& q = node(n);
          for (std::uint32_t c : q.children) todo.push_back(c);
          if (q.kind() != Kind::Eval || !q.type().is_ir() || !runs_every_pass(n, pass_node.eclass))
            continue;
          const NodeSet& reads = lazy_reads(n, *memo);
          if (std::all_of(reads.begin(), reads.end(), [&](std::uint32_t s) {
                return s == cur_ || std::binary_search(certain.begin(), certain.end(), s) ||
                       std::binary_search(reached_anyway.begin(), reached_anyway.end(), s);
              }))
            inner_loops.push_back(n);
        }
        std::sort(inner_loops.begin(), inner_loops.end());
      }
      Bundle b{unite(certain, inner_loops), {test}, std::move(decided), false, going_on};
      b.roots.insert(b.roots.end(), exit_roots.begin(), exit_roots.end());
      b.roots.insert(b.roots.end(), next_roots.begin(), next_roots.end());
      return b;
    };
    bundles_.emplace_back();
    const std::size_t bundle_outside = std::exchange(iteration_bundle_, bundles_.size() - 1);
    const bool continues = exit_test(cond, exit, iteration);
    bundles_.pop_back();
    if (!continues) {
      iteration_bundle_ = bundle_outside;
      return false;
    }
    std::vector<ir::ExprPtr> next = bundle(next_roots);
    iteration_bundle_ = bundle_outside;
    // All loop variables change at once: through temporaries where needed.
    std::vector<std::pair<ir::VarId, ir::ExprPtr>> assigns;
    for (std::size_t i = 0; i < value_thetas.size(); ++i) {
      const ir::ExprPtr& e = next[i];
      if (e->kind == ir::ExprKind::Var && e->var == vars[i]) continue;
      if (e->kind == ir::ExprKind::Const) {
        assigns.emplace_back(vars[i], e);
        continue;
      }
      const ir::VarId t = new_var(e->type, 't');
      emit(ir::Stmt::decl(t, e));
      assigns.emplace_back(vars[i], read(t));
    }
    for (auto& [v, e] : assigns) emit(ir::Stmt::assign(v, std::move(e)));
    return true;
  };

  // Loop-invariant work the iterations certainly do but that may trap (a
  // division, a load, an inner loop) cannot be hoisted out of a loop that
  // may not run; peeling the first iteration computes it there, once, for
  // all the others (Tate, §8.9).
  // Such work that is defined on every call, or that the loop computes on
  // every iteration up to its exit (so in the first one: to_peg's
  // LoopFacts::total), and reads no memory but the current one is done
  // before the loop instead: cached here, it also serves the code after the
  // loop (which emitted an inner loop again, or peeled an iteration for an
  // address computed from a load made before the loop).
  // A first iteration peeled with an inner loop in it, one it runs or may
  // run, going on or on its way out, would emit that loop twice (the
  // function was kept for its duplicated loops): then the work stays in the
  // loop, done at every iteration as in the source.
  bool peel = false;
  bool inner_loop = false;
  std::vector<std::uint32_t> ahead;
  {
    ir::Block none;
    in_scope(none, [&] {
      enter_iteration();
      for (std::uint32_t n : must(next_roots)) {
        const PegNode& q = node(n);
        inner_loop = inner_loop || (q.kind() == Kind::Eval && q.loop() > l && !lookup(n));
        if (!q.type().is_ir() || (g_.variant[n] & bit) != 0 || speculatable_[n] || lookup(n))
          continue;
        const bool first_iteration = in_.total && in_.total(q.eclass, pass_node.eclass);
        // Operations that cannot trap on operands that are defined (a
        // remainder by a constant of a loop's value) are defined too
        // (kMaxDefinedWalk nodes at most).
        const auto defined_operands = [&] {
          constexpr std::size_t kMaxDefinedWalk = 32;
          std::vector<std::uint32_t> todo{n};
          for (std::size_t walked = 0; !todo.empty(); ++walked) {
            const std::uint32_t x = todo.back();
            todo.pop_back();
            if (walked == kMaxDefinedWalk) return false;
            spend(1);
            if (x != n && (lookup(x) || defined(x))) continue;
            const PegNode& p = node(x);
            if (!op_speculatable(p) || p.kind() == Kind::Theta) return false;
            todo.insert(todo.end(), p.children.begin(), p.children.end());
          }
          return true;
        };
        if ((defined(n) || first_iteration || defined_operands()) && reads_only_current(n)) {
          ahead.push_back(n);
        } else {
          peel = true;
        }
      }
      if (peel && !inner_loop)
        inner_loop = may_run_inner_loop(next_roots, l) || may_run_inner_loop(exit_roots, l);
      // An invariant inner loop that only the exit needs, one that every
      // iteration of an enclosing loop runs: before the loop too. Run in
      // the exit, it was out of sight of the code after the loop, which
      // needed it again.
      for (std::uint32_t n : must(exit_roots)) {
        const PegNode& q = node(n);
        if (q.kind() != Kind::Eval || !q.type().is_ir() || (g_.variant[n] & bit) != 0 ||
            speculatable_[n] || lookup(n) || !in_.total)
          continue;
        const bool every_outer_iteration = std::any_of(
            open_passes_.begin(), open_passes_.end(),
            [&](eqsat::Id outer) { return outer != kNoPass && runs_every_pass(n, outer); });
        if (every_outer_iteration && reads_only_current(n)) ahead.push_back(n);
      }
    });
    cur_ = entry;
  }
  if (inner_loop) peel = false;
  for (std::uint32_t n : ahead) {
    if (lookup(n)) continue;
    materialize(n);
  }

  // The loop's own depth, not one more than the loops emitted around it: an
  // enclosing loop that is no loop here (one that leaves before its first
  // pass, whose values are their initial ones) leaves its nodes no deeper.
  const unsigned depth_outside = std::exchange(depth_, l);
  const std::vector<eqsat::Id> passes_outside = open_passes_;
  open_passes_.resize(l - 1, kNoPass);
  open_passes_.push_back(pass_node.eclass);
  ir::Block body;
  // The body runs once: the peeled first iteration, or a loop that always
  // exits in its first iteration (a `break 2` taken at once leaves such an
  // inner loop).
  bool once = peel;
  in_scope(body, [&] {
    enter_iteration();
    // In a peeled first iteration the σ θ is its initial σ.
    const bool first_state = peel && state_theta;
    if (first_state) peeled_states_.push_back(*state_theta);
    const bool continues = iteration_body();
    if (first_state) peeled_states_.pop_back();
    // A first iteration that always exits is the whole loop: nothing
    // follows its break (variables declared after it would be lost).
    if (!continues) once = true;
    if (!continues || !peel) return;
    ir::Block rest;
    in_scope(rest, [&] {
      enter_iteration();
      iteration_body();
    });
    emit_loop(pass, std::move(rest));
  });
  depth_ = depth_outside;
  open_passes_ = passes_outside;
  if (once) {
    // The first iteration is straight-line code: its exits become branches.
    const auto new_flag = [&] { return new_var(ir::Type::bool_(), 'g'); };
    for (ir::Stmt& st : without_breaks(std::move(body), new_flag)) emit(std::move(st));
  } else {
    emit_loop(pass, std::move(body));
  }

  cur_ = entry;
  if (state_out) {
    cur_ = *state_out;
    mark_reached(*state_out);
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) cache(outputs[i], read(results[i]));
}

void Emitter::emit_loop(std::uint32_t pass, ir::Block body) {
  EmittedLoop emitted{pass, {}};
  for (const Scope& scope : scopes_)
    for (const auto& [cond, holds] : scope.known) emitted.known.emplace_back(cond, holds);
  std::sort(emitted.known.begin(), emitted.known.end());
  emitted_loops_.push_back(std::move(emitted));
  emit(ir::Stmt::while_(ir::constant(true), std::move(body)));
}

std::size_t Emitter::exclusive_loop_copies() const {
  constexpr std::size_t kMaxComparedCopies = 64;
  const auto exclusive = [](const EmittedLoop& a, const EmittedLoop& b) {
    auto i = a.known.begin(), j = b.known.begin();
    while (i != a.known.end() && j != b.known.end()) {
      if (i->first == j->first) {
        if (i->second != j->second) return true;
        ++i, ++j;
      } else if (i->first < j->first) {
        ++i;
      } else {
        ++j;
      }
    }
    return false;
  };
  std::unordered_map<std::uint32_t, std::vector<const EmittedLoop*>> by_pass;
  for (const EmittedLoop& e : emitted_loops_) by_pass[e.pass].push_back(&e);
  std::size_t copies = 0;
  for (const auto& [pass, loops] : by_pass) {
    // Pairs are compared: past kMaxComparedCopies, copies count as run twice.
    bool pairwise = loops.size() <= kMaxComparedCopies;
    for (std::size_t i = 0; i < loops.size() && pairwise; ++i)
      for (std::size_t j = i + 1; j < loops.size() && pairwise; ++j)
        pairwise = exclusive(*loops[i], *loops[j]);
    if (pairwise) copies += loops.size() - 1;
  }
  return copies;
}

}  // namespace augur::peg::revert_detail
