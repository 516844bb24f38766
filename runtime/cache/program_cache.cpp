#include "runtime/cache/program_cache.h"

#include <algorithm>
#include <iterator>

namespace augur::cache {

namespace {

bool expired(const std::weak_ptr<const Version>& weak) {
  return weak.expired();
}

}  // namespace

std::shared_ptr<const Version> ProgramCache::find_locked(const std::string& program,
                                                         const Key& key) {
  auto it = versions_.find(key);
  if (it == versions_.end()) return nullptr;
  std::vector<std::weak_ptr<const Version>>& candidates = it->second;
  records_ -= std::erase_if(candidates, expired);
  for (const auto& weak : candidates) {
    std::shared_ptr<const Version> version = weak.lock();
    // Equal hashes are not proof: the texts must match.
    if (version && version->program == program) return version;
  }
  if (candidates.empty()) versions_.erase(it);
  return nullptr;
}

std::shared_ptr<const Version> ProgramCache::find(const std::string& program,
                                                  const ir::Hash128& hash,
                                                  const std::string& toolchain) {
  std::lock_guard lock(mutex_);
  std::shared_ptr<const Version> version = find_locked(program, {hash, toolchain});
  if (version) shared_.fetch_add(1, std::memory_order_relaxed);
  return version;
}

std::shared_ptr<const Version> ProgramCache::publish(std::shared_ptr<const Version> version) {
  const Key key{version->program_hash, version->toolchain};
  std::lock_guard lock(mutex_);
  if (std::shared_ptr<const Version> existing = find_locked(version->program, key)) {
    return existing;
  }
  versions_[key].push_back(version);
  if (++records_ >= sweep_at_) sweep_locked();
  return version;
}

void ProgramCache::sweep_locked() {
  for (auto it = versions_.begin(); it != versions_.end();) {
    records_ -= std::erase_if(it->second, expired);
    it = it->second.empty() ? versions_.erase(it) : std::next(it);
  }
  sweep_at_ = 2 * std::max(records_, min_sweep);
}

}  // namespace augur::cache
