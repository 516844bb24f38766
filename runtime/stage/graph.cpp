#include "runtime/stage/graph.h"

#include <utility>

namespace augur::stage {

bool same_event(const Event& a, const Event& b) {
  return a.kind == b.kind && a.tag == b.tag && a.var == b.var && ir::same_expr(a.expr, b.expr) &&
         ir::same_expr(a.ptr, b.ptr) && ir::same_expr(a.index, b.index);
}

std::uint32_t TagIndex::find(Tag tag, const Graph& graph) const {
  static_assert(NodeIndex::kNone == kNoNode);
  const std::uint32_t h = hash(tag);
  return index_.find(h, h, [&](std::uint32_t n) { return graph[n].event.tag == tag; });
}

std::uint32_t TagIndex::insert(Tag tag, std::uint32_t node, const Graph& graph) {
  if (const std::uint32_t first = find(tag, graph); first != kNoNode) return first;
  const std::uint32_t h = hash(tag);
  index_.insert(h, h, node);
  return node;
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
