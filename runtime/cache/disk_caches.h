// The disk caches jit::compile uses: one DiskCache per directory named by an
// option, and the one AUGUR_CACHE_DIR names.
#pragma once

#include <string>

#include "runtime/cache/disk_cache.h"

namespace augur::cache {

// The cache in `directory`, or for an empty one AUGUR_CACHE_DIR's (null when
// that is unset or unusable). Throws jit::error if `directory` cannot be made.
// The caches live until the process exits; any thread may use them.
DiskCache* disk_cache_for(const std::string& directory);

}  // namespace augur::cache
