// IR → PEG (Tate, ch. 7), built directly in an e-graph.
//
// Structured statements are translated with an environment: the PEG node of
// every variable, of σ (memory and effects) and of the return value. `if`
// merges environments with φ; a loop at nesting depth ℓ gets a θ_ℓ per
// variable it assigns (and for σ), one pass_ℓ over its exit condition, and an
// eval_ℓ per value live after it. break, continue and return are exits:
// each carries the condition under which it is taken and the environment at
// that point, and a loop's exit condition is "¬cond, or a break or return in
// this iteration". A `break N` or `continue N` (N > 1) leaves the loop too;
// after it, eval_ℓ of "taken in this iteration" is an exit of the enclosing
// code as `break N-1` / `continue N-1` (as a return from inside a loop is a
// return of the code around it). A table is a Table leaf (its contents in
// PegFunction::tables) and a load through a pointer into one a ReadTable,
// which reads no σ: tables are never written. `&&`, `||` and `?:` become φ. Integer divisions whose
// divisor is not a constant that cannot trap put a Demand on σ, so that a
// division that may trap is never dropped or moved (test 14).
//
// Every value the translation builds is defined (not ⊥) at every iteration up
// to its loop's exit when the source program does not trap there: an exit
// value picks the iteration's entry value on the iterations that do not exit.
// Reversion relies on this for the classes `LoopFacts::total` lists.
//
// Construction folds φ(c, x, x) to x and closes a θ whose next value is
// itself (the variable is unchanged in the loop) onto its initial value.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jit/error.h"
#include "runtime/eqsat/egraph.h"
#include "runtime/ir/ir.h"
#include "runtime/peg/peg_graph.h"

namespace augur::peg {

// A shape the PEG translation does not handle; optimize() returns the input.
class unsupported : public jit::error {
 public:
  using jit::error::error;
};

struct LoopFacts {
  unsigned depth = 0;  // ℓ
  eqsat::Id pass;
  // Classes defined at every iteration up to the exit (θs and exit values).
  std::vector<eqsat::Id> total;
  // The loop's values as it leaves (its evals): which source loop a value
  // came from, once loops with equal bounds share a pass.
  std::vector<eqsat::Id> evals;
};

struct PegFunction {
  std::optional<eqsat::Id> result;  // the returned value (none for void)
  eqsat::Id state;                  // σ at the end
  std::vector<LoopFacts> loops;
  // Classes of values the source computes on every call (at the top level,
  // before any early return): computing them anywhere cannot trap when the
  // source does not.
  std::vector<eqsat::Id> defined;
  // Values the source computes on every pass through branches of `if`s and
  // bodies of loops at the top level (the outermost on every call, each
  // inner one on every pass of its branch or body): defined whenever those
  // conditions hold (a loop's condition in the iteration at hand), so they
  // may be computed ahead of need where they are known (inside the branch
  // of an `if (c)` with a store, a load its later loop reads; in a loop's
  // exit by `return`, a load made before a call whose value picks it),
  // and statements after one that may leave, where all before fell through.
  // A path is its innermost step; each step links to the one around it, so
  // the paths of a function take memory linear in its branches.
  static constexpr std::uint32_t kTopLevel = ~std::uint32_t{0};
  struct PathStep {
    eqsat::Id condition;
    bool taken = false;
    std::uint32_t outer = kTopLevel;  // the enclosing step, an index into path_steps
    // A loop's step: its condition holds wherever its exit condition (its
    // pass's) is known false, which is what reversion knows in an iteration
    // going on (`k > 0` is tested as `0 >= k`).
    std::optional<eqsat::Id> unless_exit;
  };
  struct Conditional {
    eqsat::Id value;
    std::uint32_t path = kTopLevel;  // the innermost step
  };
  std::vector<PathStep> path_steps;
  std::vector<Conditional> defined_when;
  // The externs the function calls, by name id (extern_names.h).
  std::unordered_map<std::uint64_t, ir::ExternRef> externs;
  // The tables it reads, by the payload of their Table e-nodes (a hash of
  // their contents).
  std::unordered_map<std::uint64_t, ir::TableRef> tables;
  unsigned max_depth = 0;  // deepest loop
  // The value each requested output variable holds at the end (regions.h).
  std::vector<eqsat::Id> outputs;

  PegRoots roots() const { return PegRoots{result, state, outputs}; }
};

// Translates `function` into `egraph` (made by make_peg_egraph), with the
// final value of each of `outputs` (variables of a void function that falls
// off its end) as PegFunction::outputs. Throws unsupported for loops nested
// deeper than LoopInvariance can track.
PegFunction to_peg(const ir::Function& function, eqsat::EGraph& egraph,
                   std::span<const ir::VarId> outputs = {});

}  // namespace augur::peg
