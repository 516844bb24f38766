// The program cache (the second level: versions by program) keeps records of
// dead versions only until a sweep: its memory follows the live versions, not
// the number of programs ever published.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "runtime/cache/program_cache.h"

namespace augur::cache {
namespace {

std::shared_ptr<const Version> version_of(std::size_t i) {
  auto version = std::make_shared<Version>();
  version->program = "program " + std::to_string(i);
  version->program_hash = {i, ~i};
  version->toolchain = "a toolchain as long as a real one: LLVM 19, x86_64, O0, features...";
  return version;
}

TEST(ProgramCache, RecordsOfDeadVersionsAreSweptOverAHundredThousandPublishes) {
  ProgramCache programs;
  for (std::size_t i = 0; i < 100'000; ++i) {
    programs.publish(version_of(i));  // dies at once: no one else holds it
    ASSERT_LT(programs.records(), 2 * ProgramCache::min_sweep) << "after " << i + 1;
  }
}

TEST(ProgramCache, SweepsKeepTheLiveVersionsAndAtMostTwiceTheirNumber) {
  ProgramCache programs;
  std::vector<std::shared_ptr<const Version>> live;
  for (std::size_t i = 0; i < 100'000; ++i) {
    std::shared_ptr<const Version> published = programs.publish(version_of(i));
    if (i % 1000 == 0) live.push_back(std::move(published));
    ASSERT_LT(programs.records(), 2 * (live.size() + ProgramCache::min_sweep)) << i;
  }
  for (const std::shared_ptr<const Version>& version : live) {
    EXPECT_EQ(programs.find(version->program, version->program_hash, version->toolchain), version);
  }
  EXPECT_EQ(programs.shared(), live.size());
}

}  // namespace
}  // namespace augur::cache
