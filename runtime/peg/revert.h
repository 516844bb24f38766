// PEG → structured IR (Tate, ch. 8).
//
// Reversion evaluates the PEG lazily, as its semantics do: a node is computed
// where it is first demanded, a φ becomes `?:` or an `if` whose branches
// compute only what they need, a group of eval_ℓ sharing one pass_ℓ becomes
// one loop (loop fusion), φs with one condition share one `if` (branch
// fusion), and a node demanded on every path (MustEval) is computed before a
// branch or a loop instead of inside it. A loop's exit condition becomes
// guards with `break` (multi-exit loops), its exit values are computed at the
// exit points. σ is memory: effects are emitted in the order of σ's chain, a
// load where its σ is the current memory.
//
// Nothing is speculated: a node that may trap (a load, a division, a loop) is
// computed only where the PEG demands it, or where its value is known to be
// defined (LoopFacts::total). Whenever the PEG cannot be reverted that way
// (a σ used twice, a load of a memory state already overwritten, a θ whose
// initial value would be speculated) reversion fails naming the e-node to
// blame, and the caller extracts again without it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/ir/ir.h"
#include "runtime/peg/peg_graph.h"

namespace augur::peg {

struct RevertInput {
  const PegGraph* graph = nullptr;
  const ir::Function* original = nullptr;  // name, parameters, return type, shared arrays
  // Declarations of the externs calls may name, by name id.
  const std::unordered_map<std::uint64_t, ir::ExternRef>* externs = nullptr;
  // The tables Table nodes name, by payload (to_peg's PegFunction::tables).
  const std::unordered_map<std::uint64_t, ir::TableRef>* tables = nullptr;
  // Whether the class `value` is defined at every iteration up to the exit of
  // the loop whose pass is the class `pass` (to_peg's LoopFacts); `value`
  // may also be the pass of a loop the source runs in every such iteration.
  std::function<bool(eqsat::Id value, eqsat::Id pass)> total;
  // What a condition's class is known to be where reversion stands (empty:
  // not known).
  using KnownCondition = std::function<std::optional<bool>(eqsat::Id cond)>;
  // Whether the class `value` is defined on every call (to_peg's
  // PegFunction::defined), or whenever conditions `known` says hold
  // (PegFunction::defined_when): it may be computed ahead of need.
  std::function<bool(eqsat::Id value, const KnownCondition& known)> defined;
  // Work allowed (nodes visited by MustEval, statements emitted) before
  // reversion gives up: sharing across branches can make code grow
  // exponentially (a chain of ifs, each φ's branches reusing the last).
  std::size_t max_work = 1'000'000;
  // And a safety net on the thread's CPU time (eqsat::TimeNet, looked at as
  // work is spent); past it reversion fails with kRevertOutOfTime.
  std::chrono::nanoseconds time_net = std::chrono::nanoseconds::max();
  // The source loop a loop value (an eval's class) came from, when several
  // source loops share its pass (to_peg's LoopFacts::evals after equal loops
  // were merged); a pure loop's values from different source loops are
  // emitted as different loops again (LLVM may close one of them).
  std::function<std::optional<unsigned>(eqsat::Id eval)> source_loop;
  // For a region (regions.h): the parameter each of the graph's outputs is
  // assigned at the end.
  std::vector<ir::VarId> outputs;
};

inline constexpr std::string_view kRevertOutOfTime = "reversion ran past its time safety net";
inline constexpr std::string_view kRevertOutOfWork = "reversion ran past its work budget";

struct RevertResult {
  std::optional<ir::Function> function;
  // Loops the function holds more than once where no run reaches two copies
  // of one: a loop run after an `if` chose to is emitted in each branch
  // that runs it (optimize_function's duplicated-loops check).
  std::size_t exclusive_loop_copies = 0;
  // On failure: why, and the e-node that caused it (if one can be blamed).
  std::string failure;
  std::optional<eqsat::Id> blame;
};

RevertResult revert(const RevertInput& input);

}  // namespace augur::peg
