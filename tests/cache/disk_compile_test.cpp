// The disk cache through jit::compile: this process compiles with a cache
// directory; a fresh process (this binary re-run on one disabled test, with
// AUGUR_CACHE_DIR) gets the same specializations without any LLVM work, as
// the backend's statistics show. A damaged file is rejected and rebuilt.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdio.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "jit/cpu/statistics.h"
#include "jit/jit.h"
#include "tests/cache/disk_test_util.h"
#include "tests/support/staged_programs.h"

namespace augur::cache::test {
namespace {

using augur::staged::plain_power;
using augur::staged::power;

constexpr std::array<int, 3> kExponents{3, 13, 29};

// Compiles every exponent (through AUGUR_CACHE_DIR) and checks the results.
void compile_and_check() {
  for (int n : kExponents) {
    const auto f = jit::compile(power, n);
    for (double x : {-1.25, 0.5, 2.0}) EXPECT_EQ(f(x), plain_power(x, n)) << x << "^" << n;
  }
}

TEST(DiskCompileChild, DISABLED_CompilesThroughTheDiskCache) {
  compile_and_check();
  const cpu::Statistics stats = cpu::statistics();
  std::printf(
      "child: objects_loaded=%llu objects_compiled=%llu modules_compiled=%llu "
      "optimization_ns=%lld machine_code_ns=%lld\n",
      static_cast<unsigned long long>(stats.objects_loaded),
      static_cast<unsigned long long>(stats.objects_compiled),
      static_cast<unsigned long long>(stats.modules_compiled),
      static_cast<long long>(stats.optimization.count()),
      static_cast<long long>(stats.machine_code.count()));
}

class DiskCompile : public DiskCacheTest {
 protected:
  // Versions compiled by an earlier test would serve these from memory.
  void SetUp() override {
    DiskCacheTest::SetUp();
    jit::clear_cache();
  }

  std::pair<int, std::string> run_child() {
    return run_this_binary("DiskCompileChild.*", "AUGUR_CACHE_DIR='" + dir().string() + "'");
  }
};

TEST_F(DiskCompile, ASecondProcessLoadsWithoutLlvmWork) {
  const cpu::Statistics before = cpu::statistics();
  for (int n : kExponents) EXPECT_EQ(jit::compile(with_disk(), power, n)(2.0), plain_power(2, n));
  const cpu::Statistics after = cpu::statistics();
  EXPECT_EQ(after.objects_compiled - before.objects_compiled, kExponents.size());
  ASSERT_EQ(files().size(), kExponents.size());

  const auto [status, output] = run_child();
  ASSERT_EQ(status, 0) << output;
  EXPECT_THAT(output, ::testing::HasSubstr("child: objects_loaded=3 objects_compiled=0 "
                                           "modules_compiled=0 optimization_ns=0 "
                                           "machine_code_ns=0\n"));
}

TEST_F(DiskCompile, DamagedFilesAreReportedAndRebuilt) {
  for (int n : kExponents) jit::compile(with_disk(), power, n);
  std::vector<std::filesystem::path> paths = files();
  ASSERT_EQ(paths.size(), kExponents.size());
  std::vector<char> corrupt = read_file(paths[0]);
  corrupt[corrupt.size() / 2] ^= 1;
  write_file(paths[0], corrupt);
  std::vector<char> truncated = read_file(paths[1]);
  truncated.resize(truncated.size() / 2);
  write_file(paths[1], truncated);

  const auto [status, output] = run_child();
  ASSERT_EQ(status, 0) << output;
  EXPECT_THAT(output, ::testing::HasSubstr("rejected " + paths[0].string()));
  EXPECT_THAT(output, ::testing::HasSubstr("rejected " + paths[1].string()));
  EXPECT_THAT(output, ::testing::HasSubstr("child: objects_loaded=3 objects_compiled=2 "));
  // The rebuilt files serve the next process.
  const auto [again_status, again] = run_child();
  ASSERT_EQ(again_status, 0) << again;
  EXPECT_THAT(again, ::testing::HasSubstr("child: objects_loaded=3 objects_compiled=0 "
                                          "modules_compiled=0 optimization_ns=0 "
                                          "machine_code_ns=0\n"));
}

}  // namespace
}  // namespace augur::cache::test
