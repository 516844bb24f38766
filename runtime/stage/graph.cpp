#include "runtime/stage/graph.h"

#include <utility>

namespace augur::stage {

bool same_event(const Event& a, const Event& b) {
  return a.kind == b.kind && a.tag == b.tag && a.var == b.var && ir::same_expr(a.expr, b.expr) &&
         ir::same_expr(a.ptr, b.ptr) && ir::same_expr(a.index, b.index);
}

std::uint32_t TagIndex::find(Tag tag) const {
  if (slots_.empty()) return kNoNode;
  for (std::size_t i = home(tag);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& slot = slots_[i];
    if (slot.node == kNoNode || slot.tag == tag) return slot.node;
  }
}

std::uint32_t TagIndex::insert(Tag tag, std::uint32_t node) {
  if (2 * (count_ + 1) > slots_.size()) grow();
  for (std::size_t i = home(tag);; i = (i + 1) & (slots_.size() - 1)) {
    Slot& slot = slots_[i];
    if (slot.node == kNoNode) {
      slot = {tag, node};
      ++count_;
      return node;
    }
    if (slot.tag == tag) return slot.node;
  }
}

void TagIndex::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{});
  for (const Slot& slot : old) {
    if (slot.node == kNoNode) continue;
    std::size_t i = home(slot.tag);
    while (slots_[i].node != kNoNode) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = slot;
  }
}

void TagIndex::clear() {
  slots_.clear();
  count_ = 0;
}

std::uint32_t Graph::add(Event event) {
  const auto n = static_cast<std::uint32_t>(nodes_.size());
  Node node;
  node.event = std::move(event);
  const std::uint32_t first = by_tag_.insert(node.event.tag, n);
  if (first != n) {
    // Keep variants in creation order: append to the chain.
    std::uint32_t last = first;
    while (nodes_[last].next_variant != kNoNode) last = nodes_[last].next_variant;
    nodes_[last].next_variant = n;
  }
  nodes_.push_back(std::move(node));
  return n;
}

std::uint32_t Graph::find(const Event& event) const {
  for (std::uint32_t n = by_tag_.find(event.tag); n != kNoNode; n = nodes_[n].next_variant) {
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
