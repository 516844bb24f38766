// Compiled GPU images on disk, shared by processes: <dir>/gpu/<key hash>.bin.
//
// A file holds a header (magic "AUGURGPU", format version, flags, the full
// key and the payload's length), the key, the payload, and a 128-bit checksum
// of all that (runtime/ir/hash.h's Hasher). Files are written to a temporary
// name and renamed into place, so readers see a whole file or none. A file
// that is truncated, fails its checksum, or holds another key (a hash
// collision, another format) is never used: the caller rebuilds the image and
// the file is overwritten.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "gpu/lru_cache.h"

namespace augur::gpu {

struct DiskEntry {
  std::string payload;
  std::uint32_t flags = 0;  // the caller's (for images: bit 0 = cubin)
};

enum class DiskLookup : std::uint8_t { Hit, Missing, Corrupt, Foreign };

struct DiskResult {
  DiskLookup status = DiskLookup::Missing;
  std::optional<DiskEntry> entry;  // Hit only
  std::string problem;             // Corrupt, Foreign: what was wrong, with the file
};

class DiskCache {
 public:
  explicit DiskCache(std::filesystem::path root) : root_(std::move(root)) {}

  DiskResult load(const CacheKey& key) const;
  // Writes atomically; throws jit::error naming the file if it cannot.
  void store(const CacheKey& key, const DiskEntry& entry) const;

  std::filesystem::path file_for(const CacheKey& key) const;

 private:
  std::filesystem::path root_;
};

}  // namespace augur::gpu
