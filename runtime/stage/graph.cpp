#include "runtime/stage/graph.h"

#include <array>
#include <utility>

namespace augur::stage {

bool same_event(const Event& a, const Event& b) {
  return a.kind == b.kind && a.tag == b.tag && a.var == b.var && ir::same_expr(a.expr, b.expr) &&
         ir::same_expr(a.ptr, b.ptr) && ir::same_expr(a.index, b.index);
}

std::uint32_t EventIndex::hash(const Event& event) {
  // Breadth first from the roots, kHashedNodes at most: the statements a
  // call site makes differ near their roots (a constant, a variable, an
  // operator), and a bounded walk keeps recording linear in the program.
  constexpr std::size_t kHashedNodes = 12;
  std::array<const ir::Expr*, kHashedNodes> queue{};
  std::size_t queued = 0;
  const auto push = [&](const ir::ExprPtr& e) {
    if (e && queued < kHashedNodes) queue[queued++] = e.get();
  };
  push(event.expr);
  push(event.ptr);
  push(event.index);
  TagHasher hasher;
  hasher.add(event.tag);
  hasher.add(std::uint64_t{static_cast<std::uint8_t>(event.kind)} << 32 | event.var.index);
  for (std::size_t i = 0; i < queued; ++i) {
    // The fields same_node() compares, but the callee and the table.
    const ir::Expr& e = *queue[i];
    hasher.add(static_cast<std::uint64_t>(e.kind) | std::uint64_t{e.op} << 8 |
               std::uint64_t{e.axis} << 16 | static_cast<std::uint64_t>(e.type.scalar()) << 24 |
               std::uint64_t{e.type.is_pointer()} << 32 | std::uint64_t{e.args.size()} << 40);
    hasher.add(e.bits);
    hasher.add(e.var.index);
    for (const ir::ExprPtr& arg : e.args) push(arg);
  }
  return static_cast<std::uint32_t>(hasher.finish().lo);
}

std::uint32_t EventIndex::find(const Event& event, const Graph& graph) const {
  static_assert(NodeIndex::kNone == kNoNode);
  const std::uint32_t h = hash(event);
  return index_.find(h, h, [&](std::uint32_t n) { return same_event(graph[n].event, event); });
}

void EventIndex::insert(const Event& event, std::uint32_t node) {
  const std::uint32_t h = hash(event);
  index_.insert(h, h, node);
}

std::uint32_t Graph::add(Event event) {
  const std::uint32_t n = size_;
  by_event_.insert(event, n);
  if (offset_in_chunk(n) == 0) {
    chunks_.emplace_back().reserve(n < kInSmallChunks ? kSmallChunk : kBigChunk);
  }
  chunks_.back().push_back(Node{std::move(event)});
  ++size_;
  return n;
}

std::uint32_t Graph::find(const Event& event) const {
  return by_event_.find(event, *this);
}

void Graph::forget_tags() {
  by_event_.clear();
}

void Graph::clear() {
  chunks_.clear();
  size_ = 0;
  by_event_.clear();
  vars.clear();
}

}  // namespace augur::stage
