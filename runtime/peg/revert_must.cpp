// MustEval (Tate, §8.4): the nodes certainly evaluated when some roots are,
// at the current loop depth. A φ contributes its condition and what both
// branches evaluate; a loop (eval) is opaque but for the σ an effectful one
// starts from; nodes already computed, and σ already reached, contribute
// nothing.
#include <algorithm>
#include <iterator>
#include <utility>

#include "runtime/peg/revert_emitter.h"

namespace augur::peg::revert_detail {

NodeSet unite(const NodeSet& a, const NodeSet& b) {
  NodeSet out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

void unite_into(NodeSet& a, const NodeSet& b) {
  if (b.empty()) return;
  if (a.empty()) {
    a = b;
    return;
  }
  // Merged from the back, where the room is, then without the duplicates.
  std::size_t i = a.size(), j = b.size(), k = i + j;
  a.resize(k);
  while (j > 0) a[--k] = (i > 0 && a[i - 1] > b[j - 1]) ? a[--i] : b[--j];
  a.erase(std::unique(a.begin(), a.end()), a.end());
}

NodeSet intersect(const NodeSet& a, const NodeSet& b) {
  NodeSet out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

NodeSet Emitter::must(std::span<const std::uint32_t> roots, unsigned init_loop) {
  NodeSetMemoHandle memo = node_set_memo();
  const auto rec = [&](const auto& self, std::uint32_t n) -> const NodeSet& {
    // The slot stays where it is while the recursion fills others, and
    // empty until the end: a cycle adds nothing.
    const auto [slot, seen] = memo->slot(n);
    if (seen) return slot;
    const PegNode& p = node(n);
    NodeSet out;
    const auto add_children = [&](std::size_t first) {
      for (std::size_t i = first; i < p.children.size(); ++i)
        unite_into(out, self(self, p.children[i]));
    };
    switch (p.kind()) {
      case Kind::Const:
      case Kind::Param:
      case Kind::Shared:
      case Kind::GpuIndex:
      case Kind::StateIn:
      case Kind::Table:
        break;
      case Kind::Theta:
        if (p.loop() == init_loop && !lookup(n)) out = unite({n}, self(self, p.children[0]));
        break;
      case Kind::Phi:
        if (lookup(n) || (p.type().is_state() && reached(n))) break;
        if (std::optional<bool> k = known(p.children[0])) {
          out = unite({n}, self(self, p.children[*k ? 1 : 2]));
        } else {
          out = unite({n}, unite(self(self, p.children[0]),
                                 intersect(self(self, p.children[1]), self(self, p.children[2]))));
        }
        break;
      case Kind::Eval:
        if (lookup(n) || (p.type().is_state() && reached(n))) break;
        if (invariant_eval(n)) {
          out = self(self, p.children[0]);
          break;
        }
        out = unite({n}, {p.children[1]});
        // An effectful loop starts from its θ's initial σ.
        if (p.type().is_state())
          if (const std::optional<std::uint32_t> in = input_of(n)) unite_into(out, self(self, *in));
        break;
      default:
        if (lookup(n) || (p.type().is_state() && reached(n))) break;
        out = {n};
        add_children(0);
        break;
    }
    spend(1 + out.size());
    slot = std::move(out);
    return slot;
  };
  NodeSet out;
  for (std::uint32_t r : roots) unite_into(out, rec(rec, r));
  return out;
}

}  // namespace augur::peg::revert_detail
