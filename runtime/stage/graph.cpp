#include "runtime/stage/graph.h"

#include <bit>
#include <utility>

namespace augur::stage {

bool same_event(const Event& a, const Event& b) {
  return a.kind == b.kind && a.tag == b.tag && a.var == b.var && ir::same_expr(a.expr, b.expr) &&
         ir::same_expr(a.ptr, b.ptr) && ir::same_expr(a.index, b.index);
}

std::uint32_t TagIndex::find(Tag tag, const Graph& graph) const {
  if (slots_.empty()) return kNoNode;
  const std::uint32_t h = hash(tag);
  for (std::size_t i = home(h);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& slot = slots_[i];
    if (slot.node == kNoNode) return kNoNode;
    if (slot.hash == h && graph[slot.node].event.tag == tag) return slot.node;
  }
}

std::uint32_t TagIndex::insert(Tag tag, std::uint32_t node, const Graph& graph) {
  if (4 * (count_ + 1) > 3 * slots_.size()) grow();
  const std::uint32_t h = hash(tag);
  for (std::size_t i = home(h);; i = (i + 1) & (slots_.size() - 1)) {
    Slot& slot = slots_[i];
    if (slot.node == kNoNode) {
      slot = {h, node};
      ++count_;
      return node;
    }
    if (slot.hash == h && graph[slot.node].event.tag == tag) return slot.node;
  }
}

void TagIndex::grow() {
  BigVector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{});
  shift_ = 32 - static_cast<unsigned>(std::countr_zero(slots_.size()));
  // Homes are the hash's top bits: the old slots, in order, fill the new
  // table nearly in order.
  for (const Slot& slot : old) {
    if (slot.node == kNoNode) continue;
    std::size_t i = home(slot.hash);
    while (slots_[i].node != kNoNode) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = slot;
  }
}

void TagIndex::clear() {
  BigVector<Slot>().swap(slots_);
  count_ = 0;
  shift_ = 32;
}

std::uint32_t Graph::add(Event event) {
  const std::uint32_t n = size_;
  const std::uint32_t first = by_tag_.insert(event.tag, n, *this);
  if (first != n) {
    // Keep variants in creation order: append to the chain.
    std::uint32_t last = first;
    while ((*this)[last].next_variant != kNoNode) last = (*this)[last].next_variant;
    (*this)[last].next_variant = n;
  }
  if (offset_in_chunk(n) == 0) {
    chunks_.emplace_back().reserve(n < kInSmallChunks ? kSmallChunk : kBigChunk);
  }
  chunks_.back().push_back(Node{std::move(event)});
  ++size_;
  return n;
}

std::uint32_t Graph::find(const Event& event) const {
  for (std::uint32_t n = by_tag_.find(event.tag, *this); n != kNoNode;
       n = (*this)[n].next_variant) {
    if (same_event((*this)[n].event, event)) return n;
  }
  return kNoNode;
}

void Graph::forget_tags() {
  by_tag_.clear();
}

void Graph::clear() {
  chunks_.clear();
  size_ = 0;
  by_tag_.clear();
  vars.clear();
}

}  // namespace augur::stage
