// The second level of the specialization cache: compiled versions by program,
// so that two generators (or static arguments) that stage the same IR share
// one version. It holds weak references: a version lives as long as a cache
// entry or a jit::function holds it.
//
// Memory is bounded by the live versions: a dead version's record (its key
// and weak reference, some 900 bytes) goes when its program is looked up
// again, or at the latest at the next sweep, which runs when the records have
// doubled since the last one: each publish costs O(1) amortized, and the
// records never reach twice the versions live at the last sweep (or twice
// min_sweep).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cache/version.h"

namespace augur::cache {

class ProgramCache {
 public:
  // A live version of the same program (IR text, hash and toolchain equal), or null.
  std::shared_ptr<const Version> find(const std::string& program, const ir::Hash128& hash,
                                      const std::string& toolchain);
  // Records `version`, unless an equal program was published meanwhile: then
  // that one is returned and `version` is dropped.
  std::shared_ptr<const Version> publish(std::shared_ptr<const Version> version);

  // How many find() calls returned a version.
  std::uint64_t shared() const { return shared_.load(std::memory_order_relaxed); }

  // Versions recorded now: the live ones and dead ones not yet swept.
  std::size_t records() const {
    std::lock_guard lock(mutex_);
    return records_;
  }

  // Below this many records there is no sweep.
  static constexpr std::size_t min_sweep = 32;

 private:
  using Key = std::pair<ir::Hash128, std::string>;  // content hash, toolchain
  std::shared_ptr<const Version> find_locked(const std::string& program, const Key& key);
  // Drops every dead version's record.
  void sweep_locked();

  mutable std::mutex mutex_;
  std::map<Key, std::vector<std::weak_ptr<const Version>>> versions_;
  std::size_t records_ = 0;
  std::size_t sweep_at_ = 2 * min_sweep;  // records that trigger the next sweep
  std::atomic<std::uint64_t> shared_{0};
};

}  // namespace augur::cache
