// The disk cache on its own: round trips, rejected files of every kind,
// failing writes, the environment, and many threads on one key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <ostream>
#include <thread>
#include <vector>

#include "jit/error.h"
#include "runtime/cache/disk_cache.h"
#include "runtime/cache/disk_format.h"
#include "tests/cache/disk_test_util.h"

namespace augur::cache::test {
namespace {

using ::testing::HasSubstr;

const DiskKey kKey{{0x0123456789abcdefull, 0xfedcba9876543210ull},
                   "llvm 19 x86_64 znver3 +avx2 O2"};
const DiskKey kOtherToolchain{kKey.ir_hash, "llvm 19 x86_64 znver3 +avx2 O3"};
const DiskKey kOtherIr{{kKey.ir_hash.hi, kKey.ir_hash.lo + 1}, kKey.toolchain};

// An object-like payload: every byte depends on `seed` and its position.
std::vector<char> payload(int seed, std::size_t bytes = 4096) {
  std::vector<char> out(bytes);
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>((i * 131 + seed * 7) >> 3);
  return out;
}

TEST_F(DiskCacheTest, StoresAndLoadsBack) {
  DiskCache disk(dir());
  EXPECT_TRUE(std::filesystem::is_directory(dir()));
  EXPECT_EQ(disk.load(kKey), std::nullopt);
  disk.store(kKey, payload(1));
  EXPECT_EQ(disk.load(kKey), payload(1));
  disk.store(kKey, payload(2, 100));  // replaces the first
  EXPECT_EQ(disk.load(kKey), payload(2, 100));
  disk.store(kOtherIr, {});
  EXPECT_EQ(disk.load(kOtherIr), std::vector<char>());
  EXPECT_EQ(disk.load(kOtherToolchain), std::nullopt);
  const DiskCacheStats stats = disk.stats();
  EXPECT_EQ(stats.hits, 3u);
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.stores, 3u);
  EXPECT_EQ(stats.rejected, 0u);
  EXPECT_EQ(stats.write_failures, 0u);
  EXPECT_THAT(reports(), ::testing::IsEmpty());
}

TEST_F(DiskCacheTest, AnotherInstanceOnTheDirectorySeesTheFiles) {
  DiskCache(dir()).store(kKey, payload(3));
  DiskCache later(dir());
  EXPECT_EQ(later.load(kKey), payload(3));
  EXPECT_EQ(later.directory(), dir());
}

TEST_F(DiskCacheTest, EveryPartOfTheKeyNamesItsOwnFile) {
  DiskCache disk(dir());
  EXPECT_NE(disk.path_of(kKey), disk.path_of(kOtherToolchain));
  EXPECT_NE(disk.path_of(kKey), disk.path_of(kOtherIr));
  EXPECT_EQ(disk.path_of(kKey).parent_path(), dir());
  disk.store(kKey, payload(1));
  disk.store(kOtherToolchain, payload(2));
  disk.store(kOtherIr, payload(3));
  EXPECT_EQ(disk.load(kKey), payload(1));
  EXPECT_EQ(disk.load(kOtherToolchain), payload(2));
  EXPECT_EQ(disk.load(kOtherIr), payload(3));
}

TEST_F(DiskCacheTest, FileHasTheDocumentedHeader) {
  DiskCache disk(dir());
  const std::vector<char> object = payload(4, 300);
  disk.store(kKey, object);
  const std::vector<char> file = read_file(disk.path_of(kKey));
  ASSERT_EQ(file.size(), kDiskHeaderBytes + kKey.toolchain.size() + object.size());
  EXPECT_EQ(std::string(file.data(), 8), "AUGURobj");
  EXPECT_EQ(file[8], static_cast<char>(kDiskFormatVersion));
  EXPECT_EQ(file[12], static_cast<char>(kKey.toolchain.size()));
  EXPECT_EQ(static_cast<unsigned char>(file[16]), kKey.ir_hash.hi & 0xff);
  EXPECT_EQ(std::string(file.data() + kDiskHeaderBytes, kKey.toolchain.size()), kKey.toolchain);
  EXPECT_TRUE(std::equal(object.begin(), object.end(), file.end() - 300));
}

// A way of damaging the file stored under kKey, and a word the report must contain.
struct Damage {
  const char* name;
  std::function<void(DiskCache&)> apply;
  const char* reason;
};

void PrintTo(const Damage& damage, std::ostream* out) {
  *out << damage.name;
}

void edit_file(const std::filesystem::path& path,
               const std::function<void(std::vector<char>&)>& edit) {
  std::vector<char> bytes = read_file(path);
  edit(bytes);
  write_file(path, bytes);
}

std::vector<Damage> damages() {
  auto editing = [](std::function<void(std::vector<char>&)> edit) {
    return [edit](DiskCache& disk) { edit_file(disk.path_of(kKey), edit); };
  };
  return {
      {"PayloadByteFlipped", editing([](auto& b) { b[b.size() - 100] ^= 0x10; }), "checksum"},
      {"PayloadTruncated", editing([](auto& b) { b.pop_back(); }), "truncated"},
      {"HeaderTruncated", editing([](auto& b) { b.resize(30); }), "truncated"},
      {"Empty", editing([](auto& b) { b.clear(); }), "truncated"},
      {"TrailingBytes", editing([](auto& b) { b.push_back('x'); }), "corrupt"},
      {"WrongMagic", editing([](auto& b) { b[0] = 'X'; }), "magic"},
      {"WrongVersion", editing([](auto& b) { b[8] = 2; }), "version 2"},
      {"ToolchainByteChanged", editing([](auto& b) { b[kDiskHeaderBytes + 3] ^= 1; }), "foreign"},
      {"ForeignToolchain",
       [](DiskCache& disk) {
         disk.store(kOtherToolchain, payload(9));
         std::filesystem::rename(disk.path_of(kOtherToolchain), disk.path_of(kKey));
       },
       "foreign"},
      {"ForeignIr",
       [](DiskCache& disk) {
         disk.store(kOtherIr, payload(9));
         std::filesystem::rename(disk.path_of(kOtherIr), disk.path_of(kKey));
       },
       "foreign"},
  };
}

class DamagedFile : public DiskCacheTest, public ::testing::WithParamInterface<Damage> {};

TEST_P(DamagedFile, IsRejectedReportedRemovedAndRebuilt) {
  DiskCache disk(dir());
  disk.store(kKey, payload(5));
  GetParam().apply(disk);
  const std::filesystem::path path = disk.path_of(kKey);
  const DiskCacheStats before = disk.stats();
  EXPECT_EQ(disk.load(kKey), std::nullopt);
  const DiskCacheStats after = disk.stats();
  EXPECT_EQ(after.rejected - before.rejected, 1u);
  EXPECT_EQ(after.misses - before.misses, 1u);
  EXPECT_EQ(after.hits, before.hits);
  const std::vector<std::string> messages = reports();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_THAT(messages[0], HasSubstr(path.string()));
  EXPECT_THAT(messages[0], HasSubstr(GetParam().reason));
  EXPECT_FALSE(std::filesystem::exists(path));
  // A later miss finds nothing to report; a store rebuilds the file.
  EXPECT_EQ(disk.load(kKey), std::nullopt);
  EXPECT_EQ(reports().size(), 1u);
  disk.store(kKey, payload(6));
  EXPECT_EQ(disk.load(kKey), payload(6));
  EXPECT_EQ(disk.stats().rejected, 1u);
}

INSTANTIATE_TEST_SUITE_P(Damages, DamagedFile, ::testing::ValuesIn(damages()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(DiskCacheTest, FailedWritesAreReportedNotThrown) {
  DiskCache disk(dir());
  // The directory gives way to a plain file: nothing can be created in it
  // (permissions would not stop a test running as root).
  std::filesystem::remove_all(dir());
  write_file(dir(), {'x'});
  EXPECT_NO_THROW(disk.store(kKey, payload(1)));
  const DiskCacheStats stats = disk.stats();
  EXPECT_EQ(stats.write_failures, 1u);
  EXPECT_EQ(stats.stores, 0u);
  const std::vector<std::string> messages = reports();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_THAT(messages[0], HasSubstr("cannot write " + disk.path_of(kKey).string()));
  EXPECT_THAT(messages[0], HasSubstr("directory"));  // ENOTDIR's message
  EXPECT_EQ(disk.load(kKey), std::nullopt);
}

TEST_F(DiskCacheTest, ARemovedDirectoryIsMadeAgainByTheNextStore) {
  DiskCache disk(dir());
  std::filesystem::remove_all(dir());
  EXPECT_TRUE(disk.store(kKey, payload(1)));
  EXPECT_EQ(disk.load(kKey), payload(1));
  EXPECT_EQ(disk.stats().write_failures, 0u);
  EXPECT_TRUE(reports().empty());
}

TEST_F(DiskCacheTest, UnusableDirectoryThrowsNamingIt) {
  std::filesystem::create_directories(dir().parent_path());
  write_file(dir(), {'x'});
  try {
    DiskCache disk(dir());
    FAIL() << "expected a jit::error";
  } catch (const jit::error& e) {
    EXPECT_THAT(e.what(), HasSubstr(dir().string()));
    EXPECT_EQ(e.where().file, dir().string());
  }
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

TEST_F(DiskCacheTest, FromEnvironment) {
  ::unsetenv("AUGUR_CACHE_DIR");
  EXPECT_FALSE(DiskCache::from_environment().has_value());
  {
    ScopedEnv empty("AUGUR_CACHE_DIR", "");
    EXPECT_FALSE(DiskCache::from_environment().has_value());
  }
  {
    ScopedEnv set("AUGUR_CACHE_DIR", dir().string());
    std::optional<DiskCache> disk = DiskCache::from_environment();
    ASSERT_TRUE(disk.has_value());
    EXPECT_EQ(disk->directory(), dir());
    disk->store(kKey, payload(7));
    EXPECT_EQ(DiskCache(dir()).load(kKey), payload(7));
  }
  EXPECT_THAT(reports(), ::testing::IsEmpty());
  {
    write_file(dir().parent_path() / "file", {'x'});
    ScopedEnv unusable("AUGUR_CACHE_DIR", (dir().parent_path() / "file" / "cache").string());
    EXPECT_FALSE(DiskCache::from_environment().has_value());
    ASSERT_EQ(reports().size(), 1u);
    EXPECT_THAT(reports()[0], HasSubstr("AUGUR_CACHE_DIR"));
  }
}

TEST_F(DiskCacheTest, ManyThreadsOnOneKeySeeWholeFilesOnly) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 25;
  constexpr std::size_t kBytes = 64 * 1024;
  std::filesystem::create_directories(dir());
  std::vector<std::vector<char>> payloads;
  for (int t = 0; t < kThreads; ++t) payloads.push_back(payload(t, kBytes));
  std::atomic<int> torn{0};
  std::atomic<std::uint64_t> hits{0}, stores{0}, rejected{0}, write_failures{0};
  auto work = [&](int thread) {
    DiskCache disk(dir());  // one instance each, like separate processes
    for (int round = 0; round < kRounds; ++round) {
      if ((round + thread) % 2 == 0) disk.store(kKey, payloads[thread]);
      if (std::optional<std::vector<char>> got = disk.load(kKey)) {
        if (std::find(payloads.begin(), payloads.end(), *got) == payloads.end()) ++torn;
      }
    }
    const DiskCacheStats stats = disk.stats();
    hits += stats.hits;
    stores += stats.stores;
    rejected += stats.rejected;
    write_failures += stats.write_failures;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(rejected.load(), 0u);
  EXPECT_EQ(write_failures.load(), 0u);
  EXPECT_EQ(stores.load(), static_cast<std::uint64_t>(kThreads * kRounds / 2));
  EXPECT_GT(hits.load(), 0u);
  EXPECT_THAT(reports(), ::testing::IsEmpty());
  // The last writer's whole file, and no temp file left behind.
  const std::optional<std::vector<char>> last = DiskCache(dir()).load(kKey);
  ASSERT_TRUE(last.has_value());
  EXPECT_NE(std::find(payloads.begin(), payloads.end(), *last), payloads.end());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir()), {}), 1);
}

}  // namespace
}  // namespace augur::cache::test
