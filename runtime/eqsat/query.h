// Queries: the left-hand side of a rule, compiled for e-matching.
//
// A query is one pattern, or a multi-pattern `?x = (f ?a), ?y = (g ?a)`: a list
// of patterns each bound to a variable, all matched under one substitution
// (egg's MultiPattern). It compiles to a small backtracking machine (egg's
// "abstract machine" of Bind/Compare/Scan instructions): Bind walks the
// e-nodes of one class with the wanted label and loads their children into
// registers, Compare enforces a repeated variable, Scan starts each further
// pattern of a multi-pattern at every candidate class.
//
// Searching reads a clean e-graph only and may run on many threads at once.
// The matches of one class come out in a fixed order, so the result of a
// search is a function of the e-graph alone. There are no duplicates: in a
// congruent e-graph a substitution determines the class of every subpattern,
// and a label with children classes determines the e-node. An e-node of a
// commutative operator (EGraphOptions) binds in both orders of its children.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/pattern.h"
#include "runtime/eqsat/stamped_set.h"

namespace augur::eqsat {

// Matches stored flat: one root and one row of bindings per match.
class Matches {
 public:
  Matches(std::size_t class_vars, std::size_t payload_vars)
      : class_vars_(class_vars), payload_vars_(payload_vars) {}

  std::size_t size() const { return roots_.size(); }
  Id root(std::size_t i) const { return roots_[i]; }
  Subst operator[](std::size_t i) const {
    return {std::span<const Id>(classes_).subspan(i * class_vars_, class_vars_),
            std::span<const std::uint64_t>(payloads_).subspan(i * payload_vars_, payload_vars_)};
  }

  void push(Id root, std::span<const Id> classes, std::span<const std::uint64_t> payloads);
  // Bytes the buffer holds (its capacity).
  std::size_t memory_bytes() const {
    return roots_.capacity() * sizeof(Id) + classes_.capacity() * sizeof(Id) +
           payloads_.capacity() * sizeof(std::uint64_t);
  }
  // Empties the buffer for matches of `query`'s shape, keeping its memory.
  void reset(std::size_t class_vars, std::size_t payload_vars) {
    class_vars_ = class_vars;
    payload_vars_ = payload_vars;
    roots_.clear();
    classes_.clear();
    payloads_.clear();
  }

 private:
  std::size_t class_vars_;
  std::size_t payload_vars_;
  std::vector<Id> roots_;
  std::vector<Id> classes_;
  std::vector<std::uint64_t> payloads_;
};

class Query {
 public:
  struct Binding {
    std::uint32_t var;  // class variable the pattern's root is bound to
    Pattern pattern;
  };

  // A single pattern; its root is bound to no variable.
  Query(Pattern pattern, VarTable vars);
  // A multi-pattern; the first pattern must not be a bare variable.
  Query(std::vector<Binding> bindings, VarTable vars);

  // Reads a pattern or a multi-pattern from text.
  static Query parse(std::string_view text, Language& language);
  static Query parse(TokenCursor& cursor, Language& language);

  const VarTable& vars() const { return vars_; }
  bool is_multi() const { return multi_; }
  std::span<const Binding> bindings() const { return bindings_; }
  // The single pattern (not a multi-pattern).
  const Pattern& pattern() const { return bindings_.front().pattern; }

  Matches make_matches() const {
    return Matches(vars_.class_names().size(), vars_.payload_names().size());
  }
  // The operator of the (first) pattern's root; none when it is a variable.
  std::optional<Op> root_op() const;
  // The classes a match can be rooted at.
  std::span<const Id> candidates(const EGraph& egraph) const;
  // The operators every match has an e-node of (each pattern node's but the
  // variables'), without repeats: while one of them is in no class, the
  // query has no match.
  std::span<const Op> required_ops() const { return required_ops_; }
  // Whether every required operator is in some class (clean e-graph).
  bool may_match(const EGraph& egraph) const;
  // The most child steps from the (first) pattern's root to one of its
  // nodes, variables included: every class a match binds is at most this
  // many steps below its root.
  std::uint32_t depth() const { return depth_; }
  // Keeps a match only if it returns true (a rule's guards).
  using Filter = std::function<bool(Id root, const Subst&)>;
  // Appends the matches rooted at each of `classes` (canonical ids, as
  // candidates() gives them) to `out`, class by class, keeping those
  // `accept` (if set) accepts; stops once `out` holds `limit` matches.
  // Returns whether it stopped early. With `only_new` (incremental search),
  // only the matches that use an e-node the last rebuild made new
  // (EGraph::is_new) or bind a class in `only_new` (classes whose analysis
  // data changed) are kept: the others were matches at the search before.
  bool search_classes(const EGraph& egraph, std::span<const Id> classes, Matches& out,
                      std::size_t limit = std::numeric_limits<std::size_t>::max(),
                      const Filter& accept = {}, const StampedSet* only_new = nullptr) const;
  bool matches_class(const EGraph& egraph, Id cls) const;
  // All matches, in candidate order.
  Matches search(const EGraph& egraph) const;

 private:
  struct Instruction {
    enum class Kind : std::uint8_t { Bind, Compare, Scan };
    Kind kind = Kind::Bind;
    std::uint32_t in = 0;   // Bind: class register; Compare: first register
    std::uint32_t out = 0;  // Bind: first child register; Compare: second; Scan: target
    Label label;            // Bind: wanted label; Scan: root operator when scan_op
    std::uint32_t arity = 0;
    std::int32_t payload = -1;   // Bind: payload variable, or -1 for an exact label
    bool binds_payload = false;  // Bind: first use of the payload variable
    bool scan_op = false;        // Scan: only classes with label.op
  };
  class Machine;

  void compile();
  void compile_pattern(const Pattern& pattern, std::uint32_t node, std::uint32_t reg,
                       std::vector<std::int64_t>& var_reg, std::vector<bool>& payload_bound);

  std::vector<Binding> bindings_;
  VarTable vars_;
  bool multi_ = false;
  std::vector<Instruction> program_;
  std::vector<std::uint32_t> var_register_;  // class variable -> register
  std::uint32_t registers_ = 0;
  std::vector<Op> required_ops_;
  std::uint32_t depth_ = 0;
};

}  // namespace augur::eqsat
