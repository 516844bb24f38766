// The backbone: random structured programs (loops, breaks, continues, early
// returns, branches, arrays, pointer arithmetic, calls of every effect)
// optimized and run in the interpreter beside the original on random inputs:
// same results, same memory, same effectful calls.
//
// CI runs AUGUR_PEG_FUZZ_COUNT programs per test (default 1000); a longer run:
//   AUGUR_PEG_FUZZ_COUNT=100000 build/dev/tests/peg/peg_differential_test
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/peg/optimize.h"
#include "tests/peg/peg_check.h"
#include "tests/support/random_program.h"

namespace augur::peg::test {
namespace {

std::uint64_t fuzz_count() {
  const char* env = std::getenv("AUGUR_PEG_FUZZ_COUNT");
  return env ? std::strtoull(env, nullptr, 10) : 1000;
}

struct Tally {
  std::uint64_t programs = 0, optimized = 0;
  std::map<std::string, int> fallbacks;
};

void check_seed(std::uint64_t seed, const PegOptions& options, testing::RandomFeatures features,
                Tally& tally) {
  testing::RandomProgramOptions o;
  o.seed = seed;
  o.features = features;
  const testing::RandomProgram p = testing::random_program(o);
  PegResult r;
  PegOptions deterministic = options;
  // The iteration and node budgets bound the run, not the machine's load.
  deterministic.limits.time = std::chrono::hours(1);
  try {
    r = optimize(p.module, deterministic);
  } catch (const std::exception& e) {
    FAIL() << "seed " << seed << ": " << e.what() << "\n" << ir::print(p.module);
  }
  ++tally.programs;
  const PegFunctionReport& report = r.report.functions.front();
  if (report.optimized) {
    ++tally.optimized;
  } else {
    ++tally.fallbacks[report.fallback.substr(0, 60)];
    if (!report.retries.empty())
      ++tally.fallbacks["first: " + report.retries.front().substr(0, 70)];
  }
  ASSERT_NO_THROW(ir::verify(r.module)) << "seed " << seed << "\n" << ir::print(r.module);
  const std::vector<testing::ParamDesc> params = p.params;
  const std::string diff = compare_on_random_inputs(p.module, r.module, p.entry, params, p.externs,
                                                    seed, 4, p.inexact_math ? 4 : 0);
  ASSERT_TRUE(diff.empty()) << "seed " << seed << ": " << diff << "\noriginal:\n"
                            << ir::print(p.module) << "optimized:\n"
                            << ir::print(r.module);
}

void report(const Tally& t) {
  std::string text =
      std::to_string(t.optimized) + " of " + std::to_string(t.programs) + " optimized";
  for (const auto& [why, n] : t.fallbacks) text += "\n  " + std::to_string(n) + "x " + why;
  std::cout << text << "\n";
}

TEST(PegDifferential, RoundTripWithoutSaturation) {
  PegOptions options;
  options.saturate = false;
  Tally tally;
  for (std::uint64_t seed = 0; seed < fuzz_count(); ++seed) {
    check_seed(seed, options, {}, tally);
    if (HasFatalFailure()) return;
  }
  report(tally);
}

TEST(PegDifferential, Optimized) {
  Tally tally;
  for (std::uint64_t seed = 0; seed < fuzz_count(); ++seed) {
    check_seed(seed + 1'000'000, PegOptions{}, {}, tally);
    if (HasFatalFailure()) return;
  }
  report(tally);
}

}  // namespace
}  // namespace augur::peg::test
