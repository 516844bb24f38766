#include "runtime/cache/disk_caches.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "jit/error.h"

namespace augur::cache {

ChosenDiskCache disk_cache_for(const std::string& directory, DirectoryTrust trust) {
  // Never destroyed, like the in-memory cache that compiles through them.
  if (directory.empty()) {
    static const ChosenDiskCache from_environment = [] {
      std::optional<DiskCache> disk = DiskCache::from_environment();
      if (disk) return ChosenDiskCache{new DiskCache(std::move(*disk)), false};
      const char* named = ::secure_getenv("AUGUR_CACHE_DIR");
      return ChosenDiskCache{nullptr, named != nullptr && *named != '\0'};
    }();
    return from_environment;
  }
  static std::mutex* const mutex = new std::mutex();
  // A null entry remembers a refused directory: it is reported once.
  static auto* const caches =
      new std::map<std::pair<std::string, DirectoryTrust>, std::unique_ptr<DiskCache>>();
  std::lock_guard lock(*mutex);
  const auto [it, inserted] = caches->try_emplace({directory, trust});
  if (inserted) {
    try {
      it->second = std::make_unique<DiskCache>(directory, trust);
    } catch (const jit::error& e) {
      report_disk_cache(e.message() + "; compiling without a disk cache");
    }
  }
  return {it->second.get(), it->second == nullptr};
}

}  // namespace augur::cache
