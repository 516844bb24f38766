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
  // A multiply-xorshift per word (the tag is a hash already), one finalizer.
  std::uint64_t h = event.tag.hi ^ event.tag.lo;
  const auto mix = [&h](std::uint64_t word) {
    h = (h ^ word) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  };
  mix(std::uint64_t{static_cast<std::uint8_t>(event.kind)} << 32 | event.var.index);
  for (std::size_t i = 0; i < queued; ++i) {
    // The fields same_node() compares, but the callee and the table.
    const ir::Expr& e = *queue[i];
    mix(static_cast<std::uint64_t>(e.kind) | std::uint64_t{e.op} << 8 |
        std::uint64_t{e.axis} << 16 | static_cast<std::uint64_t>(e.type.scalar()) << 24 |
        std::uint64_t{e.type.is_pointer()} << 32 | std::uint64_t{e.args.size()} << 40);
    mix(e.bits ^ std::uint64_t{e.var.index} * 0xc2b2ae3d27d4eb4full);
    for (const ir::ExprPtr& arg : e.args) push(arg);
  }
  return static_cast<std::uint32_t>(murmur_mix64(h) >> 32);
}

std::uint32_t EventIndex::find(const Event& event, std::uint32_t hash, const Graph& graph) const {
  static_assert(NodeIndex::kNone == kNoNode);
  return index_.find(hash, hash,
                     [&](std::uint32_t n) { return same_event(graph[n].event, event); });
}

std::uint32_t Graph::add(Event event, std::uint32_t hash) {
  by_event_.insert(hash, size_);
  return append(std::move(event));
}

std::uint32_t Graph::add(Event event) {
  const std::uint32_t hash = EventIndex::hash(event);
  if (find(event, hash) != kNoNode) return append(std::move(event));
  return add(std::move(event), hash);
}

std::uint32_t Graph::append(Event event) {
  const std::uint32_t n = size_;
  if (offset_in_chunk(n) == 0) {
    chunks_.emplace_back().reserve(n < kInSmallChunks ? kSmallChunk : kBigChunk);
  }
  chunks_.back().push_back(Node{std::move(event)});
  ++size_;
  return n;
}

std::uint32_t Graph::find(const Event& event, std::uint32_t hash) const {
  return by_event_.find(event, hash, *this);
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
