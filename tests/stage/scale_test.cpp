// The cost of exploration grows with the program it records: sequential dyn
// ifs take a bounded number of runs and events linear in their count, and a
// runaway dyn loop stops at max_nodes with memory linear in the nodes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <string>

#include "jit/jit.h"
#include "support.h"
#include "tests/support/staged_programs.h"

namespace augur::stage::testing {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// Peak resident memory of the process so far, in bytes.
std::uint64_t peak_rss() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

jit::dyn<int> sequential_ifs(jit::dyn<int> x, int count) {
  jit::dyn<int> y = 0;
  for (jit::stat<int> i = 0; i < count; ++i) {
    if (x > i) y = y + i;
  }
  return y;
}

TEST(Scale, SequentialDynIfsCostLinearEvents) {
  constexpr int kIfs = 8000;
  const jit::extraction e = jit::extract(sequential_ifs, kIfs);
  const jit::stage_report& r = e.report();
  // Replaying every run from the start made this quadratic: 1 + 8,000 runs
  // and about 32 million events.
  EXPECT_EQ(r.control_flow_runs, 2u);
  EXPECT_LE(r.events, 3u * r.nodes);
  const ir::Interpreter interp = interpreter(e);
  for (int x : {-5, 0, 1, 100, 7999, 8000, 20000}) {
    int expected = 0;
    for (int i = 0; i < kIfs; ++i) {
      if (x > i) expected += i;
    }
    EXPECT_EQ(run<int>(interp, x), expected) << x;
  }
}

// Staging rule 8 (docs/staging.md): the loop unrolls until max_nodes. Every
// iteration leaves a pending branch; copying the path to each made memory
// quadratic (2.6 GiB at 400,000 nodes, 15 GiB at the default 1,000,000).
TEST(Scale, RunawayDynLoopStopsWithMemoryLinearInNodes) {
  jit::extract_options options;
  options.max_nodes = 400'000;
  const std::uint64_t before = peak_rss();
  std::string message;
  try {
    jit::extract(options, augur::staged::unrolls_forever);
  } catch (const jit::staging_error& e) {
    message = e.what();
  }
  const std::uint64_t grown = peak_rss() - before;
  EXPECT_THAT(message, ::testing::HasSubstr("more than 400000 statements"));
  EXPECT_THAT(message, ::testing::HasSubstr("unrolls without end"));
  // About 500 bytes per node today. Under AddressSanitizer redzones and
  // quarantine make resident memory no measure of the nodes.
  if (!kAddressSanitizer) {
    EXPECT_LT(grown, 400'000u * 2048u) << grown / 400'000 << " bytes per node";
  }
}

}  // namespace
}  // namespace augur::stage::testing
