// A store of compiled code on disk (CPU object files, GPU cubins and PTX),
// shared by every process that names the same directory (AUGUR_CACHE_DIR).
// Each file holds one payload behind a header with its full key and a
// checksum, so a corrupt, truncated or foreign file is detected, reported,
// removed and never returned. Writes are atomic (a temp file renamed into
// place): readers see a whole file or none, and the last writer wins. docs/compile.md ("Disk
// cache") describes the file format.
//
//   augur::cache::DiskCache disk("/var/cache/augur");
//   const DiskKey key{ir::content_hash(module), cpu::object_key(options)};
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

#include "runtime/ir/hash.h"

namespace augur::cache {

// Everything that decides the stored code.
struct DiskKey {
  // The program's content hash: ir::content_hash of the module for the CPU,
  // the ir::Hasher hash of the CUDA source for GPU images.
  ir::Hash128 ir_hash;
  // One line naming the rest: for the CPU, LLVM version, triple, CPU name and
  // features, opt level, options (cpu::object_key); for the GPU, the NVRTC
  // version, architecture and options. Compared in full on load.
  std::string toolchain;

  friend bool operator==(const DiskKey&, const DiskKey&) = default;
};

struct DiskCacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;          // load() returned nullopt, rejected files included
  std::uint64_t stores = 0;          // files written and renamed into place
  std::uint64_t rejected = 0;        // corrupt, truncated or foreign files
  std::uint64_t write_failures = 0;  // store() calls that left no file
};

class DiskCache {
 public:
  // Creates `dir` (and its parents) if missing; throws jit::error naming it if
  // that fails or it is not a directory.
  explicit DiskCache(std::filesystem::path dir);
  ~DiskCache();
  DiskCache(DiskCache&&) noexcept;
  DiskCache& operator=(DiskCache&&) noexcept;
  // The cache in AUGUR_CACHE_DIR, or nullopt when it is unset or empty. A
  // directory that cannot be made is reported (see set_disk_cache_reporter)
  // and gives nullopt: the cache is an optimization the program runs without.
  static std::optional<DiskCache> from_environment();

  // The payload stored under `key`, or nullopt on a miss or a rejected file
  // (reported, counted, then removed); `rejected`, if given, tells the two
  // apart. Any number of threads and processes may load and store at once.
  std::optional<std::vector<char>> load(const DiskKey& key, bool* rejected = nullptr);
  // Writes `payload` under `key`, replacing any earlier file atomically;
  // returns whether it did. Failures are reported and counted, never thrown.
  bool store(const DiskKey& key, std::span<const char> payload);

  DiskCacheStats stats() const;
  const std::filesystem::path& directory() const { return directory_; }
  // Where `key`'s file lives: directory() / (hash of the whole key + ".aobj").
  std::filesystem::path path_of(const DiskKey& key) const;

 private:
  struct Counters;
  std::filesystem::path directory_;
  std::unique_ptr<Counters> counters_;  // atomics, boxed so that DiskCache moves
};

// Where rejected files and write failures are reported, one message each,
// naming the file and why. Thread-safe. Default (or an empty function): one
// line on stderr.
void set_disk_cache_reporter(std::function<void(std::string_view message)> reporter);
// Reports `message` there: for callers that run on without a disk cache.
void report_disk_cache(const std::string& message);

}  // namespace augur::cache
