// Misuse and failures of the first stage raise jit::errors that say what and
// where, leave no state behind, and do not disturb the next extraction.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "jit/jit.h"
#include "support.h"

namespace augur::stage::testing {
namespace {

jit::dyn<int> identity(jit::dyn<int> x) {
  return x;
}

// The error a callable throws, or "" if none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const jit::error& e) {
    return e.what();
  }
  return "";
}

void expect_next_extraction_works() {
  const jit::extraction e = jit::extract(identity);
  EXPECT_EQ(run<int>(interpreter(e), 42), 42);
}

TEST(Errors, DynValuesOutsideAnExtraction) {
  EXPECT_THAT(error_of([] { jit::dyn<int> x = 1; }), ::testing::HasSubstr("outside an extraction"));
  std::optional<jit::dyn<int>> kept;
  jit::extract([&](jit::dyn<int> x) {
    kept.emplace(std::move(x));
    return 0;
  });
  EXPECT_THAT(error_of([&] { *kept = 3; }),
              ::testing::HasSubstr("used outside the extraction that made it"));
  EXPECT_THAT(error_of([&] { jit::dyn<int> y = *kept + 1; }),
              ::testing::HasSubstr("used outside the extraction"));
  kept.reset();
  expect_next_extraction_works();
}

// Expressions kept from an earlier extraction name its variables: using one
// in the next built a wrong program (an out-of-bounds variable in release
// builds). They carry their run's token like dyn variables.
std::optional<jit::dyn_expr<int>> g_kept_expr;
std::optional<jit::dyn_ref<int>> g_kept_element;

TEST(Errors, ExpressionsFromAnEarlierExtraction) {
  jit::extract([](jit::dyn<int> x, jit::dyn<int*> p) {
    jit::dyn<int> local = x * 3;
    g_kept_expr.emplace(local + x);
    g_kept_element.emplace(p[local]);
    return 0;
  });
  auto uses_expr = [](jit::dyn<int> x) {
    jit::dyn<int> y = x + 1;
    return y + *g_kept_expr;
  };
  EXPECT_THAT(error_of([&] { jit::extract(uses_expr); }),
              ::testing::HasSubstr("jit::dyn_expr made in another run"));
  auto uses_element = [](jit::dyn<int> x) {
    *g_kept_element = x;
    return x;
  };
  EXPECT_THAT(error_of([&] { jit::extract(uses_element); }),
              ::testing::HasSubstr("jit::dyn element made in another run"));
  EXPECT_THAT(error_of([] {
                jit::dyn_expr<int> e = *g_kept_expr;
                (void)(e + 1);
              }),
              ::testing::HasSubstr("used outside the extraction"));
  g_kept_expr.reset();
  g_kept_element.reset();
  expect_next_extraction_works();
}

// Within one extraction too: the second run used the first run's expression.
TEST(Errors, ExpressionsFromAnotherRun) {
  std::optional<jit::dyn_expr<int>> first;
  auto keeps = [&](jit::dyn<int> x) {
    if (!first) first.emplace(x * 2);
    if (x > 0) x = x + 1;  // a second run
    return *first + x;
  };
  EXPECT_THAT(error_of([&] { jit::extract(keeps); }), ::testing::HasSubstr("made in another run"));
  first.reset();
  expect_next_extraction_works();
}

TEST(Errors, DynValuesFromAnotherRunOrThread) {
  // A dyn value kept across runs (in state that outlives the generator).
  std::optional<jit::dyn<int>> first;
  auto keeps = [&](jit::dyn<int> x) {
    jit::dyn<int> y = x + 1;
    if (!first) first.emplace(std::move(y));
    if (x > 0) x = x + 1;  // a second run, which uses the first run's variable
    return *first + x;
  };
  EXPECT_THAT(error_of([&] { jit::extract(keeps); }), ::testing::HasSubstr("made in another run"));
  first.reset();

  // A dyn value handed to another thread during the extraction.
  std::string other_thread;
  jit::extract([&](jit::dyn<int> x) {
    std::thread t([&] { other_thread = error_of([&] { jit::dyn<int> y = x * 2; }); });
    t.join();
    return x;
  });
  EXPECT_THAT(other_thread, ::testing::HasSubstr("outside the extraction"));
  expect_next_extraction_works();
}

TEST(Errors, MovedFromDyn) {
  EXPECT_THAT(error_of([] {
                jit::extract([](jit::dyn<int> x) {
                  jit::dyn<int> y = std::move(x);
                  return x + y;
                });
              }),
              ::testing::HasSubstr("moved-from"));
}

TEST(Errors, UserExceptionsPropagateWithContextAndStateIsCleanedUp) {
  auto thrower = [](jit::dyn<int> x, int limit) {
    jit::stat<int> depth = 0;
    while (x > 0) {
      if (++depth > limit) throw std::out_of_range("too deep for this test");
      x = x - 1;
    }
    return x;
  };
  try {
    jit::extract(thrower, 0);
    FAIL() << "expected a staging_error";
  } catch (const jit::staging_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("the first stage threw"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("too deep for this test"));
    try {
      std::rethrow_if_nested(e);
      FAIL() << "the original exception is nested";
    } catch (const std::out_of_range& original) {
      EXPECT_STREQ(original.what(), "too deep for this test");
    }
  }
  expect_next_extraction_works();
}

TEST(Errors, AugurErrorsFromTheFirstStagePassThrough) {
  auto bad_prophecy_use = [](jit::dyn<int> x) {
    throw jit::staging_error("a DSL's own error");
    return x;
  };
  EXPECT_EQ(error_of([&] { jit::extract(bad_prophecy_use); }), "a DSL's own error");
  expect_next_extraction_works();
}

TEST(Errors, SwallowingTheRunEndSignalIsReported) {
  auto swallows = [](jit::dyn<int> x) {
    jit::dyn<int> y = 0;
    try {
      if (x > 5) y = 5;
      while (x > y) y = y + 1;  // the second run ends at the loop's back-edge
    } catch (...) {
    }
    return y;
  };
  EXPECT_THAT(error_of([&] { jit::extract(swallows); }),
              ::testing::HasSubstr("catch (...) without rethrow"));
  expect_next_extraction_works();
}

TEST(Errors, UnboundedRecursionInDynCode) {
  struct Factorial {
    static jit::dyn<long long> of(jit::dyn<long long> n) {
      if (n <= 1) return 1;
      return n * of(n - 1);
    }
  };
  jit::extract_options options;
  options.max_depth = 300;
  EXPECT_THAT(error_of([&] { jit::extract(options, &Factorial::of); }),
              ::testing::HasSubstr("unbounded recursion in dyn code"));
  expect_next_extraction_works();
}

TEST(Errors, DynLoopWhoseStaticStateChangesEveryIteration) {
  auto unrolls_forever = [](jit::dyn<int> x) {
    jit::stat<int> k = 0;
    while (x > 0) {
      x = x - k;
      ++k;
    }
    return x;
  };
  jit::extract_options options;
  options.max_nodes = 500;
  const std::string message = error_of([&] { jit::extract(options, unrolls_forever); });
  EXPECT_THAT(message, ::testing::HasSubstr("more than 500 statements"));
  EXPECT_THAT(message, ::testing::HasSubstr("unrolls without end"));
}

TEST(Errors, PlainCounterAroundDynCodeWithoutABranch) {
  auto plain_counter = [](jit::dyn<int> x) {
    for (int i = 0; i < 3; ++i) x = x + 1;
    return x;
  };
  EXPECT_THAT(error_of([&] { jit::extract(plain_counter); }),
              ::testing::HasSubstr("needs its counter in a jit::stat<T>"));
  // With a stat counter the loop unrolls.
  auto stat_counter = [](jit::dyn<int> x) {
    for (jit::stat<int> i = 0; i < 3; ++i) x = x + 1;
    return x;
  };
  EXPECT_EQ(run<int>(interpreter(jit::extract(stat_counter)), 4), 7);
}

TEST(Errors, PlainStateThatChangesUnderDynControlFlow) {
  // The counter is plain: the second iteration reaches the same tag, and the
  // statements that follow differ from the recorded ones.
  auto plain_counter = [](jit::dyn<int> x) {
    for (int i = 0; i < 3; ++i) {
      if (x > 0) x = x - 1;
      x = x * (i + 2);
    }
    return x;
  };
  EXPECT_THAT(error_of([&] { jit::extract(plain_counter); }),
              ::testing::HasSubstr("not deterministic given its decisions"));
}

TEST(Errors, NonDeterministicFirstStage) {
  // Reads state that changes from run to run: replaying the decisions of an
  // earlier run meets different statements.
  std::atomic<int> runs{0};
  auto clock_dependent = [&](jit::dyn<int> x) {
    const int now = runs++;
    x = x + now;
    if (x > 0) x = x * 2;
    return x;
  };
  const std::string message = error_of([&] { jit::extract(clock_dependent); });
  EXPECT_THAT(message, ::testing::HasSubstr("not deterministic given its decisions"));
  EXPECT_THAT(message, ::testing::HasSubstr("replaying the decisions of an earlier run"));
  expect_next_extraction_works();
}

TEST(Errors, ProphecyOutsideAnExtraction) {
  EXPECT_THAT(error_of([] { jit::prophecy<jit::flag_lattice> p; }),
              ::testing::HasSubstr("outside an extraction"));
}

TEST(Errors, StatOutsideAnExtractionIsAPlainValue) {
  jit::stat<int> s = 3;
  s += 4;
  EXPECT_EQ(s.get(), 7);
}

}  // namespace
}  // namespace augur::stage::testing
