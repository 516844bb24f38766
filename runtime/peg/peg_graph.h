// A PEG chosen from an e-graph: one e-node per reachable class, cycles only
// through θ's second child. Reversion and the well-formedness check read it.
//
// Node i keeps the e-class and the e-node it came from, so a problem found
// later (a σ that cannot be made linear) can be traced back to the e-node and
// that e-node banned from the next extraction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/extract.h"
#include "runtime/peg/peg_ops.h"

namespace augur::peg {

struct PegNode {
  eqsat::Label label;
  std::vector<std::uint32_t> children;
  eqsat::Id eclass;
  eqsat::Id enode;

  Kind kind() const { return kind_of(label.op); }
  PegType type() const { return result_type(label.op); }
  unsigned loop() const { return static_cast<unsigned>(label.payload); }  // loop operators
};

// What a PEG computes, as e-classes: the returned value (none for void), σ
// at the end and, for a region (regions.h), each output variable's value at
// its end.
struct PegRoots {
  std::optional<eqsat::Id> result;
  eqsat::Id state;
  std::vector<eqsat::Id> outputs;
};

struct PegGraph {
  std::vector<PegNode> nodes;
  std::optional<std::uint32_t> result;  // the returned value
  std::uint32_t state = 0;              // σ at the end
  std::vector<std::uint32_t> outputs;   // PegRoots::outputs

  // Bit ℓ-1 set when node i varies in loop ℓ (Tate's invariant_ℓ, computed on
  // this graph: the largest invariance, by a fixpoint).
  std::vector<std::uint64_t> variant;
  unsigned depth(std::uint32_t i) const;  // the deepest loop node i varies in; 0 if none

  // Conditions simplified() found constant, as classes with their values:
  // folded, they may be gone from the graph, but a value the source
  // computed only where one held is still defined (RevertInput::defined).
  // A condition of a loop it dropped is its value in the loop's one pass
  // (`c < 6` with c at its first value 0), and that is the only pass that
  // reads its class: a loop is dropped only when nothing but its evals on
  // pass(true) reads its nodes, and a class another loop shares (a counter
  // merged with a sibling's) is one node of both, so that loop reads it.
  std::vector<std::pair<eqsat::Id, bool>> decided;
};

// The e-node chosen for each class, by class index; kNoChoice for a class
// without one.
inline constexpr eqsat::Id kNoChoice = eqsat::make_id(~std::uint32_t{0});
using Choices = std::vector<eqsat::Id>;

// The program `choices` picks for `roots`. A θ's second child need not
// have been settled when the θ was chosen, so it may have no program at all (every e-node in it
// banned): then the result is empty and `blame` names that θ's e-node.
std::optional<PegGraph> extract_graph(const eqsat::EGraph& egraph, const Choices& choices,
                                      const PegRoots& roots,
                                      std::optional<eqsat::Id>* blame = nullptr);
// The same with the extractor's choices.
std::optional<PegGraph> extract_graph(const eqsat::EGraph& egraph,
                                      const eqsat::Extractor& extractor, const PegRoots& roots,
                                      std::optional<eqsat::Id>* blame = nullptr);

// The program simplified where an extracted graph may still be, if it can
// be: none of these is a rewrite saturation would pay for, and each gives
// reversion a simpler program.
// - Loops of one pass dropped: a loop every eval of which is eval_ℓ(x,
//   pass_ℓ(true)) is x in its first iteration, each θ_ℓ(a, b) in it read
//   as a. What the first values make constant folds, and the flags φ(c,
//   true, false) and φ(c, false, true) read as c and ¬c, a φ on ¬c as one
//   on c with its arms swapped. Loops inside such a loop go first; a loop
//   that reads a deeper loop stays.
// - Flags decided by cases folded: a bool φ over at most 4 other
//   conditions (through φ, ¬, ∧, ∨, ≠, at most 32 nodes) that is the same
//   under every assignment of them is that constant.
std::optional<PegGraph> simplified(const PegGraph& graph);

// Where a class's chosen e-node is φ(!x, a, b) and saturation made φ(x, b, a)
// beside it (phi-not), and that e-node is not `banned` (by index), chooses
// it: the φs of one `if` then branch on one condition, whichever form each
// class's cheapest e-node had, and reversion fuses them into one `if`.
void prefer_positive_conditions(const eqsat::EGraph& egraph, Choices& choices,
                                const std::unordered_set<std::uint32_t>& banned);

// Whether the two are the same program, node for node. extract_graph numbers
// nodes in the order its walk from the roots meets them, so two extractions
// of one program number them alike.
bool same_program(const PegGraph& a, const PegGraph& b);

// Recomputes `variant`.
void compute_variance(PegGraph& graph);

// The graph as text, one node per line: `%3 = add.i32 %1 %2`.
std::string print_graph(const PegGraph& graph);

}  // namespace augur::peg
