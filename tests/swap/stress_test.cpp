// Eight threads call a handle in a tight loop while another publishes 1,000
// versions: every call returns the result of a version that was live at some
// point during the call, and afterwards every version but the live one has
// been freed and unloaded.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "jit/cpu/statistics.h"
#include "jit/handle.h"
#include "swap_test_util.h"

namespace augur::swap::test {
namespace {

constexpr int kCallers = 8;
constexpr std::int64_t kVersions = 1000;

struct caller_result {
  std::uint64_t calls = 0;
  std::uint64_t wrong = 0;
  std::uint64_t versions_seen = 0;  // calls answered by a version other than the previous one
};

// Callers announce each call, or open a call_section per batch of calls.
class HandleStress : public ::testing::TestWithParam<bool> {
 protected:
  bool batched() const { return GetParam(); }
};

TEST_P(HandleStress, CallersSeeOnlyLiveVersionsAndRetiredVersionsAreFreed) {
  // Compiled up front, so that the publisher swaps as fast as callers call.
  std::vector<std::string> labels;
  std::vector<std::shared_ptr<cpu::CompiledCode>> versions;
  for (std::int64_t k = 0; k <= kVersions; ++k) {
    versions.push_back(compile_version(k));
    labels.push_back(versions.back()->label());
  }
  const std::uint64_t unloaded_before = cpu::statistics().versions_unloaded;

  jit::handle<std::int64_t(std::int64_t)> h;
  publish_version(h, versions[0]);
  versions[0].reset();
  // The newest k whose publication has returned: version k is live from before
  // `published` reads k until after it reads k + 1.
  std::atomic<std::int64_t> published{0};
  std::atomic<bool> done{false};

  std::vector<caller_result> results(kCallers);
  // Calls made so far by each caller, for the publisher to wait on.
  std::vector<std::atomic<std::uint64_t>> progress(kCallers);
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      caller_result& r = results[t];
      std::int64_t last = -1;
      std::int64_t x = t;
      while (!done.load(std::memory_order_relaxed)) {
        std::optional<jit::call_section> section;
        if (batched()) section.emplace();
        for (int i = 0; i < 64; ++i, x = (x + 1) % 32) {
          const std::int64_t before = published.load(std::memory_order_acquire);
          const std::int64_t k = (section ? h.call(*section, x) : h(x)) - 3 * x;
          const std::int64_t after = published.load(std::memory_order_acquire);
          ++r.calls;
          if (k < before || k > after + 1) ++r.wrong;
          if (k != last) ++r.versions_seen;
          last = k;
        }
        progress[t].store(r.calls, std::memory_order_relaxed);
      }
    });
  }

  // Every caller calls between each 100 publications, however the threads are
  // scheduled, so each one sees at least kVersions / 100 versions.
  const auto wait_for_every_caller = [&] {
    std::vector<std::uint64_t> seen(kCallers);
    for (int t = 0; t < kCallers; ++t) seen[t] = progress[t].load(std::memory_order_relaxed);
    for (int t = 0; t < kCallers; ++t) {
      while (progress[t].load(std::memory_order_relaxed) == seen[t]) std::this_thread::yield();
    }
  };
  for (std::int64_t k = 1; k <= kVersions; ++k) {
    if (k % 100 == 1) wait_for_every_caller();
    publish_version(h, versions[k]);
    versions[k].reset();
    published.store(k, std::memory_order_release);
  }
  done.store(true);
  for (std::thread& c : callers) c.join();
  h.reclaim();

  std::uint64_t calls = 0;
  std::uint64_t switches = 0;
  for (const caller_result& r : results) {
    EXPECT_EQ(r.wrong, 0u);
    EXPECT_GE(r.versions_seen, static_cast<std::uint64_t>(kVersions / 100));
    calls += r.calls;
    switches += r.versions_seen;
  }

  const jit::handle_statistics s = h.statistics();
  EXPECT_EQ(s.version, static_cast<std::uint64_t>(kVersions + 1));
  EXPECT_EQ(s.swaps, static_cast<std::uint64_t>(kVersions));
  EXPECT_EQ(s.retired, static_cast<std::uint64_t>(kVersions));
  EXPECT_EQ(s.freed, static_cast<std::uint64_t>(kVersions));
  EXPECT_EQ(cpu::statistics().versions_unloaded - unloaded_before,
            static_cast<std::uint64_t>(kVersions));
  for (std::int64_t k = 0; k < kVersions; ++k) EXPECT_FALSE(cpu::is_loaded(labels[k])) << k;
  EXPECT_TRUE(cpu::is_loaded(labels[kVersions]));
  EXPECT_EQ(h(1), 3 + kVersions);
  RecordProperty("calls", std::to_string(calls));
  RecordProperty("version_switches_seen", std::to_string(switches));
}

INSTANTIATE_TEST_SUITE_P(Calls, HandleStress, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Batched" : "OneByOne"; });

}  // namespace
}  // namespace augur::swap::test
