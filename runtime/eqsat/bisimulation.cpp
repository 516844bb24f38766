#include "runtime/eqsat/bisimulation.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace augur::eqsat {

namespace {

// A partition of the elements 0..n-1 into sets, each a contiguous range of
// `elements`; elements can be marked, and split() then separates each touched
// set's marked elements from the others, giving the new set number to the
// smaller part (Valmari's "refinable partition").
class Refinable {
 public:
  explicit Refinable(std::size_t n)
      : elements_(n), location_(n), set_(n, 0), first_(n), past_(n), marked_(n, 0) {
    std::iota(elements_.begin(), elements_.end(), 0u);
    std::iota(location_.begin(), location_.end(), 0u);
    if (n > 0) {
      sets_ = 1;
      first_[0] = 0;
      past_[0] = static_cast<std::uint32_t>(n);
    }
  }

  std::uint32_t sets() const { return sets_; }
  std::uint32_t set_of(std::uint32_t e) const { return set_[e]; }
  std::span<const std::uint32_t> members(std::uint32_t s) const {
    return std::span<const std::uint32_t>(elements_).subspan(first_[s], past_[s] - first_[s]);
  }

  // Moves `e` into its set's marked prefix. An element is marked at most
  // once between two split()s.
  void mark(std::uint32_t e) {
    const std::uint32_t s = set_[e];
    const std::uint32_t i = location_[e];
    const std::uint32_t j = first_[s] + marked_[s];
    elements_[i] = elements_[j];
    location_[elements_[i]] = i;
    elements_[j] = e;
    location_[e] = j;
    if (marked_[s]++ == 0) touched_.push_back(s);
  }

  void split() {
    while (!touched_.empty()) {
      const std::uint32_t s = touched_.back();
      touched_.pop_back();
      const std::uint32_t j = first_[s] + marked_[s];
      marked_[s] = 0;
      if (j == past_[s]) continue;  // every element marked: nothing to split
      const std::uint32_t z = sets_++;
      if (j - first_[s] <= past_[s] - j) {
        first_[z] = first_[s];
        past_[z] = first_[s] = j;
      } else {
        past_[z] = past_[s];
        first_[z] = past_[s] = j;
      }
      for (std::uint32_t i = first_[z]; i < past_[z]; ++i) set_[elements_[i]] = z;
      marked_[z] = 0;
    }
  }

 private:
  std::vector<std::uint32_t> elements_, location_, set_, first_, past_, marked_, touched_;
  std::uint32_t sets_ = 0;
};

// Splits the partition's single set into the groups `key` gives: marking a
// group and splitting separates it from what is left.
template <class Key>
void split_by(Refinable& p, std::size_t n, Key key) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && key(order[j]) == key(order[i])) p.mark(order[j++]);
    p.split();
    i = j;
  }
}

}  // namespace

std::vector<std::uint32_t> coarsest_bisimulation(std::span<const std::uint32_t> initial,
                                                 std::span<const Transition> transitions) {
  const std::size_t n = initial.size();
  const std::size_t m = transitions.size();
  Refinable blocks(n);
  split_by(blocks, n, [&](std::uint32_t s) { return initial[s]; });
  // Cords: the transitions, first by label, later also by their head's block.
  Refinable cords(m);
  split_by(cords, m, [&](std::uint32_t t) { return transitions[t].label; });

  // The transitions into each state.
  std::vector<std::uint32_t> in_first(n + 1, 0), in(m);
  for (const Transition& t : transitions) ++in_first[t.head + 1];
  std::partial_sum(in_first.begin(), in_first.end(), in_first.begin());
  {
    std::vector<std::uint32_t> fill(in_first.begin(), in_first.end() - 1);
    for (std::uint32_t t = 0; t < m; ++t) in[fill[transitions[t].head]++] = t;
  }

  // Block 0 never splits anything: every cord does, and a block split off
  // later is smaller than what stays (Hopcroft's "the smaller half").
  std::uint32_t next_block = 1;
  for (std::uint32_t c = 0; c < cords.sets(); ++c) {
    for (std::uint32_t t : cords.members(c)) blocks.mark(transitions[t].tail);
    blocks.split();
    for (; next_block < blocks.sets(); ++next_block) {
      for (std::uint32_t s : blocks.members(next_block))
        for (std::uint32_t i = in_first[s]; i < in_first[s + 1]; ++i) cords.mark(in[i]);
      cords.split();
    }
  }

  std::vector<std::uint32_t> out(n);
  for (std::uint32_t s = 0; s < n; ++s) out[s] = blocks.set_of(s);
  return out;
}

std::size_t merge_bisimilar_classes(EGraph& g) {
  const std::span<const Id> classes = g.classes();
  const std::size_t n = classes.size();
  std::uint32_t max_index = 0;
  for (Id c : classes) max_index = std::max(max_index, index(c));
  std::vector<std::uint32_t> state_of(n == 0 ? 0 : max_index + 1, 0);
  for (std::uint32_t s = 0; s < n; ++s) state_of[index(classes[s])] = s;

  // Initial blocks: one per (label, arity) among the one-node classes, one
  // per other class.
  using Key = std::tuple<Op, std::uint64_t, std::size_t>;
  std::vector<Key> keys;
  std::vector<std::uint32_t> initial(n);
  std::vector<Transition> transitions;
  std::vector<std::pair<Key, std::uint32_t>> one_node;
  std::uint32_t blocks = 0;
  for (std::uint32_t s = 0; s < n; ++s) {
    const std::span<const Id> nodes = g.nodes_of(classes[s]);
    if (nodes.size() != 1) {
      initial[s] = blocks++;
      continue;
    }
    const ENodeView node = g.node(nodes[0]);
    one_node.emplace_back(Key{node.label.op, node.label.payload, node.children.size()}, s);
    for (std::uint32_t i = 0; i < node.children.size(); ++i)
      transitions.push_back({s, i, state_of[index(g.find(node.children[i]))]});
  }
  std::sort(one_node.begin(), one_node.end());
  for (std::size_t i = 0; i < one_node.size(); ++i) {
    if (i > 0 && one_node[i].first != one_node[i - 1].first) ++blocks;
    initial[one_node[i].second] = blocks;
  }

  const std::vector<std::uint32_t> block = coarsest_bisimulation(initial, transitions);
  std::vector<std::uint32_t> first_in_block(n, ~std::uint32_t{0});
  std::vector<std::pair<Id, Id>> merges;
  for (std::uint32_t s = 0; s < n; ++s) {
    std::uint32_t& first = first_in_block[block[s]];
    if (first == ~std::uint32_t{0}) {
      first = s;
    } else {
      merges.emplace_back(classes[first], classes[s]);
    }
  }
  std::size_t merged = 0;
  for (const auto& [a, b] : merges) merged += g.merge(a, b) ? 1 : 0;
  g.rebuild();
  return merged;
}

}  // namespace augur::eqsat
