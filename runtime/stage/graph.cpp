#include "runtime/stage/graph.h"

#include <utility>

namespace augur::stage {

bool same_event(const Event& a, const Event& b) {
  return a.kind == b.kind && a.tag == b.tag && a.var == b.var && ir::same_expr(a.expr, b.expr) &&
         ir::same_expr(a.ptr, b.ptr) && ir::same_expr(a.index, b.index);
}

std::uint32_t Graph::add(Event event) {
  const auto n = static_cast<std::uint32_t>(nodes_.size());
  Node node;
  node.event = std::move(event);
  auto [it, inserted] = by_tag_.try_emplace(node.event.tag, n);
  if (!inserted) {
    // Keep variants in creation order: append to the chain.
    std::uint32_t last = it->second;
    while (nodes_[last].next_variant != kNoNode) last = nodes_[last].next_variant;
    nodes_[last].next_variant = n;
  }
  nodes_.push_back(std::move(node));
  return n;
}

std::uint32_t Graph::find(const Event& event) const {
  auto it = by_tag_.find(event.tag);
  if (it == by_tag_.end()) return kNoNode;
  for (std::uint32_t n = it->second; n != kNoNode; n = nodes_[n].next_variant) {
    if (same_event(nodes_[n].event, event)) return n;
  }
  return kNoNode;
}

void Graph::clear() {
  nodes_.clear();
  by_tag_.clear();
  vars.clear();
}

}  // namespace augur::stage
