#include "runtime/eqsat/rule_index.h"

#include <algorithm>

namespace augur::eqsat {

RuleIndex::RuleIndex(std::span<const Rewrite> rules) : rules_(rules) {
  shape_.reserve(rules.size());
  Op ops = 0;
  for (std::uint32_t r = 0; r < rules.size(); ++r) {
    const Query& q = rules[r].query();
    Shape s;
    if (const std::optional<Op> op = q.root_op()) {
      s.rooted = true;
      s.root_op = *op;
      ops = std::max(ops, *op + 1);
    } else {
      anywhere_.push_back(r);
    }
    s.incremental = rules[r].incremental();
    s.reads_classes = rules[r].reads() == Reads::Classes;
    s.depth = q.depth();
    s.class_vars = static_cast<std::uint32_t>(q.vars().class_names().size());
    s.payload_vars = static_cast<std::uint32_t>(q.vars().payload_names().size());
    s.required_begin = static_cast<std::uint32_t>(required_.size());
    required_.insert(required_.end(), q.required_ops().begin(), q.required_ops().end());
    s.required_end = static_cast<std::uint32_t>(required_.size());
    shape_.push_back(s);
  }
  // Rules by root operator, ascending within each operator (counting sort).
  root_begin_.assign(ops + 1, 0);
  for (const Shape& s : shape_)
    if (s.rooted) ++root_begin_[s.root_op + 1];
  for (Op op = 0; op < ops; ++op)
    if (root_begin_[op + 1] > 0) root_ops_.push_back(op);
  for (std::size_t i = 1; i < root_begin_.size(); ++i) root_begin_[i] += root_begin_[i - 1];
  root_rules_.resize(rules.size() - anywhere_.size());
  std::vector<std::uint32_t> fill(root_begin_.begin(), root_begin_.end() - 1);
  for (std::uint32_t r = 0; r < shape_.size(); ++r)
    if (shape_[r].rooted) root_rules_[fill[shape_[r].root_op]++] = r;
}

bool RuleIndex::may_match(std::uint32_t r, const EGraph& egraph) const {
  const Shape& s = shape_[r];
  for (std::uint32_t i = s.required_begin; i < s.required_end; ++i)
    if (egraph.classes_with(required_[i]).empty()) return false;
  return true;
}

std::span<const Id> RuleIndex::candidates(std::uint32_t r, const EGraph& egraph) const {
  return shape_[r].rooted ? egraph.classes_with(shape_[r].root_op) : egraph.classes();
}

}  // namespace augur::eqsat
