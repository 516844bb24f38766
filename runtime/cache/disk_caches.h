// The disk caches the compile pipelines use: one DiskCache per directory
// named by an option, and the one AUGUR_CACHE_DIR names.
#pragma once

#include <string>

#include "runtime/cache/disk_cache.h"

namespace augur::cache {

struct ChosenDiskCache {
  DiskCache* cache = nullptr;  // null: none asked for, or refused
  bool refused = false;        // a directory was named but cannot be used
};

// The cache in `directory` with `trust`, or for an empty one AUGUR_CACHE_DIR's
// (which has its own trust, AUGUR_CACHE_SHARED). Never throws: a directory
// that cannot be made or is not trusted is reported once and refused, and the
// caller compiles without a disk cache. The caches live until the process
// exits; any thread may use them.
ChosenDiskCache disk_cache_for(const std::string& directory, DirectoryTrust trust);

}  // namespace augur::cache
