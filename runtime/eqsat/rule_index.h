// What the runner reads about every rule at every iteration, laid out once
// per rule set in a few contiguous arrays: each rule's root operator (an
// iteration looks only at the rules rooted at an operator some class
// holds), the operators its patterns need (a rule one of whose operators no
// class holds has no match) and the sizes of its matches. The rules
// themselves are scattered over the heap, and reading each one's patterns at
// every iteration cost a cache miss per rule (a rule set has ~1,500).
//
// The index refers to the rules; they must outlive it and stay unchanged.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/eqsat/rewrite.h"

namespace augur::eqsat {

class RuleIndex {
 public:
  explicit RuleIndex(std::span<const Rewrite> rules);

  std::span<const Rewrite> rules() const { return rules_; }
  std::size_t size() const { return rules_.size(); }

  // The rules (ascending indices) whose first pattern is rooted at `op`.
  std::span<const std::uint32_t> rooted_at(Op op) const {
    if (op + 1 >= root_begin_.size()) return {};
    return std::span<const std::uint32_t>(root_rules_)
        .subspan(root_begin_[op], root_begin_[op + 1] - root_begin_[op]);
  }
  // The operators some rule is rooted at, ascending.
  std::span<const Op> root_ops() const { return root_ops_; }
  // The rules rooted at a variable: every class is a candidate.
  std::span<const std::uint32_t> rooted_anywhere() const { return anywhere_; }

  // Whether every operator rule `r` needs is in some class (clean e-graph).
  bool may_match(std::uint32_t r, const EGraph& egraph) const;
  // The classes a match of rule `r` can be rooted at.
  std::span<const Id> candidates(std::uint32_t r, const EGraph& egraph) const;
  // Whether rule `r` is searched incrementally (Rewrite::incremental), and
  // how far below its root a match binds classes (Query::depth).
  bool incremental(std::uint32_t r) const { return shape_[r].incremental; }
  // Whether a match that binds a class with new e-nodes is new to rule `r`
  // (Reads::Classes), not only one whose class's data changed.
  bool reads_classes(std::uint32_t r) const { return shape_[r].reads_classes; }
  std::uint32_t depth(std::uint32_t r) const { return shape_[r].depth; }
  // An empty buffer for rule `r`'s matches.
  void reset(std::uint32_t r, Matches& buffer) const {
    buffer.reset(shape_[r].class_vars, shape_[r].payload_vars);
  }

 private:
  struct Shape {
    bool rooted = false;  // root_op is the first pattern's root operator
    bool incremental = false;
    bool reads_classes = false;
    std::uint32_t depth = 0;
    Op root_op = 0;
    std::uint32_t class_vars = 0;
    std::uint32_t payload_vars = 0;
    std::uint32_t required_begin = 0;  // into required_
    std::uint32_t required_end = 0;
  };

  std::span<const Rewrite> rules_;
  std::vector<Shape> shape_;
  std::vector<Op> required_;
  std::vector<std::uint32_t> root_begin_;  // by operator, into root_rules_
  std::vector<std::uint32_t> root_rules_;
  std::vector<std::uint32_t> anywhere_;
  std::vector<Op> root_ops_;
};

}  // namespace augur::eqsat
