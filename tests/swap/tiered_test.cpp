// Tiered handles: served at O0 at once, O2 swapped in from the background;
// promotion policies; respecialization; versions shared with jit::compile. Every result is checked
// against the IR interpreter running the same extracted program.
#include "jit/tiered.h"

#include <cstdint>
#include <stdexcept>

#include <gtest/gtest.h>

#include "jit/cache.h"
#include "jit/compiler.h"
#include "jit/dyn.h"
#include "jit/error.h"
#include "jit/extract.h"
#include "runtime/ir/interp.h"
#include "runtime/stage/extract.h"
#include "tests/support/staged_programs.h"

namespace augur::swap::test {
namespace {

// staged::power that throws on a negative exponent: a failing compile.
jit::dyn<double> power(jit::dyn<double> x, int n) {
  if (n < 0) throw std::invalid_argument("negative exponent");
  return staged::power(x, n);
}

// The interpreter's answer for power(x, n).
double interpreted_power(double x, int n) {
  const jit::extraction e = jit::extract(power, n);
  return ir::Interpreter(e.result().extracted.module, e.name()).call<double>(x);
}

void expect_power(jit::handle<double(double)>& h, int n) {
  for (const double x : {-1.5, 0.5, 1.0, 2.0, 3.25}) {
    EXPECT_EQ(h(x), interpreted_power(x, n)) << "x = " << x << ", n = " << n;
  }
}

TEST(Tiered, QuickTierServesAtOnceThenOptimizedOnPromotion) {
  jit::handle<double(double)> h = jit::compile(power, 13, jit::tiered_by({.explicit_only = true}));
  EXPECT_EQ(h.statistics().tier, jit::tier::quick);
  EXPECT_EQ(h.statistics().version, 1u);
  expect_power(h, 13);

  h.promote();
  h.wait();
  const jit::handle_statistics s = h.statistics();
  EXPECT_EQ(s.tier, jit::tier::optimized);
  EXPECT_EQ(s.version, 2u);
  EXPECT_EQ(s.pending, 0u);
  expect_power(h, 13);
  h.reclaim();
  EXPECT_EQ(h.statistics().freed, 1u);
}

TEST(Tiered, DefaultPolicyCompilesTheOptimizedTierInTheBackground) {
  auto h = jit::compile(power, 5, jit::tiered);
  expect_power(h, 5);  // whichever tier answers
  h.wait();
  EXPECT_EQ(h.statistics().tier, jit::tier::optimized);
  EXPECT_EQ(h.statistics().published, 2u);
  expect_power(h, 5);
}

TEST(Tiered, CallCountPolicyPromotesAfterThatManyCalls) {
  auto h = jit::compile(power, 3, jit::tiered_by({.promote_after_calls = 100}));
  for (int i = 0; i < 99; ++i) EXPECT_EQ(h(2.0), 8.0);
  h.wait();
  EXPECT_EQ(h.statistics().tier, jit::tier::quick);
  EXPECT_EQ(h.statistics().published, 1u);
  EXPECT_EQ(h(2.0), 8.0);  // the 100th call starts the compile
  h.wait();
  EXPECT_EQ(h.statistics().tier, jit::tier::optimized);
  EXPECT_EQ(h(2.0), 8.0);
}

TEST(Tiered, RespecializePublishesTheNewSpecialization) {
  auto h = jit::compile(power, 13, jit::tiered);
  h.respecialize(7);
  h.wait();
  expect_power(h, 7);
  const jit::handle_statistics s = h.statistics();
  EXPECT_EQ(s.tier, jit::tier::optimized);
  EXPECT_EQ(s.failed, 0u);
}

TEST(Tiered, NewestRequestWinsWhateverTheOrderCompilesFinish) {
  auto h = jit::compile(power, 2, jit::tiered);
  for (int n = 3; n <= 12; ++n) h.respecialize(n);
  h.wait();
  expect_power(h, 12);
  const jit::handle_statistics s = h.statistics();
  // Quick, then at most one optimized version per request: 1 + 1 + 10 results,
  // each published or superseded.
  EXPECT_EQ(s.published + s.superseded, 12u);
}

TEST(Tiered, RespecializeWithOtherStaticTypesThrows) {
  auto h = jit::compile(power, 2, jit::tiered);
  EXPECT_THROW(h.respecialize(2L), jit::error);
  h.wait();
  expect_power(h, 2);
}

TEST(Tiered, RespecializeNeedsATieredHandle) {
  jit::handle<double(double)> h;
  EXPECT_THROW(h.respecialize(2), jit::error);
}

TEST(Tiered, FailedBackgroundCompileLeavesTheLiveVersion) {
  auto h = jit::compile(power, 4, jit::tiered);
  h.wait();
  h.respecialize(-1);  // the first stage throws
  EXPECT_THROW(h.wait(), jit::staging_error);
  EXPECT_EQ(h.statistics().failed, 1u);
  expect_power(h, 4);
  h.wait();  // the error was reported once
}

// A tier's version is jit::compile's cache entry for the same generator and
// statics at that level: neither side compiles what the other did.
TEST(Tiered, BothTiersShareTheCacheWithJitCompile) {
  jit::clear_cache();
  auto h = jit::compile(power, 21, jit::tiered);
  h.wait();
  ASSERT_EQ(h.statistics().tier, jit::tier::optimized);

  const jit::cache_statistics before = jit::cache_stats();
  const jit::function<double(double)> optimized = jit::compile(power, 21);
  jit::compile_options quick;
  quick.opt_level = 0;
  const jit::function<double(double)> unoptimized = jit::compile(quick, power, 21);
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.hits, before.hits + 2);
  EXPECT_NE(optimized.pointer(), unoptimized.pointer());  // two levels, two entries
  EXPECT_EQ(optimized(1.5), interpreted_power(1.5, 21));
  EXPECT_EQ(unoptimized(1.5), interpreted_power(1.5, 21));
}

TEST(Tiered, HandlesServeWhatJitCompileCompiled) {
  jit::clear_cache();
  jit::compile_options quick;
  quick.opt_level = 0;
  const jit::function<double(double)> unoptimized = jit::compile(quick, power, 23);
  const jit::function<double(double)> optimized = jit::compile(power, 23);
  const jit::function<double(double)> respecialized = jit::compile(power, 24);

  const jit::cache_statistics before = jit::cache_stats();
  auto h = jit::compile(power, 23, jit::tiered_by({.explicit_only = true}));
  EXPECT_EQ(h.statistics().tier, jit::tier::quick);
  expect_power(h, 23);
  h.promote();
  h.wait();
  EXPECT_EQ(h.statistics().tier, jit::tier::optimized);
  expect_power(h, 23);
  h.respecialize(24);
  h.wait();
  expect_power(h, 24);
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.requests - before.requests, 3u);
  EXPECT_EQ(after.hits - before.hits, 3u);
}

}  // namespace
}  // namespace augur::swap::test
