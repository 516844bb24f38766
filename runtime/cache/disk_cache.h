// A store of compiled code on disk (CPU objects, GPU cubins and PTX), shared by
// every process that names the same directory (AUGUR_CACHE_DIR). Each file
// holds one payload behind a header with its full key and a checksum, so a
// corrupt, truncated or foreign file is detected, reported and never
// returned. Writes are atomic (a temp file renamed into place): readers see a
// whole file or none, and the last writer wins.
//
// What it trusts (docs/compile.md, "Security"): code loaded from the cache runs
// in the process, so the directory must be writable only by those the process
// trusts. By default the directory and every file read from it must belong to
// this user and be writable by no one else; DirectoryTrust::Group admits a
// group-shared directory, as an explicit opt-in. The directory is opened once
// and used through its descriptor, files are opened without following links
// and without blocking, and only regular files of at most kMaxDiskEntryBytes
// are read.
//
//   augur::cache::DiskCache disk("/var/cache/augur");
//   const DiskKey key{cpu::object_key(options), ir::print(module)};
//   if (auto object = disk.load(key)) return cpu::load_object(*object, module, externs);
//   disk.store(key, cpu::compile_object(module, options));
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace augur::cache {

// Everything that decides the stored code, compared in full on every load.
struct DiskKey {
  // One line naming everything besides the program: for the CPU, Augur's
  // build, the LLVM version, triple, CPU name and features, opt level and
  // options, and at O2 the registered rules and externs; for the GPU, the
  // NVRTC version, architecture and options.
  std::string toolchain;
  // The program itself: the extracted IR's text for the CPU, the CUDA source
  // for a GPU image.
  std::string program;

  friend bool operator==(const DiskKey&, const DiskKey&) = default;
};

// Who may write the directory besides this user.
enum class DirectoryTrust {
  Owner,  // no one: the directory and its files are this user's, writable by no other
  Group,  // the directory's group too (opt-in for a cache shared between users)
};

// The largest file load() reads; a bigger one is rejected unread.
inline constexpr std::uint64_t kMaxDiskEntryBytes = std::uint64_t{512} << 20;

struct DiskCacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;          // load() returned nullopt, rejected files included
  std::uint64_t stores = 0;          // files written and renamed into place
  std::uint64_t rejected = 0;        // corrupt, truncated, foreign, untrusted or odd files
  std::uint64_t write_failures = 0;  // store() calls that left no file
};

class DiskCache {
 public:
  // Opens `dir`, creating it and its missing parents (mode 0700, or 02770
  // for Group trust). Throws jit::error naming it and why if that fails or
  // the directory is not trusted (owned by another user, writable by group
  // or others beyond what `trust` admits, not a directory).
  explicit DiskCache(std::filesystem::path dir, DirectoryTrust trust = DirectoryTrust::Owner);
  ~DiskCache();
  DiskCache(DiskCache&&) noexcept;
  DiskCache& operator=(DiskCache&&) noexcept;
  // The cache in AUGUR_CACHE_DIR (read with secure_getenv; Group trust when
  // AUGUR_CACHE_SHARED is "group"), or nullopt when it is unset or empty. A
  // directory that cannot be used is reported (see set_disk_cache_reporter)
  // and gives nullopt: the cache is an optimization the program runs without.
  static std::optional<DiskCache> from_environment();

  // The payload stored under `key`, or nullopt on a miss or a rejected file
  // (reported and counted; the next store() replaces it); `rejected`, if
  // given, tells the two apart. Any number of threads and processes may load
  // and store at once. Never throws.
  std::optional<std::vector<char>> load(const DiskKey& key, bool* rejected = nullptr);
  // Writes `payload` under `key`, replacing any earlier file atomically;
  // returns whether it did. Failures are reported and counted, never thrown.
  bool store(const DiskKey& key, std::span<const char> payload);

  DiskCacheStats stats() const;
  const std::filesystem::path& directory() const { return directory_; }
  DirectoryTrust trust() const { return trust_; }
  // Where `key`'s file lives: directory() / (hash of the whole key + ".aobj").
  std::filesystem::path path_of(const DiskKey& key) const;

 private:
  struct State;
  std::filesystem::path directory_;
  DirectoryTrust trust_;
  std::unique_ptr<State> state_;  // the directory's descriptor and the counters
};

// Where rejected files, refused directories and write failures are reported,
// one message each, naming the file and why. Thread-safe. Default (or an empty
// function): one line on stderr.
void set_disk_cache_reporter(std::function<void(std::string_view message)> reporter);
// Reports `message` there: for callers that run on without a disk cache.
void report_disk_cache(const std::string& message);

}  // namespace augur::cache
