// Publication and retirement (docs/hotswap.md).
#include "jit/detail/handle_core.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "jit/error.h"
#include "runtime/swap/epoch.h"
#include "runtime/swap/handle_control.h"
#include "runtime/swap/publish.h"

namespace jit::detail {

void throw_unpublished() {
  throw jit::error("jit::handle called before a version was published");
}

handle_core::handle_core(erased_entry unpublished)
    : entry_(unpublished), control_(std::make_unique<handle_control>()) {}

// No thread can be in a call through this handle any more (calling a handle
// needs the handle), so every owner goes at once.
handle_core::~handle_core() = default;

void handle_core::publish(compiled_version version, jit::tier tier) {
  std::uint64_t ticket = 0;
  {
    const std::scoped_lock lock(control_->mutex);
    ticket = ++control_->tickets;
  }
  augur::swap::offer(*this, ticket, tier, std::move(version), nullptr);
}

std::size_t handle_core::reclaim() {
  std::vector<retired_version> freed;
  {
    const std::scoped_lock lock(control_->mutex);
    freed = augur::swap::take_reclaimable(*this, *control_);
  }
  augur::swap::collect_held(this);
  return freed.size();
}

handle_statistics handle_core::statistics() const {
  const std::scoped_lock lock(control_->mutex);
  handle_statistics s = control_->counts;
  s.pending = control_->pending;
  return s;
}

}  // namespace jit::detail

namespace augur::swap {

using jit::detail::compiled_version;
using jit::detail::handle_control;
using jit::detail::handle_core;
using jit::detail::retired_version;

namespace {

// The handles whose last collection left retired versions behind (a call in
// flight held them). Every publication or reclaim() of any handle collects
// them again, so such a version is freed soon after its last call returns
// even if its own handle never publishes again. Immortal: handles may outlive
// static destruction.
struct held_handles {
  std::mutex mutex;
  std::vector<std::weak_ptr<handle_core>> cores;
};
held_handles& held() {
  static auto* handles = new held_handles;
  return *handles;
}

// Under control.mutex.
void list_as_held(handle_core& core, handle_control& control) {
  if (control.listed_as_held) return;
  control.listed_as_held = true;
  const std::scoped_lock lock(held().mutex);
  held().cores.push_back(core.weak_from_this());
}

}  // namespace

std::vector<retired_version> take_reclaimable(handle_core& core, handle_control& control) {
  std::vector<retired_version> freed;
  if (control.retired.empty()) return freed;
  const std::uint64_t oldest = oldest_announced_epoch(&core);
  const auto kept =
      std::stable_partition(control.retired.begin(), control.retired.end(),
                            [&](const retired_version& r) { return r.epoch >= oldest; });
  freed.assign(std::make_move_iterator(kept), std::make_move_iterator(control.retired.end()));
  control.retired.erase(kept, control.retired.end());
  control.counts.freed += freed.size();
  if (!control.retired.empty()) list_as_held(core, control);
  return freed;
}

void collect_held(const handle_core* done) {
  // Freeing a version runs its owner's destructor, which may publish too.
  thread_local bool collecting = false;
  if (collecting) return;
  std::vector<std::weak_ptr<handle_core>> cores;
  {
    const std::scoped_lock lock(held().mutex);
    cores.swap(held().cores);
  }
  if (cores.empty()) return;
  collecting = true;
  std::vector<std::weak_ptr<handle_core>> busy;
  for (const std::weak_ptr<handle_core>& weak : cores) {
    const std::shared_ptr<handle_core> core = weak.lock();
    if (core == nullptr) continue;  // destroyed, and every version with it
    handle_control& control = core->control();
    std::vector<retired_version> freed;
    {
      // A handle collected just now, or busy (its holder may be collecting
      // it), stays listed for the next time rather than waiting here.
      std::unique_lock lock(control.mutex, std::try_to_lock);
      if (core.get() == done || !lock.owns_lock()) {
        busy.push_back(weak);
        continue;
      }
      control.listed_as_held = false;
      freed = take_reclaimable(*core, control);
    }
  }
  collecting = false;
  if (busy.empty()) return;
  const std::scoped_lock lock(held().mutex);
  held().cores.insert(held().cores.end(), busy.begin(), busy.end());
}

bool offer(handle_core& core, std::uint64_t ticket, jit::tier tier, compiled_version version,
           std::shared_ptr<const jit::detail::specialization> spec) {
  handle_control& control = core.control();
  std::vector<retired_version> freed;  // released after the lock: unloading takes time
  std::shared_ptr<const void> dropped;
  {
    const std::scoped_lock lock(control.mutex);
    const bool stale = ticket < control.live_ticket ||
                       (ticket == control.live_ticket && tier <= control.live_tier);
    if (stale) {
      ++control.counts.superseded;
      dropped = std::move(version.owner);
      return false;
    }
    // Swap first, then stamp the old version with the epoch it was retired
    // in: a caller announcing a later epoch is sure to load the new entry.
    core.exchange_entry(version.entry);
    if (control.counts.published > 0) {
      control.retired.push_back({std::move(control.live_owner), retire_epoch()});
      ++control.counts.retired;
      ++control.counts.swaps;
    }
    control.live_owner = std::move(version.owner);
    control.live_ticket = ticket;
    control.live_tier = tier;
    control.live_spec = std::move(spec);
    ++control.counts.published;
    control.counts.version = control.counts.published;
    control.counts.tier = tier;
    const bool count_calls = tier == jit::tier::quick && control.live_spec != nullptr &&
                             !control.policy.explicit_only &&
                             control.policy.promote_after_calls > 0;
    core.count_calls_until_promotion(
        count_calls ? static_cast<std::int64_t>(control.policy.promote_after_calls) : 0);
    freed = take_reclaimable(core, control);
  }
  collect_held(&core);
  return true;
}

}  // namespace augur::swap
