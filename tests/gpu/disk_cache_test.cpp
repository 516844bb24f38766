// The disk cache's files: written whole, read back only when intact and
// written for the same key.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "gpu/disk_cache.h"
#include "jit/error.h"

namespace augur::gpu::testing {
namespace {

class DiskCacheFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("augur_gpu_disk_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string read(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void write(const std::filesystem::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  }

  std::filesystem::path dir_;
  const CacheKey key_{"augur test key\nsource text"};
  const DiskEntry entry_{std::string("payload\0with a NUL", 18), 1};
};

TEST_F(DiskCacheFiles, RoundTrip) {
  const DiskCache cache(dir_);
  EXPECT_EQ(cache.load(key_).status, DiskLookup::Missing);
  cache.store(key_, entry_);
  const DiskResult r = cache.load(key_);
  ASSERT_EQ(r.status, DiskLookup::Hit) << r.problem;
  EXPECT_EQ(r.entry->payload, entry_.payload);
  EXPECT_EQ(r.entry->flags, 1u);
  EXPECT_EQ(cache.file_for(key_).parent_path(), dir_ / "gpu");
  // No temporary file is left behind.
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_ / "gpu")) ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(DiskCacheFiles, TruncatedFilesAreCorrupt) {
  const DiskCache cache(dir_);
  cache.store(key_, entry_);
  const std::filesystem::path file = cache.file_for(key_);
  const std::string bytes = read(file);
  for (std::size_t keep : {std::size_t{0}, std::size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
    write(file, bytes.substr(0, keep));
    const DiskResult r = cache.load(key_);
    EXPECT_EQ(r.status, DiskLookup::Corrupt) << keep;
    EXPECT_NE(r.problem.find(file.string()), std::string::npos);
  }
  write(file, bytes + "x");
  EXPECT_EQ(cache.load(key_).status, DiskLookup::Corrupt);
}

TEST_F(DiskCacheFiles, AnyFlippedByteIsCaught) {
  const DiskCache cache(dir_);
  cache.store(key_, entry_);
  const std::filesystem::path file = cache.file_for(key_);
  const std::string bytes = read(file);
  // Past the magic and version (which make a file foreign instead).
  for (std::size_t i = 12; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x20);
    write(file, damaged);
    EXPECT_NE(cache.load(key_).status, DiskLookup::Hit) << "byte " << i;
  }
}

TEST_F(DiskCacheFiles, FilesOfOtherKeysOrFormatsAreForeign) {
  const DiskCache cache(dir_);
  const CacheKey other("another key");
  cache.store(other, entry_);
  // The other key's file where this key's should be (a hash collision, a copy).
  std::filesystem::rename(cache.file_for(other), cache.file_for(key_));
  DiskResult r = cache.load(key_);
  EXPECT_EQ(r.status, DiskLookup::Foreign);
  EXPECT_NE(r.problem.find("written for another key"), std::string::npos) << r.problem;

  write(cache.file_for(key_), std::string(200, 'z'));
  EXPECT_EQ(cache.load(key_).status, DiskLookup::Foreign);

  cache.store(key_, entry_);
  std::string bytes = read(cache.file_for(key_));
  bytes[8] = 9;  // format version 9
  write(cache.file_for(key_), bytes);
  r = cache.load(key_);
  EXPECT_EQ(r.status, DiskLookup::Foreign);
  EXPECT_NE(r.problem.find("format 9"), std::string::npos) << r.problem;
}

TEST_F(DiskCacheFiles, StoringOverABadFileRepairsIt) {
  const DiskCache cache(dir_);
  cache.store(key_, entry_);
  write(cache.file_for(key_), "garbage");
  EXPECT_NE(cache.load(key_).status, DiskLookup::Hit);
  cache.store(key_, entry_);
  EXPECT_EQ(cache.load(key_).status, DiskLookup::Hit);
}

TEST_F(DiskCacheFiles, AnUnwritableDirectoryIsAnError) {
  std::filesystem::create_directories(dir_);
  write(dir_ / "gpu", "a file where the directory should be");
  EXPECT_THROW(DiskCache(dir_).store(key_, entry_), jit::error);
}

}  // namespace
}  // namespace augur::gpu::testing
