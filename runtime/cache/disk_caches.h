// The disk caches the compile pipelines use: one DiskCache per directory
// named by an option, and the one AUGUR_CACHE_DIR names; and the one
// "load → compile → store" both pipelines run around them and the remote
// level (remote_cache.h) behind them.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cache/disk_cache.h"
#include "runtime/cache/remote_cache.h"

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

// What one pipeline's disk cache did in this process (jit::cache_stats,
// jit::gpu::stats).
struct DiskCounters {
  std::atomic<std::uint64_t> hits{0};
  std::atomic<std::uint64_t> misses{0};    // no file
  std::atomic<std::uint64_t> rejected{0};  // files rejected, and entries that did not load
  std::atomic<std::uint64_t> writes{0};
  std::atomic<std::uint64_t> write_failures{0};
  std::atomic<std::uint64_t> refused{0};  // compiles whose named directory was refused
  RemoteCounters remote;                  // the remote level behind the disk
};

// The levels behind the in-memory cache, each optional.
struct CacheLevels {
  DiskCache* disk = nullptr;
  RemoteCache* remote = nullptr;
};

// The code of `key`: made by `load` from the payload the disk, or else the
// remote level, holds, when it holds a valid one (a remote hit is written to
// the disk too); else built by `build`, its payload (`encode`) stored in both
// for later processes, and made by `use` from what was built. With a remote
// level, one process of the fleet builds a key at a time (RemoteFlight).
// `load` returns a null result for a payload that does not load, having
// reported why: it is counted as rejected, and the new build's store
// replaces it.
template <class Load, class Build, class Encode, class Use>
auto load_or_build(CacheLevels levels, const DiskKey& key, DiskCounters& counts, Load&& load,
                   Build&& build, Encode&& encode, Use&& use) {
  if (levels.disk) {
    bool rejected = false;
    if (std::optional<std::vector<char>> payload = levels.disk->load(key, &rejected)) {
      if (auto code = load(*payload)) {
        ++counts.hits;
        return code;
      }
      ++counts.rejected;
    } else {
      ++(rejected ? counts.rejected : counts.misses);
    }
  }
  std::optional<RemoteFlight> flight;
  if (levels.remote) {
    flight.emplace(*levels.remote, key, counts.remote);
    if (const std::vector<char>* payload = flight->found()) {
      if (auto code = load(*payload)) {
        ++counts.remote.hits;
        if (levels.disk) {
          ++(levels.disk->store(key, *payload) ? counts.writes : counts.write_failures);
        }
        return code;
      }
      flight->refuse_found();
    }
  }
  auto built = build();
  const std::span<const char> artifact = encode(built);
  if (levels.disk) ++(levels.disk->store(key, artifact) ? counts.writes : counts.write_failures);
  if (flight) flight->publish(artifact);
  return use(std::move(built));
}

}  // namespace augur::cache
