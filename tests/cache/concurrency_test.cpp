// Many threads asking for overlapping keys at once: each key is compiled
// exactly once, and every thread gets the same, right, version. The same for
// compile_async, whose compiles run on the TBB pool.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <future>
#include <latch>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include <tbb/task_arena.h>

#include "jit/jit.h"

namespace {

jit::dyn<std::int64_t> affine(jit::dyn<std::int64_t> x, std::int64_t k) {
  return x * k + (k ^ 0x55);
}

constexpr int kThreads = 8;
constexpr int kKeys = 50;

TEST(Concurrency, EightThreadsFiftyKeysCompileEachKeyOnce) {
  const jit::cache_statistics before = jit::cache_stats();
  using fn = jit::function<std::int64_t(std::int64_t)>;
  std::vector<std::array<fn, kKeys>> results(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Every thread asks for every key, twice, in an order of its own.
      std::vector<int> order;
      for (int round = 0; round < 2; ++round) {
        for (int k = 0; k < kKeys; ++k) order.push_back(k);
      }
      std::mt19937 rng(static_cast<unsigned>(t));
      std::shuffle(order.begin(), order.end(), rng);
      start.arrive_and_wait();
      for (int k : order) {
        fn f = jit::compile(affine, std::int64_t{1000 + k});
        if (results[t][k]) {
          EXPECT_EQ(f.pointer(), results[t][k].pointer());
        }
        results[t][k] = std::move(f);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_EQ(after.compiles - before.compiles, static_cast<std::uint64_t>(kKeys));
  EXPECT_EQ(after.failures, before.failures);
  EXPECT_EQ(after.requests - before.requests, static_cast<std::uint64_t>(2 * kThreads * kKeys));
  EXPECT_EQ((after.hits - before.hits) + (after.misses - before.misses),
            after.requests - before.requests);
  for (int k = 0; k < kKeys; ++k) {
    const std::int64_t factor = 1000 + k;
    for (int t = 0; t < kThreads; ++t) {
      ASSERT_TRUE(results[t][k]);
      EXPECT_EQ(results[t][k].pointer(), results[0][k].pointer()) << "key " << k;
      for (std::int64_t x : {-3, 0, 7}) {
        EXPECT_EQ(results[t][k](x), x * factor + (factor ^ 0x55)) << "key " << k << ", x " << x;
      }
    }
  }
}

// Threads racing on one key that fails all see the error; none caches it.
jit::dyn<int> refuses(jit::dyn<int> x, int k) {
  if (k > 0) throw std::runtime_error("refused");
  return x;
}

TEST(Concurrency, RacingRequestsForAFailingKeyAllSeeTheError) {
  const jit::cache_statistics before = jit::cache_stats();
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      try {
        jit::compile(refuses, 1);
      } catch (const jit::staging_error&) {
        ++errors;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_EQ(errors.load(), kThreads);
  EXPECT_GE(after.failures - before.failures, 1u);
  EXPECT_EQ(after.failures - before.failures, after.compiles - before.compiles);
  EXPECT_EQ(after.entries, before.entries);
}

// Stagings that ran on a thread outside the TBB pool.
std::atomic<int> staged_off_the_pool{0};

jit::dyn<std::int64_t> scaled(jit::dyn<std::int64_t> x, std::int64_t k) {
  if (tbb::this_task_arena::current_thread_index() == tbb::task_arena::not_initialized) {
    ++staged_off_the_pool;
  }
  if (k < 0) throw std::invalid_argument("negative factor");
  return x * k + 3;
}

TEST(Concurrency, TwoHundredAsyncKeysCompileOnceEachOnThePool) {
  constexpr int kAsyncKeys = 200;
  constexpr int kFailingKeys = 10;
  const jit::cache_statistics before = jit::cache_stats();
  using fn = jit::function<std::int64_t(std::int64_t)>;
  // Every key twice, and keys whose first stage throws.
  std::vector<std::future<fn>> futures;
  for (int round = 0; round < 2; ++round) {
    for (int k = 0; k < kAsyncKeys; ++k) {
      futures.push_back(jit::compile_async(scaled, std::int64_t{5000 + k}));
    }
  }
  std::vector<std::future<fn>> failing;
  for (int k = 1; k <= kFailingKeys; ++k) {
    failing.push_back(jit::compile_async(scaled, std::int64_t{-k}));
  }

  std::vector<fn> results;
  for (std::future<fn>& future : futures) results.push_back(future.get());
  for (std::future<fn>& future : failing) EXPECT_THROW(future.get(), jit::staging_error);
  for (int k = 0; k < kAsyncKeys; ++k) {
    const std::int64_t factor = 5000 + k;
    ASSERT_TRUE(results[k]);
    EXPECT_EQ(results[k].pointer(), results[kAsyncKeys + k].pointer()) << "key " << k;
    for (std::int64_t x : {-2, 0, 9}) EXPECT_EQ(results[k](x), x * factor + 3) << "key " << k;
  }
  const jit::cache_statistics after = jit::cache_stats();
  const std::uint64_t failures = after.failures - before.failures;
  EXPECT_GE(failures, static_cast<std::uint64_t>(kFailingKeys));
  EXPECT_EQ(after.compiles - before.compiles - failures, static_cast<std::uint64_t>(kAsyncKeys));
  EXPECT_EQ(staged_off_the_pool.load(), 0);
}

}  // namespace
