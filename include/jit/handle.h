// jit::handle<R(A...)>: a stable callable whose compiled version can be
// replaced while other threads call it.
//
//   jit::handle<int(int)> h;                        // calls throw until a publish
//   h.publish(entry, owner);                        // entry: int (*)(int)
//   int y = h(41);                                  // one atomic load, one indirect call
//   auto t = jit::compile(rules, config, jit::tiered);  // jit/tiered.h
//   t.respecialize(new_config);                     // compiled in the background
//
// A call announces the global epoch and the handle in a thread-local record,
// loads the entry and calls it. A replaced version's owner is released only
// once no thread can still be running its code (docs/hotswap.md), so a call in
// flight finishes on the version it started with. Copies of a handle share one slot: publishing
// through one is seen by all.
#pragma once

#include <cstddef>
#include <memory>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "jit/detail/epoch.h"
#include "jit/detail/handle_core.h"
#include "jit/function.h"
#include "jit/tiering.h"

namespace jit {

// Announces calls through every handle while it lives, so that
// handle::call(section, args...) can skip the per-call announcement: a batch
// of calls then costs one atomic load and one indirect call each. The
// announcement is the section's own, not its thread's: calls through it may
// be made on any thread while it is open, and it may close on another thread
// than the one that opened it (a coroutine resumed elsewhere). Every version
// retired while a section is open stays loaded until it closes: keep a section
// to a batch of calls or one request, never a whole thread's life.
class call_section {
 public:
  call_section() = default;

 private:
  detail::section_announcement announcement_;
};

template <class Signature>
class handle;

template <class R, class... A>
class handle<R(A...)> {
 public:
  using entry_type = R (*)(A...);

  handle() : core_(std::make_shared<detail::handle_core>(erase(&unpublished))) {}

  R operator()(A... args) const {
    const detail::read_section section(core_.get());
    if (core_->counting()) core_->count_call();
    return reinterpret_cast<entry_type>(core_->current())(args...);
  }

  // A call inside an open call_section.
  R call(const call_section&, A... args) const {
    if (core_->counting()) core_->count_call();
    return reinterpret_cast<entry_type>(core_->current())(args...);
  }

  // Makes `entry` the version that calls reach; `owner` keeps its code loaded
  // and is released once no thread can still be running it.
  void publish(entry_type entry, std::shared_ptr<const void> owner,
               jit::tier tier = jit::tier::optimized) {
    core_->publish({erase(entry), std::move(owner)}, tier);
  }

  // Publishes what jit::compile returned; the handle and the cache each hold
  // a reference to its code, which is unloaded when both are gone.
  void publish(const function<R(A...)>& compiled, jit::tier tier = jit::tier::optimized) {
    publish(compiled.pointer(), compiled.keep_alive(), tier);
  }

  // For handles from jit::compile(..., jit::tiered): compiles the generator
  // with new static values (of the same types as the first ones) on the TBB
  // pool at the optimized tier, and publishes it when ready; calls keep using
  // the live version meanwhile. A later request that is published first wins.
  template <class... S>
  void respecialize(S&&... statics) {
    const std::tuple<std::decay_t<S>...> values(std::forward<S>(statics)...);
    core_->respecialize(&values, typeid(values));
  }

  // Starts the optimized compile of the live specialization now (tiering's
  // explicit policy). Does nothing if it is already optimized or on its way.
  void promote() { core_->promote(); }

  // Waits for every background compile of this handle; rethrows the error of
  // one that failed (once), the live version untouched.
  void wait() { core_->wait(); }

  // Releases the retired versions that no thread can still be running; returns
  // how many. Every publication does this too; call it to collect versions
  // that calls in flight kept alive.
  std::size_t reclaim() { return core_->reclaim(); }

  handle_statistics statistics() const { return core_->statistics(); }

  // The core that jit::compile(..., jit::tiered) starts.
  detail::handle_core& core() { return *core_; }

 private:
  static R unpublished(A...) { detail::throw_unpublished(); }
  static detail::erased_entry erase(entry_type entry) {
    return reinterpret_cast<detail::erased_entry>(entry);
  }

  std::shared_ptr<detail::handle_core> core_;
};

}  // namespace jit
