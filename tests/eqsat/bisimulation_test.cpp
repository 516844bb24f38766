// Partition refinement against the definition: on random deterministic
// graphs, coarsest_bisimulation relates exactly the states a naive fixpoint
// (split blocks by their successors' blocks until nothing changes) relates;
// on an e-graph, two loops built apart become one class.
#include "runtime/eqsat/bisimulation.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "runtime/eqsat/egraph.h"

namespace augur::eqsat {
namespace {

// Moore's refinement: O(n × rounds), obviously right.
std::vector<std::uint32_t> naive(std::span<const std::uint32_t> initial,
                                 std::span<const Transition> transitions, std::uint32_t labels) {
  const std::size_t n = initial.size();
  std::vector<std::vector<std::int64_t>> next(n, std::vector<std::int64_t>(labels, -1));
  for (const Transition& t : transitions) next[t.tail][t.label] = t.head;
  std::vector<std::uint32_t> block(initial.begin(), initial.end());
  for (;;) {
    std::map<std::vector<std::int64_t>, std::uint32_t> ids;
    std::vector<std::uint32_t> refined(n);
    for (std::size_t s = 0; s < n; ++s) {
      std::vector<std::int64_t> signature{block[s]};
      for (std::int64_t h : next[s]) signature.push_back(h < 0 ? -1 : block[h]);
      refined[s] = ids.emplace(signature, static_cast<std::uint32_t>(ids.size())).first->second;
    }
    const std::set<std::uint32_t> before(block.begin(), block.end());
    if (ids.size() == before.size()) return refined;
    block = refined;
  }
}

// Whether two numberings put the same states together.
bool same_partition(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::map<std::uint32_t, std::uint32_t> ab, ba;
  for (std::size_t s = 0; s < a.size(); ++s) {
    if (ab.emplace(a[s], b[s]).first->second != b[s]) return false;
    if (ba.emplace(b[s], a[s]).first->second != a[s]) return false;
  }
  return true;
}

TEST(Bisimulation, AgreesWithTheNaiveFixpointOnRandomGraphs) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    const std::uint32_t n = 1 + rng() % 40, labels = 1 + rng() % 3, colors = 1 + rng() % 3;
    std::vector<std::uint32_t> initial(n);
    for (std::uint32_t& c : initial) c = rng() % colors;
    std::vector<Transition> transitions;
    for (std::uint32_t s = 0; s < n; ++s)
      for (std::uint32_t l = 0; l < labels; ++l)
        if (rng() % 4 != 0) transitions.push_back({s, l, static_cast<std::uint32_t>(rng() % n)});
    const std::vector<std::uint32_t> fast = coarsest_bisimulation(initial, transitions);
    const std::vector<std::uint32_t> slow = naive(initial, transitions, labels);
    ASSERT_TRUE(same_partition(fast, slow)) << "round " << round;
  }
}

TEST(Bisimulation, TwoCyclesOfOneShapeAreOneBlock) {
  // 0 → 1 → 0 and 2 → 3 → 2 with the same colors; 4 → 4 of another color.
  const std::vector<std::uint32_t> initial{0, 1, 0, 1, 2};
  const std::vector<Transition> t{{0, 0, 1}, {1, 0, 0}, {2, 0, 3}, {3, 0, 2}, {4, 0, 4}};
  const std::vector<std::uint32_t> b = coarsest_bisimulation(initial, t);
  EXPECT_EQ(b[0], b[2]);
  EXPECT_EQ(b[1], b[3]);
  EXPECT_NE(b[0], b[1]);
  EXPECT_NE(b[4], b[0]);
}

TEST(Bisimulation, ALongChainSplitsFromItsEnd) {
  // A chain ending in a differently colored state: every position differs.
  constexpr std::uint32_t kN = 2'000;
  std::vector<std::uint32_t> initial(kN, 0);
  initial.back() = 1;
  std::vector<Transition> t;
  for (std::uint32_t s = 0; s + 1 < kN; ++s) t.push_back({s, 0, s + 1});
  const std::vector<std::uint32_t> b = coarsest_bisimulation(initial, t);
  std::vector<bool> seen(kN, false);
  for (std::uint32_t x : b) {
    ASSERT_LT(x, kN);
    EXPECT_FALSE(seen[x]);
    seen[x] = true;
  }
}

TEST(Bisimulation, MergesLoopsBuiltApartInAnEGraph) {
  EGraph g;
  const Label zero{1, 0}, inc{2, 0}, loop{3, 0};
  const Id z = g.add(zero);
  // Two counters x = loop(0, x + 1), built separately through placeholders.
  std::vector<Id> counters;
  for (int i = 0; i < 2; ++i) {
    const Id self = g.add_placeholder();
    const Id next = g.add(inc, {self});
    const Id theta = g.add(loop, {z, next});
    g.merge(self, theta);
    counters.push_back(theta);
  }
  g.rebuild();
  ASSERT_FALSE(g.equivalent(counters[0], counters[1]));
  EXPECT_GE(merge_bisimilar_classes(g), 1u);
  EXPECT_TRUE(g.equivalent(counters[0], counters[1]));
  EXPECT_FALSE(g.equivalent(counters[0], z));
}

}  // namespace
}  // namespace augur::eqsat
