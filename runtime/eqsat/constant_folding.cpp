#include "runtime/eqsat/constant_folding.h"

#include <array>
#include <vector>

#include "jit/error.h"

namespace augur::eqsat {

std::optional<Label> ConstantFolding::fold_node(const EGraph&, const ENodeView& node) const {
  std::array<Label, 4> small;
  std::vector<Label> large;
  std::span<Label> constants(small.data(), node.children.size());
  if (node.children.size() > small.size()) {
    large.resize(node.children.size());
    constants = large;
  }
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    const std::optional<Label>& c = (*this)[node.children[i]];
    if (!c) return std::nullopt;
    constants[i] = *c;
  }
  return fold_(node.label, constants);
}

std::optional<Label> ConstantFolding::make(const EGraph& g, const ENodeView& node) const {
  return fold_node(g, node);
}

bool ConstantFolding::join(std::optional<Label>& into, const std::optional<Label>& from) const {
  if (!from) return false;
  if (!into) {
    into = from;
    return true;
  }
  if (*into != *from && !(options_.same && options_.same(*into, *from)))
    throw jit::error("constant folding: one e-class equals two constants (op " +
                     std::to_string(into->op) + " payload " + std::to_string(into->payload) +
                     ", op " + std::to_string(from->op) + " payload " +
                     std::to_string(from->payload) + "): a rule or the fold function is unsound");
  return false;
}

void ConstantFolding::modify(EGraph& g, Id cls) {
  const std::optional<Label> c = (*this)[cls];
  if (!c) return;
  if (!reason_) reason_ = g.reason(name());
  const Reason why = *reason_;
  if (g.explanations()) {
    // Record the fold as an equality between exact terms: the folded e-node
    // rebuilt over constant leaves, and the constant.
    for (Id n : g.nodes_of(cls)) {
      const ENodeView node = g.node(n);
      if (node.children.empty() || fold_node(g, node) != c) continue;
      std::vector<Id> leaves;
      for (Id child : node.children) leaves.push_back(g.add_uncanonical(*(*this)[child], {}));
      const Id folded = g.add_uncanonical(node.label, leaves);
      g.merge(folded, g.add_uncanonical(*c, {}), why);
      break;
    }
  }
  g.merge(cls, g.add(*c, {}), why);
  if (options_.prune) g.prune(cls, [](const ENodeView& n) { return n.children.empty(); });
}

}  // namespace augur::eqsat
