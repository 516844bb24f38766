// Helpers of the disk cache's tests: a fresh directory per test, a reporter
// that captures what the cache reports, and child processes.
#pragma once

#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "jit/compile_options.h"
#include "runtime/cache/disk_cache.h"

namespace augur::cache::test {

// A directory of its own for each test, removed afterwards, with the
// reporter capturing messages meanwhile.
class DiskCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info->name();
    std::replace(name.begin(), name.end(), '/', '.');  // parameterized tests
    root_ = std::filesystem::temp_directory_path() /
            ("augur-disk-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(root_);
    set_disk_cache_reporter([this](std::string_view message) {
      std::lock_guard lock(mutex_);
      reports_.emplace_back(message);
    });
  }
  void TearDown() override {
    set_disk_cache_reporter({});
    std::filesystem::remove_all(root_);
  }

  std::filesystem::path dir() const { return root_ / "cache"; }
  // Options of a jit::compile through dir().
  jit::compile_options with_disk() const {
    jit::compile_options options;
    options.cache_dir = dir().string();
    return options;
  }
  // The entries in dir().
  std::vector<std::filesystem::path> files() const {
    std::vector<std::filesystem::path> found;
    for (const auto& entry : std::filesystem::directory_iterator(dir())) {
      found.push_back(entry.path());
    }
    return found;
  }
  std::vector<std::string> reports() {
    std::lock_guard lock(mutex_);
    return reports_;
  }

 private:
  std::filesystem::path root_;
  std::mutex mutex_;
  std::vector<std::string> reports_;
};

// Runs this test binary again, as a fresh process, on the disabled test
// `test` ("Suite.DISABLED_Name") with `environment` ("NAME='value' ...")
// prepended; its exit status and output.
inline std::pair<int, std::string> run_this_binary(const std::string& test,
                                                   const std::string& environment) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe");
  const std::string command = environment + " '" + self +
                              "' --gtest_also_run_disabled_tests --gtest_filter=" + test + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::string output;
  std::array<char, 256> chunk;
  while (std::fgets(chunk.data(), chunk.size(), pipe)) output += chunk.data();
  return {::pclose(pipe), output};
}

inline std::vector<char> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace augur::cache::test
