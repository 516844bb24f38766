// The disk cache on its own: round trips, rejected files of every kind,
// failing writes, the environment, and many threads on one key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

const DiskKey kKey{"llvm 19 x86_64 znver3 +avx2 O2", "fn f(a: i32) -> i32 { return a; }"};
const DiskKey kOtherToolchain{"llvm 19 x86_64 znver3 +avx2 O3", kKey.program};
const DiskKey kOtherProgram{kKey.toolchain, "fn f(a: i32) -> i32 { return a + 1i32; }"};

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
  disk.store(kOtherProgram, {});
  EXPECT_EQ(disk.load(kOtherProgram), std::vector<char>());
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
  EXPECT_NE(disk.path_of(kKey), disk.path_of(kOtherProgram));
  EXPECT_EQ(disk.path_of(kKey).parent_path(), dir());
  disk.store(kKey, payload(1));
  disk.store(kOtherToolchain, payload(2));
  disk.store(kOtherProgram, payload(3));
  EXPECT_EQ(disk.load(kKey), payload(1));
  EXPECT_EQ(disk.load(kOtherToolchain), payload(2));
  EXPECT_EQ(disk.load(kOtherProgram), payload(3));
}

TEST_F(DiskCacheTest, FileHasTheDocumentedHeader) {
  DiskCache disk(dir());
  const std::vector<char> object = payload(4, 300);
  disk.store(kKey, object);
  const std::vector<char> file = read_file(disk.path_of(kKey));
  const std::size_t key_bytes = kKey.toolchain.size() + kKey.program.size();
  ASSERT_EQ(file.size(), kDiskHeaderBytes + key_bytes + object.size());
  EXPECT_EQ(std::string(file.data(), 8), "AUGURobj");
  EXPECT_EQ(file[8], static_cast<char>(kDiskFormatVersion));
  EXPECT_EQ(file[12], static_cast<char>(kKey.toolchain.size()));
  EXPECT_EQ(file[16], static_cast<char>(kKey.program.size()));
  EXPECT_EQ(file[24], static_cast<char>(object.size() & 0xff));
  EXPECT_EQ(std::string(file.data() + kDiskHeaderBytes, kKey.toolchain.size()), kKey.toolchain);
  EXPECT_EQ(
      std::string(file.data() + kDiskHeaderBytes + kKey.toolchain.size(), kKey.program.size()),
      kKey.program);
  EXPECT_TRUE(std::equal(object.begin(), object.end(), file.end() - 300));
}

TEST_F(DiskCacheTest, FilesAndDirectoriesItMakesAreThisUsersOnly) {
  DiskCache disk(dir());
  disk.store(kKey, payload(1));
  struct stat status {};
  ASSERT_EQ(::stat(dir().c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat(dir().parent_path().c_str(), &status), 0);  // a parent it made too
  EXPECT_EQ(status.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat(disk.path_of(kKey).c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600u);
  EXPECT_EQ(status.st_uid, ::geteuid());
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
  auto replacing = [](std::function<void(const std::filesystem::path&)> plant) {
    return [plant](DiskCache& disk) {
      std::filesystem::remove(disk.path_of(kKey));
      plant(disk.path_of(kKey));
    };
  };
  return {
      {"PayloadByteFlipped", editing([](auto& b) { b[b.size() - 100] ^= 0x10; }), "checksum"},
      {"PayloadTruncated", editing([](auto& b) { b.pop_back(); }), "truncated"},
      {"HeaderTruncated", editing([](auto& b) { b.resize(30); }), "truncated"},
      {"Empty", editing([](auto& b) { b.clear(); }), "truncated"},
      {"TrailingBytes", editing([](auto& b) { b.push_back('x'); }), "corrupt"},
      {"WrongMagic", editing([](auto& b) { b[0] = 'X'; }), "magic"},
      {"WrongVersion", editing([](auto& b) { b[8] = 1; }), "version 1"},
      {"KeyLengthHuge", editing([](auto& b) { b[23] = 0x7f; }), "truncated key"},
      {"ToolchainByteChanged", editing([](auto& b) { b[kDiskHeaderBytes + 3] ^= 1; }), "foreign"},
      {"ProgramByteChanged",
       editing([](auto& b) { b[kDiskHeaderBytes + kKey.toolchain.size() + 3] ^= 1; }),
       "another program"},
      {"ForeignToolchain",
       [](DiskCache& disk) {
         disk.store(kOtherToolchain, payload(9));
         std::filesystem::rename(disk.path_of(kOtherToolchain), disk.path_of(kKey));
       },
       "foreign"},
      {"ForeignProgram",
       [](DiskCache& disk) {
         disk.store(kOtherProgram, payload(9));
         std::filesystem::rename(disk.path_of(kOtherProgram), disk.path_of(kKey));
       },
       "foreign"},
      // What someone else could plant under the name: none may hang, crash or load.
      {"Fifo", replacing([](const auto& path) { ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0); }),
       "FIFO"},
      {"SymlinkToFifo", replacing([](const auto& path) {
         const std::filesystem::path fifo = path.parent_path() / "fifo";
         ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
         std::filesystem::create_symlink(fifo, path);
       }),
       "symbolic link"},
      {"SymlinkToAValidEntry",
       [](DiskCache& disk) {
         const std::filesystem::path elsewhere = disk.directory().parent_path() / "valid";
         std::filesystem::rename(disk.path_of(kKey), elsewhere);
         std::filesystem::create_symlink(elsewhere, disk.path_of(kKey));
       },
       "symbolic link"},
      {"SparseFourGigabytes", replacing([](const auto& path) {
         write_file(path, {'A', 'U', 'G', 'U', 'R', 'o', 'b', 'j'});
         std::filesystem::resize_file(path, std::uintmax_t{4} << 30);
       }),
       "above the limit"},
      {"Directory", replacing([](const auto& path) { std::filesystem::create_directory(path); }),
       "a directory"},
      {"GroupWritable",
       [](DiskCache& disk) {
         std::filesystem::permissions(disk.path_of(kKey), std::filesystem::perms::group_write,
                                      std::filesystem::perm_options::add);
       },
       "writable by group"},
      {"ForeignOwner",
       [](DiskCache& disk) {
         // Only root can give a file away; others reach the same check through
         // the group-writable case above.
         if (::geteuid() == 0) {
           ASSERT_EQ(::chown(disk.path_of(kKey).c_str(), 65534, 65534), 0);
         } else {
           std::filesystem::permissions(disk.path_of(kKey), std::filesystem::perms::others_write,
                                        std::filesystem::perm_options::add);
         }
       },
       ::geteuid() == 0 ? "owned by uid 65534" : "writable by"},
  };
}

class DamagedFile : public DiskCacheTest, public ::testing::WithParamInterface<Damage> {};

TEST_P(DamagedFile, IsRejectedReportedAndReplacedByTheNextStore) {
  DiskCache disk(dir());
  disk.store(kKey, payload(5));
  GetParam().apply(disk);
  const std::filesystem::path path = disk.path_of(kKey);
  const DiskCacheStats before = disk.stats();
  bool rejected = false;
  EXPECT_EQ(disk.load(kKey, &rejected), std::nullopt);
  EXPECT_TRUE(rejected);
  const DiskCacheStats after = disk.stats();
  EXPECT_EQ(after.rejected - before.rejected, 1u);
  EXPECT_EQ(after.misses - before.misses, 1u);
  EXPECT_EQ(after.hits, before.hits);
  const std::vector<std::string> messages = reports();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_THAT(messages[0], HasSubstr(path.string()));
  EXPECT_THAT(messages[0], HasSubstr(GetParam().reason));
  // The file stays (removing it could remove a fresh one another process
  // just renamed into place) until a store replaces it atomically.
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::symlink_status(path)));
  if (GetParam().name != std::string("Directory")) {
    EXPECT_TRUE(disk.store(kKey, payload(6)));
    EXPECT_EQ(disk.load(kKey), payload(6));
    EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(path)));
  } else {
    // rename() cannot replace a directory with a file: the store fails, reported.
    EXPECT_FALSE(disk.store(kKey, payload(6)));
    EXPECT_EQ(disk.stats().write_failures, 1u);
  }
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

// The jit::error a DiskCache on `dir` with `trust` throws, or "" if it opens.
std::string refusal(const std::filesystem::path& dir, DirectoryTrust trust) {
  try {
    DiskCache disk(dir, trust);
    return "";
  } catch (const jit::error& e) {
    return e.what();
  }
}

TEST_F(DiskCacheTest, AGroupOrWorldWritableDirectoryIsRefused) {
  DiskCache(dir()).store(kKey, payload(1));
  const std::vector<char> before = read_file(DiskCache(dir()).path_of(kKey));
  ::chmod(dir().c_str(), 0770);
  EXPECT_THAT(refusal(dir(), DirectoryTrust::Owner), HasSubstr("writable by its group"));
  ::chmod(dir().c_str(), 0707);
  EXPECT_THAT(refusal(dir(), DirectoryTrust::Owner), HasSubstr("writable by others"));
  EXPECT_THAT(refusal(dir(), DirectoryTrust::Group), HasSubstr("writable by others"));
  // Nothing was read or written there: the entry is as it was, alone.
  ::chmod(dir().c_str(), 0700);
  EXPECT_EQ(read_file(DiskCache(dir()).path_of(kKey)), before);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir()), {}), 1);
}

TEST_F(DiskCacheTest, ADirectoryOfAnotherUserIsRefused) {
  if (::geteuid() == 0) {
    std::filesystem::create_directories(dir());
    ASSERT_EQ(::chown(dir().c_str(), 65534, 65534), 0);
    EXPECT_THAT(refusal(dir(), DirectoryTrust::Owner), HasSubstr("owned by uid 65534"));
    // Group trust needs one of this user's groups.
    EXPECT_THAT(refusal(dir(), DirectoryTrust::Group), HasSubstr("neither this user"));
  } else {
    EXPECT_THAT(refusal("/", DirectoryTrust::Owner), HasSubstr("owned by uid 0"));
  }
}

TEST_F(DiskCacheTest, GroupTrustSharesAGroupWritableDirectory) {
  std::filesystem::create_directories(dir());
  ::chmod(dir().c_str(), 02770);
  DiskCache shared(dir(), DirectoryTrust::Group);
  EXPECT_TRUE(shared.store(kKey, payload(2)));
  struct stat status {};
  ASSERT_EQ(::stat(shared.path_of(kKey).c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0640u);  // readable by the group whatever the umask
  EXPECT_EQ(shared.load(kKey), payload(2));
  // A group-writable file is another member's to write: admitted under group trust.
  ::chmod(shared.path_of(kKey).c_str(), 0660);
  EXPECT_EQ(shared.load(kKey), payload(2));
  ::chmod(shared.path_of(kKey).c_str(), 0662);
  EXPECT_EQ(shared.load(kKey), std::nullopt);
  EXPECT_EQ(shared.stats().rejected, 1u);
}

TEST_F(DiskCacheTest, TheDirectoryIsUsedThroughTheDescriptorItWasCheckedOn) {
  DiskCache disk(dir());
  disk.store(kKey, payload(3));
  // Swapping the path for an untrusted directory afterwards changes nothing:
  // the checked directory, moved, is still the one read.
  const std::filesystem::path moved = dir().parent_path() / "moved";
  std::filesystem::rename(dir(), moved);
  std::filesystem::create_directories(dir());
  ::chmod(dir().c_str(), 0777);
  EXPECT_EQ(disk.load(kKey), payload(3));
  EXPECT_TRUE(disk.store(kOtherProgram, payload(4)));
  EXPECT_TRUE(std::filesystem::is_empty(dir()));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(moved), {}), 2);
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
  {
    std::filesystem::create_directories(dir());
    ::chmod(dir().c_str(), 0770);
    ScopedEnv set("AUGUR_CACHE_DIR", dir().string());
    EXPECT_FALSE(DiskCache::from_environment().has_value());  // refused, reported
    EXPECT_THAT(reports().back(), HasSubstr("writable by its group"));
    ScopedEnv shared("AUGUR_CACHE_SHARED", "group");
    std::optional<DiskCache> disk = DiskCache::from_environment();
    ASSERT_TRUE(disk.has_value());
    EXPECT_EQ(disk->trust(), DirectoryTrust::Group);
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
