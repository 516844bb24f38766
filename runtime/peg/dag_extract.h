// Extraction that sees sharing. The greedy extractor (extract.h) costs each
// e-class as a tree, so a subterm used twice counts twice: it cannot see that
// x+c is cheap when x is computed anyway, nor that one call can serve a test
// and a use (if (has(l, e)) use(position(l, e)) with has = position ≠ -1).
// Starting from its choice, this local search switches e-classes to other
// e-nodes whenever the program as a DAG (each chosen e-class paid once, cost
// per e-node as peg_cost has it) gets cheaper and keeps cycles through θ's
// second child only; a class switched to a θ may take its next value's class
// along, to an e-node that reads the θ (x = θ(a, x - 1)), which one switch at
// a time cannot reach from another loop's form; and a class switched may
// take the classes it brings in along, each to a value of a loop the program
// runs anyway (an eval whose children are all in it), which one switch at a
// time cannot reach from a peeled form of that value. Evaluating the program for an
// alternative costs a walk of it; the search passes over the alternatives it
// can tell cannot pay without one (pruning, which changes the work and never
// the result): one that keeps every child of the e-node it would replace
// (leaves aside) and costs no less with what it brings in, as a commuted
// operation does; one that brings in more than the classes its class
// dominates in the program, less those its new children keep (a bound from
// the program's dominator tree, measured again after each improvement); one
// that would close a cycle through its class's parent (a load forwarded from
// the store of its own value). Bounded by a budget of node visits; a search
// that reaches it stops and says so.
#pragma once

#include <cstddef>
#include <optional>
#include <unordered_set>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/extract.h"
#include "runtime/peg/peg_graph.h"

namespace augur::peg {

struct ImprovedChoices {
  Choices choices;
  std::size_t work = 0;        // node visits
  bool out_of_budget = false;  // stopped at the budget, before the search ended
};

ImprovedChoices improve_choices(const eqsat::EGraph& egraph, const eqsat::Extractor& greedy,
                                const PegRoots& roots,
                                const std::unordered_set<std::uint32_t>* banned, std::size_t budget,
                                bool pruning = true);

}  // namespace augur::peg
