// Prophecies: the shipped lattices, the fixpoint (misses of a whole
// exploration gathered before one restart), identity by construction tag,
// and the bound on restarts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "jit/jit.h"
#include "support.h"

namespace augur::stage::testing {
namespace {

template <class L>
void expect_lattice_laws(const std::vector<typename L::value_type>& values) {
  using V = typename L::value_type;
  for (const V& a : values) {
    EXPECT_TRUE(L::leq(L::bottom(), a));
    EXPECT_TRUE(L::leq(a, a));
    EXPECT_TRUE(L::join(a, L::bottom()) == a);
    for (const V& b : values) {
      const V j = L::join(a, b);
      EXPECT_TRUE(L::leq(a, j) && L::leq(b, j));
      EXPECT_TRUE(j == L::join(b, a));
      EXPECT_EQ(L::leq(a, b), L::join(a, b) == b);
    }
  }
}

TEST(Lattices, ShippedLatticesAreJoinSemilattices) {
  expect_lattice_laws<jit::flag_lattice>({false, true});
  expect_lattice_laws<jit::max_lattice<int>>({-5, 0, 3, 1000});
  expect_lattice_laws<jit::min_lattice<double>>({-2.5, 0.0, 7.0});
  using same = jit::same_value<float>;
  expect_lattice_laws<jit::same_value_lattice<float>>(
      {same(), same::of(1.5f), same::of(2.0f), same::conflict()});
  EXPECT_TRUE(jit::same_value_lattice<float>::join(same::of(2.0f), same::of(4.0f)).is_conflict());
  EXPECT_EQ(jit::same_value_lattice<float>::describe(same::of(2.0f)), "value 2");
}

// The first exploration predicts `false`, so the only path requires 1,000;
// with `true` the path taken requires 10. Joining misses alone ends at 1,000,
// a requirement of a path that the final prediction never takes.
jit::dyn<int> flag_then_size(jit::dyn<int> x) {
  jit::prophecy<jit::flag_lattice> flag;
  jit::prophecy<jit::max_lattice<int>> need;
  jit::dyn<int> size("size", need.value());
  if (flag.value()) {
    need.require(10);
  } else {
    need.require(1000);
  }
  flag.require(true);
  return size + x;
}

TEST(Prophecy, RequirementsOfMispredictedExplorationsAreDropped) {
  const jit::extraction e = jit::extract(flag_then_size);
  EXPECT_EQ(run<int>(interpreter(e), 0), 10);
  // Misses, then (true, 1000) with no miss, then (true, 10) with none.
  EXPECT_EQ(e.report().prophecy_runs, 3u);
}

// Narrowing to what the paths require may break them: under (true, 10) the
// path requires 2,000. The last prediction every path satisfied stays.
jit::dyn<int> narrowing_misses(jit::dyn<int> x) {
  jit::prophecy<jit::flag_lattice> flag;
  jit::prophecy<jit::max_lattice<int>> need;
  jit::dyn<int> size("size", need.value());
  if (!flag.value()) {
    need.require(1000);
  } else if (need.value() >= 1000) {
    need.require(10);
  } else {
    need.require(2000);
  }
  flag.require(true);
  return size + x;
}

TEST(Prophecy, NarrowingThatMissesKeepsTheSatisfiedPrediction) {
  const jit::extraction e = jit::extract(narrowing_misses);
  EXPECT_EQ(run<int>(interpreter(e), 0), 1000);
  // (false, bottom) misses; (true, 1000) holds; (true, 10) misses; (true, 1000) again.
  EXPECT_EQ(e.report().prophecy_runs, 4u);
}

TEST(Prophecy, PredictsTheLeastValueEveryPathRequires) {
  // A buffer sized before the code that finds out how much it needs.
  auto sized = [](jit::dyn<int> x) {
    jit::prophecy<jit::max_lattice<int>> need;
    jit::dyn<int> size("size", need.value());
    if (x > 0) {
      need.require(10);
    } else if (x < -5) {
      need.require(30);
    } else {
      need.require(20);
    }
    return size;
  };
  const jit::extraction e = jit::extract(sized);
  EXPECT_EQ(run<int>(interpreter(e), 1), 30);
  // All misses of the first exploration are gathered, then one restart.
  EXPECT_EQ(e.report().prophecy_runs, 2u);
  EXPECT_EQ(e.report().control_flow_runs, 6u);
}

TEST(Prophecy, OneRestartForManyIndependentMisses) {
  // BuildIt restarts at each miss: 1 + 5 explorations. Augur needs 2.
  auto many = [](jit::dyn<int> x) {
    jit::dyn<int> r = 0;
    for (jit::stat<int> i = 0; i < 5; ++i) {
      jit::prophecy<jit::flag_lattice> used;
      if (used.value()) r = r + (1 << i);
      if (((x >> i) & 1) == 1) used.require(true);
    }
    return r;
  };
  const jit::extraction e = jit::extract(many);
  EXPECT_EQ(e.report().prophecy_runs, 2u);
  EXPECT_EQ(run<int>(interpreter(e), 0), 31);
}

TEST(Prophecy, DependentPredictionsTakeOneExplorationPerLink) {
  // b is required only when a's prediction holds.
  auto chained = [](jit::dyn<int> x) {
    jit::prophecy<jit::flag_lattice> a;
    jit::prophecy<jit::flag_lattice> b;
    jit::dyn<int> r = 0;
    if (b.value()) r = r + 2;
    if (x > 0) a.require(true);
    if (a.value()) b.require(true);
    return r;
  };
  const jit::extraction e = jit::extract(chained);
  EXPECT_EQ(e.report().prophecy_runs, 3u);
  EXPECT_EQ(run<int>(interpreter(e), 0), 2);
}

TEST(Prophecy, PredictionIsFixedWithinAnExploration) {
  std::vector<int> seen;
  auto watched = [&](jit::dyn<int> x) {
    jit::prophecy<jit::max_lattice<int>> p;
    seen.push_back(p.value());
    if (x > 0) p.require(1);
    if (x > 1) p.require(2);
    if (x > 2) p.require(3);
    return x;
  };
  const jit::extraction e = jit::extract(watched);
  EXPECT_EQ(e.report().prophecy_runs, 2u);
  // The first exploration's runs see the bottom, the second's the join.
  ASSERT_EQ(seen.size(), e.report().control_flow_runs);
  const std::size_t per = seen.size() / 2;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i], i < per ? std::numeric_limits<int>::lowest() : 3) << i;
  }
}

TEST(Prophecy, IdentityIsTheConstructionTag) {
  // One prophecy per iteration of a static loop: the counter is in the tag.
  auto per_item = [](jit::dyn<int> x) {
    jit::dyn<int> r = 0;
    for (jit::stat<int> i = 0; i < 3; ++i) {
      jit::prophecy<jit::flag_lattice> p;
      if (p.value()) r = r + (10 << i);
      if (i == 1 && x > 0) p.require(true);
    }
    return r;
  };
  EXPECT_EQ(run<int>(interpreter(jit::extract(per_item)), 0), 20);
}

TEST(Prophecy, ErrorsInMispredictedExplorationsAreRetried) {
  auto strict = [](jit::dyn<int> x) {
    jit::prophecy<jit::flag_lattice> ready;
    ready.require(true);
    if (!ready.value()) throw std::logic_error("only wrong predictions get here");
    return x;
  };
  const jit::extraction e = jit::extract(strict);
  EXPECT_EQ(e.report().prophecy_runs, 2u);
}

TEST(Prophecy, BoundedRestartsNameTheProphecyThatKeepsChanging) {
  auto diverges = [](jit::dyn<int> x) {
    jit::prophecy<jit::max_lattice<int>> p;
    p.require(p.value() < 0 ? 0 : p.value() + 1);
    return x;
  };
  jit::extract_options options;
  options.max_prophecy_runs = 5;
  try {
    jit::extract(options, diverges);
    FAIL() << "expected a prophecy_error";
  } catch (const jit::prophecy_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("did not settle within 5"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("prophecy_test.cpp"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("0 -> 1 -> 2 -> 3 -> 4"));
  }
}

TEST(Prophecy, SameValueAcrossPaths) {
  auto threshold = [](jit::dyn<float> x, float a, float b) {
    jit::prophecy<jit::same_value_lattice<float>> t;
    jit::dyn<float> r = 0.0f;
    if (t.value().is_value()) r = t.value().get();
    if (t.value().is_conflict()) r = -1.0f;
    if (x > 0.0f) {
      t.require(jit::same_value<float>::of(a));
    } else {
      t.require(jit::same_value<float>::of(b));
    }
    return r;
  };
  EXPECT_EQ(run<float>(interpreter(jit::extract(threshold, 2.0f, 2.0f)), 1.0f), 2.0f);
  EXPECT_EQ(run<float>(interpreter(jit::extract(threshold, 2.0f, 4.0f)), 1.0f), -1.0f);
}

}  // namespace
}  // namespace augur::stage::testing
