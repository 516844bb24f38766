// Internals of reversion (revert.h): the emitter that turns a PegGraph into
// statements. Its pieces are spread over revert_emitter.cpp (scopes, values,
// φ), revert_state.cpp (σ), revert_loop.cpp (loops) and revert_must.cpp
// (MustEval).
//
// Invariants while emitting:
//  - scopes_.back() is where statements go; a node's value found in a scope
//    is valid there and in every scope nested in it (its temp is declared
//    there, before anything that reads it), except inside a loop body for
//    the nodes that vary in that loop (Scope::barrier);
//  - cur_ is the σ node memory holds at the insertion point; producers are
//    emitted only with their input equal to cur_, readers only at their σ;
//  - a value φ's branches leave cur_ unchanged.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/eqsat/stamped_set.h"
#include "runtime/eqsat/time_net.h"
#include "runtime/ir/builder.h"
#include "runtime/peg/revert.h"

namespace augur::peg::revert_detail {

// Reversion cannot proceed; `node` is the PEG node to blame (kNoBlame: none).
inline constexpr std::uint32_t kNoBlame = ~std::uint32_t{0};
struct Failure {
  std::uint32_t node;
  std::string why;
};

using NodeSet = std::vector<std::uint32_t>;  // sorted

NodeSet unite(const NodeSet& a, const NodeSet& b);
// a = a ∪ b, in a's own memory where it has room.
void unite_into(NodeSet& a, const NodeSet& b);
NodeSet intersect(const NodeSet& a, const NodeSet& b);

class Emitter {
 public:
  // With `split_exit_tests`, an exit test whose guard needs a call made only
  // on the way out branches on that call's condition first (test_split_on).
  Emitter(const RevertInput& input, bool split_exit_tests);
  ir::Function run();
  // Whether run() split an exit test: a failure may not be one without.
  bool split_an_exit_test() const { return split_an_exit_test_; }
  // After run(): loops emitted more than once whose copies no run reaches
  // two of (RevertResult::exclusive_loop_copies).
  std::size_t exclusive_loop_copies() const;

 private:
  struct Scope {
    std::unordered_map<std::uint32_t, ir::ExprPtr> values;
    std::unordered_map<std::uint32_t, bool> known;  // conditions known in this scope
    // Of `known`, the boolean φs known while their condition was not, by
    // that condition: once it is known, so is the arm it chooses.
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> phis_by_condition;
    std::unordered_set<std::uint32_t> states;  // σ nodes already reached
    ir::Block* out = nullptr;
    // A loop body's loop bits: what varies in them was computed for another
    // iteration (or another emission of the same θs) outside, so it is not
    // looked up beyond this scope.
    std::uint64_t barrier = 0;
    // A single-pass loop's body: known conditions are looked up past it.
    bool knows_through_barrier = false;
    // In the body of a loop without a σ θ or an exit σ: no effect may happen
    // here (it would repeat with every iteration and be lost to σ's chain
    // outside). With an exit σ and no σ θ, every path that makes an effect
    // leaves the loop.
    bool pure_loop = false;
    // A loop's exit, which ends in `break`: what happens here happens once,
    // as the loop ends (the σ the loop leaves), whatever the loop is.
    bool leaves_loop = false;
    // Values an `if` emitted in this scope computed in one of its branches,
    // into variables declared there: available wherever that branch's
    // condition is known to have held (a loop run in `if (c)` serves a
    // later `if (c)` instead of running again), and those of `if`s nested
    // in such a branch, where all their conditions are known to have held
    // (at most kBranchConditions). A variable used so is declared at the
    // top of the function (finish_hoisting()).
    struct InBranch {
      struct Condition {
        std::uint32_t cond;
        bool holds;
      };
      std::vector<Condition> conditions;  // innermost first
      ir::VarId var;
    };
    std::unordered_map<std::uint32_t, std::vector<InBranch>> in_branches;
    std::uint64_t serial = 0;  // which scope this is, once popped
  };
  struct Bundle {
    NodeSet must;
    std::vector<std::uint32_t> roots;
    // Of `must`, the φs going on needs whose condition leaving decides and
    // whose arm leaving then needs: their `if` may run ahead of the pending
    // exit test though it chooses by a value of that test.
    NodeSet decided_by_leaving;
    // Whether every root is evaluated (not so for a loop iteration's: its
    // exit values only when it leaves, its next values only when not).
    bool roots_certain = true;
    // For a loop iteration's: what going on certainly evaluates.
    NodeSet going_on;
  };

  const PegNode& node(std::uint32_t n) const { return g_.nodes[n]; }
  // eval_ℓ(x, p) with x invariant in ℓ: x itself, whatever the loop does.
  bool invariant_eval(std::uint32_t n) const {
    const PegNode& p = node(n);
    return p.kind() == Kind::Eval &&
           (g_.variant[p.children[0]] & (std::uint64_t{1} << (p.loop() - 1))) == 0;
  }
  [[noreturn]] void fail(std::uint32_t n, std::string why) const;

  // ---------------------------------------------------------- scopes (revert_emitter.cpp)
  ir::ExprPtr lookup(std::uint32_t n) const {
    // Most nodes looked up are in no scope: a count per node answers at once.
    return cached_in_[n] == 0 && in_branches_of_[n] == 0 ? nullptr : lookup_in_scopes(n);
  }
  ir::ExprPtr lookup_in_scopes(std::uint32_t n) const;
  // Whether `cond` is known true or false here (from enclosing branches and
  // guards, and what they imply).
  std::optional<bool> known(std::uint32_t cond) const;
  // x where `n` is !x or φ(x, false, true).
  std::optional<std::uint32_t> negation_of(std::uint32_t n) const;
  std::optional<bool> known(std::uint32_t cond, unsigned depth) const;
  // What the known conditions imply of `cond` by cases: `cond`'s φs and !s
  // over at most kMaxCaseAtoms conditions that are neither (its atoms, and
  // those of the known conditions that share one, while they fit),
  // evaluated under every assignment of them that no known condition
  // contradicts; the value they all give. At a loop's exit by `break`, the
  // loop's `returned` flag is false: known there is that the exit test's
  // first way out held, made of the same atoms.
  std::optional<bool> implied(std::uint32_t cond) const;
  bool reached(std::uint32_t state) const;
  // Records that `cond` is `holds` in the current scope, and what that
  // implies (at most kKnowImplied conditions in all): a single-pass loop's
  // value is its first iteration's; !x; φ(c, a, k) with k a constant other
  // than `holds` took a (c holds), φ(c, k, b) took b; and once c is known,
  // the arm it chooses of a φ(c, a, b) known before.
  void know(std::uint32_t cond, bool holds);
  static constexpr std::size_t kKnowImplied = 8;
  void cache(std::uint32_t n, ir::ExprPtr value) {
    ir::ExprPtr& slot = scopes_.back().values[n];
    if (!slot) ++cached_in_[n];
    slot = std::move(value);
  }
  void mark_reached(std::uint32_t state) {
    if (scopes_.back().states.insert(state).second) ++reached_in_[state];
  }
  // A new innermost scope writing into `out`; pop_scope() leaves it.
  void push_scope(ir::Block* out);
  void pop_scope();
  // Eight: a staged matcher's decision tree three bytes deep computes its
  // last call under eight conditions (TheSecondTreeOfALoopReads…).
  static constexpr std::size_t kBranchConditions = 8;
  // Before a branch's scope is popped: its values held in variables
  // declared in `block`, and its own in_branches, go to the enclosing
  // scope's in_branches.
  void keep_branch_values(const ir::Block& block, std::uint32_t cond, bool holds);
  void emit(ir::Stmt s) {
    spend(1);
    scopes_.back().out->push_back(std::move(s));
  }
  void spend(std::size_t work) const {
    work_ += work;
    if (work_ > in_.max_work) fail(kNoBlame, std::string(kRevertOutOfWork));
    if ((work_ & 0xff) < work && net_.reached()) fail(kNoBlame, std::string(kRevertOutOfTime));
  }
  ir::VarId new_var(ir::Type type, char prefix);
  ir::ExprPtr read(ir::VarId v) const;
  // `var t = e;` and a read of t.
  ir::ExprPtr temp(ir::ExprPtr e);
  // Runs `body` in a new scope writing into `block`.
  template <class F>
  void in_scope(ir::Block& block, F&& body);
  // in_scope for the branch of an `if` on `cond` taken when it is `holds`:
  // what the branch leaves in variables of its own stays available after
  // the `if` where the condition is known the same (Scope::in_branches).
  template <class F>
  void in_branch(ir::Block& block, std::uint32_t cond, bool holds, F&& body);
  // Declares the variables Scope::in_branches gave out at the top of the
  // function, their declarations turned into assignments.
  void finish_hoisting();

  // ---------------------------------------------------------- values (revert_emitter.cpp)
  ir::ExprPtr value(std::uint32_t n);
  // Computes `n` here, held in a variable unless it is a simple value
  // (what was cached as an expression, a select used once, would be
  // computed again wherever it is read: inside a loop, every iteration).
  void materialize(std::uint32_t n);
  ir::ExprPtr compute(std::uint32_t n);  // a pure operator's expression
  // Whether the eval n's loop leaves after one pass (pass_ℓ(true)) and no
  // loop at its depth is open here: its value is its body's first iteration.
  bool single_pass(std::uint32_t n) const {
    const PegNode& pass = node(node(n).children[1]);
    if (pass.kind() != Kind::Pass || depth_ >= node(n).loop()) return false;
    const PegNode& cond = node(pass.children[0]);
    return cond.kind() == Kind::Const && cond.label.payload != 0;
  }
  // For a single-pass loop's value n that is not a constant: the value of its
  // first iteration, which is what is known of n (and n of it).
  std::optional<std::uint32_t> first_pass(std::uint32_t n) const {
    if (node(n).kind() != Kind::Eval || !single_pass(n)) return std::nullopt;
    const std::uint32_t first = node(n).children[0];
    if (node(first).kind() == Kind::Const) return std::nullopt;
    return first;
  }
  // eval_ℓ(x, pass_ℓ(true)), a loop that exits before its first iteration:
  // x with the θs it reads at their initial values, without the loop (whose
  // effects, if any, are no part of this value); null where that does not
  // apply (a σ θ, an initial value that would be speculated).
  ir::ExprPtr zero_trip(std::uint32_t n);
  // What a single pass of a loop computed that varies in it (the first
  // iteration's values, those its `if`s left in branches), by pass_ℓ node:
  // the next eval on that pass reuses it while the scope its statements went
  // to is open and no loop has been entered since (`if (c) { inner loop }`
  // in a loop that always leaves in its first iteration, read by several of
  // its values: the inner loop runs once).
  struct FirstPass {
    std::size_t scope;  // index in scopes_ of the scope the statements went to
    std::uint64_t serial;
    std::vector<std::pair<std::uint32_t, ir::ExprPtr>> values;
    std::unordered_map<std::uint32_t, std::vector<Scope::InBranch>> in_branches;
  };
  void reuse_first_pass(std::uint32_t pass);
  std::unordered_map<std::uint32_t, FirstPass> first_passes_;
  ir::ExprPtr phi(std::uint32_t n);
  // The σ φ on value φ n's condition, to be made now, when a branch of n
  // needs the value of an effectful call not made yet: that σ φ makes it,
  // and n with it (a loop test that calls a function in one arm of `?:`).
  std::optional<std::uint32_t> effect_phi(std::uint32_t n);
  // The φs with condition `cond` emitted in one `if`: `members` are value φs
  // (cached afterwards), `state` an optional state φ (then cur_ = state).
  void phi_group(std::uint32_t cond, std::vector<std::uint32_t> members,
                 std::optional<std::uint32_t> state);
  // The same into declared variables, from the current σ; splits a condition
  // that needs effects (splits()) on its own condition first.
  void phi_into(std::uint32_t cond, const std::vector<std::uint32_t>& members,
                std::optional<std::uint32_t> state, const std::vector<ir::VarId>& vars);
  bool splits(std::uint32_t cond) const;
  // An exit test made first on one side of the σ φ `state`, inside its `if`
  // (exit_test: the test reads what that side's effects make). Where the
  // side always leaves by the test, the rest of the branch is code no run
  // reaches: the side of the σ φ, made all the same.
  struct TestInBranch {
    std::uint32_t state;
    std::uint32_t branch;  // the condition of the `if` whose branch tests
    bool side;
    std::function<void()> test;
  };
  // Where an exit test φ(guard, test, false) (or its mirror, `holds` false)
  // can be made: in the branch of σ φ `state`'s `if` on `branch` where it
  // is `side`. That σ φ is one going on makes; on that side every way on
  // makes the effects the test reads that are not made yet.
  // Or the test reads nothing unmade, but going on reads that σ φ's
  // branches through a value φ on its condition (decided_phi_going_on_reads):
  // then that side's effects come first in the branch (`arm_first`).
  // `via`: a σ φ going on makes that makes `state` where the test's guard
  // holds, reached in its place (`state` is not made on every way on).
  struct TestSite {
    std::uint32_t state;
    std::uint32_t branch;
    bool side;
    bool arm_first = false;
    std::optional<std::uint32_t> via = std::nullopt;
  };
  std::optional<TestSite> phi_making_test_reads(std::uint32_t guard, bool holds,
                                                std::uint32_t test);
  // Where an exit test that needs effects not made yet can be made: in the
  // branch of a σ φ going on makes, on the side of its condition where the
  // test may hold (it is known false on the other), whose arm makes what
  // the test reads.
  std::optional<TestSite> phi_deciding_test(std::uint32_t test);
  // A σ φ on `guard` that going on makes and whose arm leaving needs too
  // (Bundle::decided_by_leaving), whose branches a value φ on `guard` going
  // on needs reads (`if (g) { p[0] = 1; if (t) break; x = p[1]; }`: x is
  // φ(g, load, x)). Made ahead of the test, its `if` could not compute that
  // φ without loading before the test; the test goes inside it instead.
  std::optional<std::uint32_t> decided_phi_going_on_reads(std::uint32_t guard);
  // The σs `n` reads that are not reached here, sorted.
  NodeSet unmade_reads(std::uint32_t n);
  // The condition phi_into() first branches on for a σ φ on `cond`, as
  // what is known here leaves it (none if it takes one side unbranched).
  std::optional<std::uint32_t> first_branch(std::uint32_t cond);
  // Whether phi_into() makes σ φ `state` where it branches on `cond`, a
  // φ(h, x, k) with k a constant, by branching on h first: the arm k takes
  // is a σ φ on h too.
  bool splits_on_arm(std::uint32_t state, std::uint32_t cond) const;
  static constexpr std::size_t kEffectsBeforePhi = 16;
  // For such a split of σ φ `state` on `cond`'s own condition h: whether,
  // where h takes `cond`'s arm that is not a constant, both of the σ φ's
  // arms go through memory not made yet (made once there, before they part).
  bool shares_memory_past_split(std::uint32_t state, std::uint32_t cond);
  // For a φ on `cond` = φ(h, x, y): the child (1 or 2) x selects if it is a
  // constant, then the one y selects (0 for an arm that is not).
  std::array<int, 2> taken_by_constant_arms(std::uint32_t cond) const;
  bool is_phi_on(std::uint32_t n, std::uint32_t cond) const;
  // The same for value φs `members` on `cond`: the arm k takes of one that
  // may run a loop is a φ on h too (`if (h) { loop; if (x) a = loop's; else
  // b = g(loop's); }` leaves a = φ(h && x, loop's, a), b = φ(h && x, b,
  // φ(h, g(loop's), b))): where h holds, both arms read the loop, run once.
  bool splits_values_on_arm(std::uint32_t cond, const std::vector<std::uint32_t>& members);
  // In the branch of phi_into()'s `if` on `branch_on` for σ φ `state`, the
  // pending TestInBranch if it is this one's.
  void test_pending_in(std::optional<std::uint32_t> state, std::uint32_t branch_on, int side);
  // Whether the current bundle certainly reaches `state`: it is in the
  // bundle's `must`, or, for a bundle whose roots are all evaluated, in
  // what they certainly evaluate given what is known here (more than when
  // the bundle was made, in a branch).
  bool certainly_reached(std::uint32_t state);
  // Before the branches of value φs: computes once what both branches
  // evaluate (MustEval), is shared and reads no memory, so that a chain of
  // φs each reusing the last stays linear instead of doubling per φ; the
  // loops both branches may run (through the φs within them) that read no
  // memory but the current one and are defined here, which each branch ran
  // a copy of, or that one branch may run and the bundle needs elsewhere
  // too (a later φ's branch, another of the loop's values); for a loop
  // defined only where conditions hold, the φ on them that is defined here;
  // and what one side evaluates (in a φ's branch too) that the bundle
  // evaluates anyway, when it is shared and cannot trap; and what one side
  // evaluates and the other may, when the source computes it here anyway
  // (computed_by_source), a read of memory too. With a σ φ on the
  // same condition, what the effects of its sides need counts too (a loop
  // whose value one branch tests before a call and the other returns).
  void compute_common(const std::vector<std::uint32_t>& members,
                      std::optional<std::uint32_t> state = std::nullopt);
  // Of `nodes`, those the bundles from `first_bundle` on need outside the
  // branches of the φ group (members, state): a walk from their roots, the
  // innermost's first, of kNeededWalk nodes at most, past what is computed
  // or reached here. `complete` says whether the walk saw all the bundles
  // may need (then what it did not find is not needed).
  struct Needed {
    NodeSet found;
    bool complete;
  };
  Needed needed_outside(const std::vector<std::uint32_t>& members,
                        std::optional<std::uint32_t> state, const NodeSet& nodes,
                        std::size_t first_bundle = 0) const;
  static constexpr std::size_t kNeededWalk = 1024;
  // How many nodes compute_common looks at per branch for loops it may run:
  // a chain of φs each holding the next would otherwise walk its rest at
  // every link.
  static constexpr std::size_t kMayRunWalk = 256;
  // Computes the value roots and reaches the state root (at most one) in the
  // current scope; returns the values' expressions.
  std::vector<ir::ExprPtr> bundle(std::span<const std::uint32_t> roots);
  // Before memory moves on: materializes the nodes whose lazy evaluation
  // reads cur_ and no other σ, among those the innermost bundle must
  // evaluate and those it may need that are defined anyway. Before a σ φ
  // on `joining`, the value φs on it are left to join its `if`
  // (fusable_phis): read here, they were an `if` of their own, whose
  // branch emitted the loops the σ φ's branch then emitted again.
  // With Readers::of_overwritten_only, the nodes that read stores cur_
  // overwrote (overwritten()) and no other σ instead: before an effect that
  // moves memory off them, after its operands.
  enum class Readers { of_cur, of_overwritten_only };
  void flush_readers(std::optional<std::uint32_t> joining = std::nullopt,
                     Readers which = Readers::of_cur);
  // Before `effect` moves memory on: the loads and readonly calls of cur_
  // alone that the innermost bundle needs only where conditions hold (in
  // arms of value φs, kBranchConditions deep at most, found by a walk of
  // kChosenReadsWalk nodes from its roots through φs, pure operators and
  // the operands of the effects to come but `effect`), each read now in `if`s
  // on those conditions and found there later where they are known the
  // same (Scope::in_branches): `p[0] = b ? p[1] & p[f()] : f()`, whose call
  // the PEG makes once for both arms, reads p[1] before it where b holds.
  void read_where_chosen(std::uint32_t effect);
  // Made before every effect, where something reads cur_ itself
  // (read_directly_): a few of the bundle's last effects' operands (a
  // bundle's σ chain may be long).
  static constexpr std::size_t kChosenReadsWalk = 32;
  // Whether computing n here cannot trap where the source does not: it
  // cannot trap at all, the source computes it on every call, or on every
  // iteration of the open loop it varies in.
  bool defined(std::uint32_t n) const { return speculatable_[n] || computed_by_source(n); }
  // Whether the source computes n on every call, or on every iteration of
  // the open loop it varies in (so also given what is known here): computed
  // here, it costs no more than the source's.
  bool computed_by_source(std::uint32_t n) const {
    if (in_.defined && in_.defined(node(n).eclass, known_class_)) return true;
    const unsigned d = g_.depth(n);
    return d > 0 && d <= open_passes_.size() && in_.total &&
           in_.total(node(n).eclass, open_passes_[d - 1]);
  }
  // A memo of a node set per node (lazy_reads', MustEval's): valid while
  // stamped, so cleared in O(1), the sets keeping their memory from one use
  // to the next (a hash map built per use was a third of reversion's time).
  // Uses nest, each holding a memo from the pool while it lasts.
  class NodeSetMemo {
   public:
    explicit NodeSetMemo(std::size_t nodes) : slots_(nodes) { known_.clear(nodes); }
    // The slot of `n`, and whether it was there already.
    std::pair<NodeSet&, bool> slot(std::uint32_t n) {
      const bool fresh = known_.insert(n);
      if (fresh) slots_[n].clear();
      return {slots_[n], !fresh};
    }
    void clear() { known_.clear(slots_.size()); }

   private:
    eqsat::StampedSet known_;
    std::vector<NodeSet> slots_;
  };
  // A memo from the pool, given back when the handle goes.
  class NodeSetMemoHandle {
   public:
    explicit NodeSetMemoHandle(const Emitter& e);
    NodeSetMemoHandle(const NodeSetMemoHandle&) = delete;
    NodeSetMemoHandle& operator=(const NodeSetMemoHandle&) = delete;
    ~NodeSetMemoHandle() { pool_.push_back(std::move(memo_)); }
    NodeSetMemo& operator*() { return *memo_; }
    NodeSetMemo* operator->() { return memo_.get(); }

   private:
    std::vector<std::unique_ptr<NodeSetMemo>>& pool_;
    std::unique_ptr<NodeSetMemo> memo_;
  };
  NodeSetMemoHandle node_set_memo() const { return NodeSetMemoHandle(*this); }
  mutable std::vector<std::unique_ptr<NodeSetMemo>> node_set_memos_;
  // The σ nodes (of the current loop depth) n's lazy evaluation would read.
  // The result lives in `memo` (or is a constant) until memo is cleared.
  const NodeSet& lazy_reads(std::uint32_t n, NodeSetMemo& memo) const;
  // The σ the loop of `pass` starts from (its σ θ's initial σ), if it has a
  // σ θ; found once per loop.
  std::optional<std::uint32_t> start_state_of(std::uint32_t pass) const;
  mutable std::unordered_map<std::uint32_t, std::optional<std::uint32_t>> start_states_;
  // The value φs on `cond` that can join an `if` on it now: each arm reads
  // no σ but cur_ and `inside` (states within that branch), and the innermost
  // bundle evaluates them anyway, or they are defined (on every call, or
  // where the known conditions hold, or each arm where its branch is taken)
  // or read memory their branch makes, as its code does (made_in_branch),
  // and a bundle may still need them. Such
  // a φ needed later (in a loop's branch, or by a later loop) was an `if` of
  // its own there, running the loops of the branch again, or could not read
  // what the branch stores; one no longer needed ran its branches' loops
  // for nothing.
  std::vector<std::uint32_t> fusable_phis(std::uint32_t cond, std::uint32_t except,
                                          const std::array<NodeSet, 2>& inside);
  // Whether `n` varies in no loop but the open ones: a walk of its value
  // operands (not σs: memory is reached, not computed) that vary in a loop
  // and lie no deeper than depth_, not computed yet, kMayRunWalk nodes at
  // most, that finds no θ (the open loops' θs are computed; a sibling loop
  // has the same loop bit, its θs are not).
  bool of_open_loops(std::uint32_t n) const;
  // Whether computing `n` may read the value of a call that never happens
  // (no ρ_σ: translation dropped it where its `?:` arm is never taken, as
  // in `if (c) x = c ? a : f();`): a walk of its operands not computed yet,
  // into φ arms, kMayRunWalk nodes at most, then true.
  bool may_read_call_never_made(std::uint32_t n) const;
  // The effects a σ φ's branch ending at `branch_state` makes on every path
  // through it (certain_states_towards), and for each state one of them
  // starts from, whether that effect is one no rule moves a load past (a
  // call, a barrier, a loop).
  struct BranchEffects {
    NodeSet made;
    std::vector<std::pair<std::uint32_t, bool>> next_fixes_reads;  // sorted
  };
  // `end_fixed`: the branch's `if` is followed by an effect no load moves
  // past, which fixes the reads of the σ the branch ends at too.
  BranchEffects branch_effects(std::uint32_t branch_state, bool end_fixed);
  // Whether `arm`, of a value φ on the condition of a σ φ whose branch on
  // that side makes `branch`, is what that branch's code computes: past
  // what cannot trap, loads and readonly calls of the memory at the
  // branch's start (cur_) or of a state it makes on every path, which it
  // leaves by an effect no load moves past (the source read it there), and
  // the values of calls it makes on every path. A walk of kMayRunWalk nodes
  // at most, then false.
  bool made_in_branch(std::uint32_t arm, const BranchEffects& branch);
  ir::ExprPtr constant(const PegNode& n) const;
  ir::ExternRef callee(const PegNode& n) const;
  const ir::TableRef& table(const PegNode& n) const;
  // A ReadTable whose index is a constant inside its table: it cannot trap.
  bool in_bounds(const PegNode& read) const;
  // Whether n's own operation cannot trap (speculatable_ asks it of every
  // operand too).
  bool op_speculatable(const PegNode& n) const;
  // Whether n can be computed here without trapping: speculatable, or its
  // operation cannot trap (a φ's cannot) and each operand can be or is
  // computed already (`memo` holds the answers for the nodes looked at).
  bool speculatable_now(std::uint32_t n, std::unordered_map<std::uint32_t, bool>& memo);

  // ---------------------------------------------------------- σ (revert_state.cpp)
  // Emits the effects from cur_ up to `state`; fails if `state` is behind.
  void reach(std::uint32_t state);
  // Whether reach(state) would find a way from cur_ (emitting nothing).
  bool can_reach(std::uint32_t state);
  // The effects from cur_ up to `state`, the last first, or why there is no
  // such way (the node to blame and the reason): what reach() makes and
  // can_reach() asks about.
  struct WayToState {
    std::vector<std::uint32_t> effects;
    std::uint32_t blame = 0;
    const char* failure = nullptr;
  };
  WayToState way_to(std::uint32_t state);
  // The σs on the ways from `state` down to memory here (cur_, or a σ
  // reached), through both arms of σ φs and the inputs of effects, sorted.
  NodeSet states_towards(std::uint32_t state);
  // Of those, the ones every way down makes: σ φs on conditions known here
  // taken by their known arm, others skipped to the σ both arms start from
  // (and added to `phis`, when given).
  NodeSet certain_states_towards(std::uint32_t state, NodeSet* phis = nullptr);
  // The walk both make, latest σ first: a σ φ whose condition is not known
  // here is visited, then skipped to the σ both arms start from. Answers
  // the first σ `visit` accepts.
  template <class Visit>
  std::optional<std::uint32_t> find_certain_state(std::uint32_t state, Visit visit);
  // The σ both arms of σ φ `phi` start from here, σ φs on the way taken by
  // the arms the known conditions choose (input_of() if none is found near).
  std::optional<std::uint32_t> phi_input_here(std::uint32_t phi);
  // input_of(producer), or where that σ is neither memory here nor made by an
  // effect (a σ φ whose arms start from σs the known conditions make one:
  // `if (b) f(); … if (c) { if (b) g(); }` with b known, g's arm and the
  // other start from f's σ), phi_input_here().
  std::optional<std::uint32_t> input_here(std::uint32_t producer);
  // The latest σ (not a φ) that every way down from both `a` and `b` makes,
  // if any is not reached yet.
  std::optional<std::uint32_t> latest_common_state(std::uint32_t a, std::uint32_t b);
  // cur_ if memory holds what it held at `state` (only Demands, which read
  // and write no memory, lie between them, and σ θs in their loop's peeled
  // first iteration, where they are their initial σ, on every arm of the
  // σ φs between); otherwise `state`.
  std::uint32_t memory_of(std::uint32_t state) const;
  // memory_of() past resolve(): `target` is `state` resolved.
  std::uint32_t memory_through_checks(std::uint32_t state, std::uint32_t target) const;
  // Memory as it was at `state`, for `reader`: there already, or reached.
  // When memory has moved past it, `reader` is blamed (another e-node of its
  // class may read a later σ).
  void read_at(std::uint32_t state, std::uint32_t reader);
  // Whether `state` is a store ptr[i] = v over a σ behind cur_, with only
  // stores to the same ptr[i] between that σ and cur_: the extraction
  // dropped a store that a later one to the same address overwrote, and a
  // load in between reads it. Such a σ is not reached; its loads are
  // load_past_overwrite's.
  bool overwritten(std::uint32_t state) const;
  // Whether what cur_ overwrote stays overwritten after `effect`: cur_ is
  // no store (nothing is), or `effect` stores to cur_'s address again.
  bool stores_over_cur(std::uint32_t effect) const;
  // Whether `effect` is a store to the address `store` wrote, on the σ
  // `store` wrote over (saturation's store(store(s, p, i, x), p, i, y) =
  // store(s, p, i, y)): made after `store`, it leaves the same memory.
  bool overwrites(std::uint32_t effect, std::uint32_t store) const;
  // Before store `p` is made on cur_: a store extraction dropped for it
  // (over the same address, on cur_) that a reader the bundle certainly
  // needs reads, made first and read (`p[0] = a; x = q[1]; p[0] = b;` keeps
  // the first store for the load, which may read it; a load through p
  // itself reads past the second, load_past_overwrite).
  void make_dropped_store_for(std::uint32_t p);
  // Before σ φ `p` is made on cur_: a σ φ on the same condition that its
  // arms go on from, which something reads (`if (!a) tick(); x = q[i]; if
  // (a) q[j] = x;`, saturated to φ(a, store(φ(a, σ, tick)), tick)), made
  // first and read.
  void make_read_phi_below(std::uint32_t p);
  // Whether load `load` reads at cur_ what it reads at its own σ, behind
  // cur_: on every way down, through σ φs, only stores through its pointer
  // at constant indices other than its own constant one, and Demands
  // (saturation reads `p[0]` past `p[3] = v`, a store reversion has made
  // already); a pointer and the pointer plus or minus constants are one
  // (`p[0]` past `(p + 1)[1] = v`).
  bool reads_past_other_indices(std::uint32_t load) const;
  // `a == i ? v : ptr[a]` at cur_ for a load of ptr[a] from an overwritten
  // σ (above); null for any other load.
  ir::ExprPtr load_past_overwrite(std::uint32_t load, const ir::ExprPtr& ptr,
                                  const ir::ExprPtr& index);
  // A σ φ whose condition is known is the σ it selects.
  std::uint32_t resolve(std::uint32_t state) const;
  // Whether memory is at `state` (resolved): cur_, or what cur_ resolves to
  // (a σ φ made, under a scope that knows its condition, is that branch's σ).
  bool memory_at(std::uint32_t state) const { return state == cur_ || state == resolve(cur_); }
  // `with`: a value φ on a σ φ producer's condition that the σ φ computes
  // too, whatever fusable_phis says (it is being computed: effect_phi).
  void produce(std::uint32_t producer, std::optional<std::uint32_t> with = std::nullopt);
  std::optional<std::uint32_t> input_of(std::uint32_t producer);
  // The σ a store, Demand, barrier or call (its σ) starts from; none for
  // anything else (input_of() finds a σ φ's and a loop's).
  std::optional<std::uint32_t> effect_input(std::uint32_t n) const;
  // Whether σ φ `phi` follows `made` (cur_: a σ φ made before; `if (a)
  // loop; else f();` then `if (a) loop2;`): each of its arms leads down to
  // `made`, to what `made` is where phi's condition takes that arm (its
  // arm on the same condition; by cases on another), or to a store that
  // overwrites `made`, or to a σ φ that follows `made` so itself (`if (b)
  // f(); if (c) { if (b) g(); }`: nested up to `nesting` deep), though the σ
  // both its arms start from (input_of) is older.
  bool follows_arm_by_arm(std::uint32_t phi, std::uint32_t made, unsigned nesting = 2);
  bool is_producer(std::uint32_t n) const;

  // ---------------------------------------------------------- loops (revert_loop.cpp)
  void loop(std::uint32_t pass, std::uint32_t trigger);
  // A loop of its own for `evals` of `pass` only (values, no effects): those
  // another loop on the same pass needs before it starts.
  void loop(std::uint32_t pass, std::uint32_t trigger, std::span<const std::uint32_t> only);
  // The value evals of `pass`, not computed yet, that the initial or next
  // values of `thetas` (θs of a loop on `pass`) need.
  std::vector<std::uint32_t> evals_needed_first(std::uint32_t pass,
                                                std::span<const std::uint32_t> thetas) const;
  // Those the σ θ of the effectful loop `state_out` (an eval of `pass`) needs.
  std::vector<std::uint32_t> evals_before_effects(std::uint32_t pass,
                                                  std::uint32_t state_out) const;
  // Emits the exit test of `cond` in the loop body; `exit` emits an exit
  // point. Returns false when every path exits.
  template <class Exit, class Iteration>
  bool exit_test(std::uint32_t cond, const Exit& exit, const Iteration& iteration);
  // Where `test` reads memory not made yet: the effects every way on and
  // out of the iteration makes that lie ahead of cur_, the σ φs among them
  // that choose by a part of the test included (which run_common_work
  // leaves for the test's own `if`).
  void reach_effects_both_ways_make(std::uint32_t test);
  // The σ φs going on makes that are `end` here, in the going-on order:
  // asked at the end of each side of a split on an exit test's guard
  // (`end`: the σ the side went on from; where it left, the σ before the
  // split), where what its exit tests decided is known too.
  std::vector<std::uint32_t> going_on_joins_here(std::uint32_t end);
  // resolve(), through σ φs whose condition the known conditions imply by
  // cases (implied()) too, and σ φs whose arms both decide so to one σ.
  std::uint32_t resolve_by_cases(std::uint32_t state) const;
  // The φ n is where the known conditions hold: the arms they choose.
  std::uint32_t decided(std::uint32_t n) const;
  // The condition h to branch on before an exit test whose guard needs a
  // call or store made only where h holds, if any (exit_test).
  std::optional<std::uint32_t> test_split_on(std::uint32_t guard);
  std::vector<std::uint32_t> loop_thetas(unsigned loop, std::span<const std::uint32_t> roots) const;
  // The initial values of the value θs the eval `e`'s value reads.
  const std::vector<std::uint32_t>& loop_initial_values(std::uint32_t e);
  // Appends to `out` the initial values of the loops that the value evals
  // among `evals` not computed yet run.
  void append_loop_initial_values(std::span<const std::uint32_t> evals,
                                  std::vector<std::uint32_t>& out);
  // Before a loop that moves memory: computes what it reads of the memory it
  // starts from (cur_), does not vary in it and is defined on every call;
  // inside, that memory is gone.
  void read_invariants_before(unsigned loop, std::span<const std::uint32_t> roots,
                              std::span<const std::uint32_t> thetas);
  bool bound_here(std::uint32_t root, unsigned loop) const;

  // ---------------------------------------------------------- MustEval (revert_must.cpp)
  // Nodes certainly evaluated when `roots` are, at the current loop depth;
  // θs of loop `init_loop` count as their initial values (iteration 0).
  // With `first_iteration`, in that iteration: a φ takes the arm its
  // condition folds to there (in_first_iteration).
  NodeSet must(std::span<const std::uint32_t> roots, unsigned init_loop = 0,
               bool first_iteration = false);
  // The value of `cond`, an operation on constants and θs of `loop` that
  // start from constants, in that loop's first iteration (`k < 5` with k
  // from 0: the first exit test goes on to the rest of the test).
  std::optional<bool> in_first_iteration(std::uint32_t cond, unsigned loop) const;

  // ---------------------------------------------------------- facts (revert.cpp)
  void compute_facts();

  const RevertInput& in_;
  const PegGraph& g_;
  ir::Function fn_;
  std::unordered_set<std::string> names_;
  unsigned next_name_ = 0;
  std::unordered_map<std::uint64_t, ir::VarId> shared_;  // original shared index -> new var

  std::vector<Scope> scopes_;
  std::uint64_t scopes_pushed_ = 0;
  // By node: in how many scopes it is cached, or reached (a σ).
  std::vector<std::uint32_t> cached_in_, reached_in_, in_branches_of_;
  // Variables read outside the branch that declares them (Scope::in_branches).
  mutable std::vector<ir::VarId> hoisted_;
  // Sets of nodes for walks, reused: a walk took a hash set (or a bit per
  // node) of its own. Walks nest (one that emits a value may start
  // another), each holding its own set while it lasts.
  class Marks {
   public:
    Marks(std::vector<std::unique_ptr<eqsat::StampedSet>>& pool, std::size_t nodes);
    Marks(const Marks&) = delete;
    Marks& operator=(const Marks&) = delete;
    ~Marks() { pool_.push_back(std::move(set_)); }
    // Adds `n`; returns whether it was not marked.
    bool insert(std::uint32_t n) { return set_->insert(n); }
    bool contains(std::uint32_t n) const { return set_->contains(n); }

   private:
    std::vector<std::unique_ptr<eqsat::StampedSet>>& pool_;
    std::unique_ptr<eqsat::StampedSet> set_;
  };
  Marks marks() const { return Marks(marks_pool_, g_.nodes.size()); }

  // Before an exit test: what leaving and going on both do (an inner loop,
  // the effects before it, a value that is both the exit's and the next
  // iteration's) is done once, ahead of the test, instead of once in the
  // exit and again for the next values.
  // `test_inside`: a σ φ left for the test's own `if` to make
  // (decided_phi_going_on_reads).
  void run_common_work(std::uint32_t test, std::optional<std::uint32_t> test_inside);
  // Before the branches of a φ group: the loops the innermost bundle
  // evaluates anyway (its must) and that read no memory but the current
  // one, and start from memory reached (start_state_of). Run first inside a branch, such a loop was
  // emitted again after it for another of its values. Not a loop that reads one of the group's
  // `members` whose branches run a loop: run first, it would make that
  // member's `if` on its own, with the loop in it, and the group make the
  // loop again.
  void run_must_loops(const std::vector<std::uint32_t>& members);
  // Whether evaluating `roots` computes one of `members`: a walk of their
  // operands not computed yet, kMayRunWalk nodes at most, then false.
  bool computes_any_of(std::span<const std::uint32_t> roots,
                       std::span<const std::uint32_t> members);
  // Whether `n` reads no σ but cur_ (lazy_reads).
  bool reads_only_current(std::uint32_t n);
  // Whether evaluating roots may run (through φ branches too, and the
  // effects of an iteration of loop `effects_of`, 0: none) a loop not
  // computed yet whose level is within [first, last]; kMayRunWalk nodes at
  // most, then true.
  bool may_run_loop(std::span<const std::uint32_t> roots, unsigned effects_of, unsigned first,
                    unsigned last);
  // Whether evaluating roots may run a loop nested in `loop` (0: any loop).
  bool may_run_inner_loop(std::span<const std::uint32_t> roots, unsigned loop) {
    return may_run_loop(roots, loop, loop + 1, std::numeric_limits<unsigned>::max());
  }
  // Whether the loop of the eval `eval` runs in every iteration, up to its
  // exit, of the loop whose pass is the class `pass` (LoopFacts::total: the
  // value itself, or its loop).
  bool runs_every_pass(std::uint32_t eval, eqsat::Id pass) const;
  // Whether `state` lies on the σ chain ahead of cur_ and no σ φ on the way
  // chooses by a value `in_test` holds (the exit test still pending), unless
  // it is one of `decided_by_leaving` (Bundle).
  bool effects_ahead(std::uint32_t state, const Marks& in_test, const NodeSet& decided_by_leaving);
  mutable std::vector<std::unique_ptr<eqsat::StampedSet>> marks_pool_;
  mutable std::vector<std::uint32_t> theta_walk_;  // loop_thetas' stack, reused
  std::vector<Bundle> bundles_;
  // The first of bundles_ that the innermost open loop's iteration holds (0
  // outside loops): what is made in the iteration is gone after the loop
  // but for its exit values, so only these bundles' needs are met there.
  std::size_t iteration_bundle_ = 0;
  std::unordered_set<std::uint32_t> in_progress_;  // values being computed (not to flush)
  std::vector<std::uint32_t> loops_in_progress_;   // passes of the loops being made
  std::size_t loops_entered_ = 0;                  // loop() calls under way, nested
  // Per node: how many φ groups being emitted hold it (computed with its
  // group, never alone in the meantime).
  std::vector<std::uint32_t> in_group_;
  std::vector<std::uint32_t> wanted_;               // loop values whose loop σ's chain must reach
  std::unordered_set<std::uint32_t> reaching_for_;  // pure loops (passes) waiting for their σ
  std::vector<std::uint32_t> peeled_states_;  // σ θs in the peeled first iteration of their loop
  std::uint32_t cur_ = 0;
  unsigned depth_ = 0;  // the depth of the innermost loop open around the insertion point
  // The pass classes of the loops open around the insertion point, outermost
  // first: loop ℓ's at ℓ - 1 while its body is emitted (kNoPass: none open).
  static constexpr eqsat::Id kNoPass = eqsat::make_id(~std::uint32_t{0});
  std::vector<eqsat::Id> open_passes_;
  mutable std::size_t work_ = 0;
  mutable eqsat::TimeNet net_{in_.time_net};

  // Facts about the graph.
  std::vector<std::uint32_t> uses_;
  std::vector<char> speculatable_;
  bool dropped_stores_ = false;  // a store only readers read (compute_facts)
  // Those stores, each with a reader that is not a load through the
  // store's pointer (make_dropped_store_for).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> read_through_other_pointers_;
  std::vector<char> checks_only_;  // σ θs whose loop changes no memory (compute_facts)
  // Nodes from which a value eval is reached through φs and pure operators
  // alone (the eval itself included): compute_common walks only these.
  std::vector<char> leads_to_loop_;
  std::vector<char> read_directly_;  // σs a load or a readonly call reads
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> evals_of_;    // pass -> evals
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> value_phis_;  // cond -> value φs
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> state_phis_;  // cond -> σ φs
  std::optional<TestInBranch> test_in_branch_;  // for the next phi_into of its σ φ
  const bool split_exit_tests_;
  bool split_an_exit_test_ = false;
  // Each `while` emitted, by its loop's pass, with the conditions known where
  // it went (every enclosing scope's, sorted): two copies of a loop under
  // opposite values of one condition are never both run.
  struct EmittedLoop {
    std::uint32_t pass;
    std::vector<std::pair<std::uint32_t, bool>> known;
  };
  std::vector<EmittedLoop> emitted_loops_;
  void emit_loop(std::uint32_t pass, ir::Block body);
  // eval -> the initial values of the loop variables its value reads
  // (loop_initial_values), computed once: flush_readers asks at every effect.
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> initial_values_;
  // known() by the condition's class, for RevertInput::defined.
  RevertInput::KnownCondition known_class_;
  // Class index -> a node of that class (kNoNode if none).
  std::vector<std::uint32_t> node_of_class_;
  static constexpr std::uint32_t kNoNode = ~std::uint32_t{0};
  std::unordered_map<std::uint32_t, std::uint32_t> state_of_tuple_;  // tuple -> ρ_σ
  std::unordered_map<std::uint32_t, std::uint32_t> inputs_;          // memo of input_of
};

template <class F>
void Emitter::in_scope(ir::Block& block, F&& body) {
  push_scope(&block);
  body();
  pop_scope();
}

template <class F>
void Emitter::in_branch(ir::Block& block, std::uint32_t cond, bool holds, F&& body) {
  push_scope(&block);
  know(cond, holds);
  body();
  keep_branch_values(block, cond, holds);
  pop_scope();
}

}  // namespace augur::peg::revert_detail
