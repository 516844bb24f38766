// jit::compile called from inside a first stage on a key in flight: on the
// same thread, or around a cycle of threads (std::threads, compile_async's
// and tiered handles' background jobs). Each would wait forever; each must
// raise a jit::error on the thread that would close the cycle, and every
// compilation must still finish for its other callers. Without the check
// these tests hang (and fail by ctest's timeout).
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <latch>
#include <optional>
#include <string>
#include <thread>

#include <tbb/task_arena.h>

#include "jit/jit.h"

namespace {

std::atomic<int> reentries{0};
std::string last_message;  // written by the thread that catches, read after it joins

// Asks for its own key (same generator, options and static value) from its
// first stage and falls back to a constant when refused.
jit::dyn<int> asks_for_itself(jit::dyn<int> x, int k) {
  jit::compile_options options;
  options.name = "selfish";
  try {
    jit::function<int(int)> inner = jit::compile(options, asks_for_itself, k);
    ADD_FAILURE() << "a re-entrant request returned";
  } catch (const jit::error& e) {
    ++reentries;
    last_message = e.what();
    EXPECT_EQ(e.where().function, "selfish");
  }
  return x + k;
}

TEST(Reentrant, AFirstStageAskingForItsOwnKeyRaisesAndTheOuterCompileFinishes) {
  reentries = 0;
  jit::compile_options options;
  options.name = "selfish";
  const jit::function<int(int)> f = jit::compile(options, asks_for_itself, 40);
  EXPECT_GE(reentries.load(), 1);
  EXPECT_NE(last_message.find("'selfish'"), std::string::npos) << last_message;
  EXPECT_NE(last_message.find("wait for itself"), std::string::npos) << last_message;
  EXPECT_EQ(f(2), 42);

  // The key is cached, not left in flight: later requests, here and on
  // another thread, get the same version without running the first stage.
  const int before = reentries;
  EXPECT_EQ(jit::compile(options, asks_for_itself, 40).pointer(), f.pointer());
  std::thread([&] {
    EXPECT_EQ(jit::compile(options, asks_for_itself, 40).pointer(), f.pointer());
  }).join();
  EXPECT_EQ(reentries.load(), before);
}

std::atomic<bool> reenter_uncaught{true};

// Asks for its own key without catching while reenter_uncaught is set.
jit::dyn<int> asks_for_itself_uncaught(jit::dyn<int> x, int k) {
  if (reenter_uncaught) jit::compile(asks_for_itself_uncaught, k);
  return x * k;
}

TEST(Reentrant, AnUncaughtReentryFailsTheCompileAndTheKeyCompilesLater) {
  reenter_uncaught = true;
  const std::uint64_t failures = jit::cache_stats().failures;
  EXPECT_THROW(jit::compile(asks_for_itself_uncaught, 7), jit::error);
  EXPECT_EQ(jit::cache_stats().failures, failures + 1);

  reenter_uncaught = false;
  EXPECT_EQ(jit::compile(asks_for_itself_uncaught, 7)(6), 42);
}

// Two generators, each asking from its first stage for the other's key (same
// static value) once both first stages are running: the first to ask waits,
// the second would close the cycle and is refused, then finishes, which
// releases the first.
std::optional<std::latch> both_staging;
std::atomic<int> cycles{0};

jit::dyn<int> crosswise_b(jit::dyn<int> x, int k);

template <jit::dyn<int> (*Other)(jit::dyn<int>, int)>
jit::dyn<int> asks_for_other(jit::dyn<int> x, int k) {
  both_staging->arrive_and_wait();
  try {
    EXPECT_EQ(jit::compile(Other, k)(1), k + 1);
  } catch (const jit::error& e) {
    ++cycles;
    EXPECT_NE(std::string(e.what()).find("wait for each other"), std::string::npos) << e.what();
  }
  return x + k;
}

jit::dyn<int> crosswise_a(jit::dyn<int> x, int k) {
  return asks_for_other<crosswise_b>(x, k);
}
jit::dyn<int> crosswise_b(jit::dyn<int> x, int k) {
  return asks_for_other<crosswise_a>(x, k);
}

TEST(Reentrant, ACycleAcrossTwoThreadsRaisesOnOneAndBothCompilesFinish) {
  both_staging.emplace(2);
  cycles = 0;
  int from_thread = 0;
  std::thread other([&] { from_thread = jit::compile(crosswise_a, 200)(1); });
  EXPECT_EQ(jit::compile(crosswise_b, 200)(1), 201);
  other.join();
  EXPECT_EQ(from_thread, 201);
  EXPECT_EQ(cycles.load(), 1);
}

TEST(Reentrant, ACycleThroughABackgroundCompileRaisesOnOneAndBothFinish) {
  if (tbb::this_task_arena::max_concurrency() < 2) {
    GTEST_SKIP() << "the background job needs a TBB worker besides this thread";
  }
  both_staging.emplace(2);
  cycles = 0;
  // a(300) on a TBB worker (compile_async), b(300) here.
  std::future<jit::function<int(int)>> a = jit::compile_async(crosswise_a, 300);
  EXPECT_EQ(jit::compile(crosswise_b, 300)(1), 301);
  EXPECT_EQ(a.get()(1), 301);
  EXPECT_EQ(cycles.load(), 1);
}

// A tiered handle's background compile whose first stage asks for the key
// that very job is compiling (the optimized tier uses the default options).
jit::dyn<int> tier_asks_for_itself(jit::dyn<int> x, int k) {
  try {
    jit::compile(tier_asks_for_itself, k);
  } catch (const jit::error&) {
    ++reentries;
  }
  return x - k;
}

TEST(Reentrant, ARespecializationAskingForItsOwnKeyRaisesInTheBackgroundAndPublishes) {
  reentries = 0;
  jit::handle<int(int)> h =
      jit::compile(tier_asks_for_itself, 1, jit::tiered_by({.explicit_only = true}));
  const int quick = reentries;  // the quick tier's first stage compiled k = 1 at O2
  const long holders = h.core().weak_from_this().use_count();
  h.respecialize(5);
  h.wait();
  EXPECT_GT(reentries.load(), quick);
  EXPECT_EQ(h(12), 7);
  // wait() returns from inside the job: let the pool drop the job's closure,
  // which holds the handle, before the process exits (LeakSanitizer).
  while (h.core().weak_from_this().use_count() > holders) std::this_thread::yield();
}

}  // namespace
