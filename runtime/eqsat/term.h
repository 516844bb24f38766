// Terms: e-nodes by value with children by index. Parsing produces them,
// extraction returns them, and they can be added to or looked up in an
// e-graph.
//
// A term is a DAG when children come before their parents; it may also be
// cyclic (an extracted PEG, whose θ nodes refer back to themselves): a child
// index may then point at or after its parent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/id.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/sexpr.h"

namespace augur::eqsat {

struct Term {
  struct Node {
    Label label;
    std::vector<std::uint32_t> children;
    friend bool operator==(const Node&, const Node&) = default;
  };
  std::vector<Node> nodes;
  std::vector<std::uint32_t> roots;

  std::uint32_t root() const { return roots.at(0); }
  friend bool operator==(const Term&, const Term&) = default;
};

// Reads one s-expression term: `(op child...)` or an atom. Throws
// jit::parse_error naming the line and column.
Term parse_term(std::string_view text, Language& language);
// Appends the term at the cursor to `term` and returns its index.
std::uint32_t parse_term(TokenCursor& cursor, Language& language, Term& term);

// The s-expression of the term at `node` (the first root by default), shared
// subterms written out in full. Cycles are written as Lisp does: a node a
// cycle returns to is prefixed `#k=` (k is its index) where it first appears
// and written `#k` everywhere after.
std::string print_term(const Term& term, const Language& language);
std::string print_term(const Term& term, const Language& language, std::uint32_t node);

// Adds the term's nodes and returns the class of `node` (the first root by
// default). Cycles are closed with placeholders.
Id add_term(EGraph& egraph, const Term& term);
Id add_term(EGraph& egraph, const Term& term, std::uint32_t node);
// The same, returning the id of the root's exact e-node (add_uncanonical), so
// that explanations can prove things about the term as written.
Id add_term_exact(EGraph& egraph, const Term& term);
// The class of an acyclic term if all its nodes are already present.
std::optional<Id> lookup_term(const EGraph& egraph, const Term& term);

}  // namespace augur::eqsat
