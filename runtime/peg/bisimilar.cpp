#include "runtime/peg/bisimilar.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace augur::peg {

namespace {

using eqsat::EGraph;
using eqsat::Id;

std::uint64_t key(Id a, Id b) {
  return (std::uint64_t{eqsat::index(a)} << 32) | eqsat::index(b);
}

}  // namespace

std::size_t merge_bisimilar(EGraph& g, std::span<const Id> seed_list, bool seeds_only) {
  std::unordered_set<std::uint32_t> seeds;
  for (Id s : seed_list) seeds.insert(eqsat::index(g.find(s)));
  const auto is_seed = [&](Id c) { return seeds.contains(eqsat::index(g.find(c))); };

  // Candidate pairs: a seed and a class with an e-node of the same label
  // whose children already match wherever the seed's child is no seed.
  std::unordered_set<std::uint64_t> related;
  std::vector<std::pair<Id, Id>> pairs;
  for (std::uint32_t a_index : seeds) {
    const Id a = eqsat::make_id(a_index);
    for (Id n : g.nodes_of(a)) {
      const eqsat::ENodeView nv = g.node(n);
      for (Id b : g.classes_with(nv.label.op)) {
        if (b == a || (seeds_only && !is_seed(b)) || related.contains(key(a, b))) continue;
        for (const EGraph::IndexedNode& m : g.indexed(b, nv.label)) {
          const std::span<const Id> mc = g.children_of(m);
          bool fits = mc.size() == nv.children.size();
          for (std::size_t i = 0; fits && i < mc.size(); ++i)
            fits = is_seed(nv.children[i]) || g.find(nv.children[i]) == g.find(mc[i]);
          if (fits) {
            related.insert(key(a, b));
            pairs.emplace_back(a, b);
            break;
          }
        }
      }
    }
  }

  // Remove pairs no e-node pair supports, until none is left to remove.
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<std::pair<Id, Id>> kept;
    for (const auto& [a, b] : pairs) {
      bool supported = false;
      for (Id n : g.nodes_of(a)) {
        const eqsat::ENodeView nv = g.node(n);
        for (const EGraph::IndexedNode& m : g.indexed(b, nv.label)) {
          const std::span<const Id> mc = g.children_of(m);
          bool fits = mc.size() == nv.children.size();
          for (std::size_t i = 0; fits && i < mc.size(); ++i) {
            const Id x = g.find(nv.children[i]), y = g.find(mc[i]);
            fits = x == y || related.contains(key(x, y));
          }
          if (fits) {
            supported = true;
            break;
          }
        }
        if (supported) break;
      }
      if (supported) {
        kept.emplace_back(a, b);
      } else {
        related.erase(key(a, b));
        changed = true;
      }
    }
    pairs = std::move(kept);
  }

  std::size_t merges = 0;
  for (const auto& [a, b] : pairs) merges += g.merge(a, b) ? 1 : 0;
  g.rebuild();
  return merges;
}

}  // namespace augur::peg
