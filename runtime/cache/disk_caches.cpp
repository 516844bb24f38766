#include "runtime/cache/disk_caches.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace augur::cache {

DiskCache* disk_cache_for(const std::string& directory) {
  // Never destroyed, like the in-memory cache that compiles through them.
  if (directory.empty()) {
    static DiskCache* const from_environment = [] {
      std::optional<DiskCache> disk = DiskCache::from_environment();
      return disk ? new DiskCache(std::move(*disk)) : nullptr;
    }();
    return from_environment;
  }
  static std::mutex* const mutex = new std::mutex();
  static auto* const caches = new std::map<std::string, std::unique_ptr<DiskCache>>();
  std::lock_guard lock(*mutex);
  std::unique_ptr<DiskCache>& disk = (*caches)[directory];
  if (!disk) disk = std::make_unique<DiskCache>(directory);
  return disk.get();
}

}  // namespace augur::cache
