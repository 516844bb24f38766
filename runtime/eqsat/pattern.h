// Patterns: terms with variables, in egg's s-expression syntax.
//
//   (+ ?a (* ?b 0))   `?a` binds an e-class; a repeated variable must bind the
//                     same class (non-linear patterns)
//   (theta:?l ?x ?y)  `op:?l` matches any payload of `op` and binds it to ?l,
//                     so one rule covers every loop index (an extension; egg
//                     has no payloads)
//
// A pattern's nodes are stored children first; the last one is the root.
// Variables are numbered in order of first appearance, in two spaces: class
// variables and payload variables (VarTable).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/id.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/sexpr.h"

namespace augur::eqsat {

class VarTable {
 public:
  std::optional<std::uint32_t> find_class(std::string_view name) const;
  std::optional<std::uint32_t> find_payload(std::string_view name) const;
  std::uint32_t add_class(std::string_view name);
  std::uint32_t add_payload(std::string_view name);
  std::span<const std::string> class_names() const { return classes_; }
  std::span<const std::string> payload_names() const { return payloads_; }

 private:
  std::vector<std::string> classes_;
  std::vector<std::string> payloads_;
};

// A match's bindings: class variables, then payload variables, by index.
struct Subst {
  std::span<const Id> classes;
  std::span<const std::uint64_t> payloads;
  Id operator[](std::uint32_t class_var) const { return classes[class_var]; }
};

struct PatternNode {
  enum class Kind : std::uint8_t { Var, Node };
  Kind kind = Kind::Node;
  Label label;                           // Node
  std::uint32_t var = 0;                 // Var: class variable
  std::optional<std::uint32_t> payload;  // Node: payload variable instead of label.payload
  std::vector<std::uint32_t> children;   // Node: indices of earlier nodes
};

struct Pattern {
  std::vector<PatternNode> nodes;

  std::uint32_t root() const { return static_cast<std::uint32_t>(nodes.size() - 1); }
  bool is_var() const { return nodes.back().kind == PatternNode::Kind::Var; }

  // The e-node the pattern builds for a substitution: adds what is missing and
  // returns the root's id. `exact` returns the exact e-node's id
  // (EGraph::add_uncanonical) so explanations can cite it; otherwise the class.
  Id instantiate(EGraph& egraph, const Subst& subst, bool exact = false) const;
  // The class the pattern's root is in for a substitution, if the e-graph
  // already has every e-node it would build (as lookup(): rebuilt, exact).
  std::optional<Id> lookup(const EGraph& egraph, const Subst& subst) const;
};

// What may appear in a pattern being parsed: new variables (a left-hand side)
// or only variables already in `vars` (a right-hand side).
enum class NewVars : std::uint8_t { Allowed, Forbidden };

// Reads one pattern at the cursor, numbering its variables in `vars`.
Pattern parse_pattern(TokenCursor& cursor, Language& language, VarTable& vars, NewVars new_vars);
Pattern parse_pattern(std::string_view text, Language& language, VarTable& vars,
                      NewVars new_vars = NewVars::Allowed);

std::string print_pattern(const Pattern& pattern, const Language& language, const VarTable& vars);

}  // namespace augur::eqsat
