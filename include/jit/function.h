// jit::function<R(A...)>: a compiled function, as jit::compile returns it.
//
// A cheap value: a pointer to the native code and a shared reference to the
// compiled version that holds it. Calling it is one indirect call. The code
// stays loaded while any copy lives, whether or not the cache still holds the
// version (an evicted version is unloaded when its last reference goes).
#pragma once

#include <memory>
#include <utility>

namespace jit {

struct stage_report;  // extract.h

template <class Signature>
class function;

template <class R, class... A>
class function<R(A...)> {
 public:
  using pointer_type = R (*)(A...);

  // Empty: calling it is undefined; operator bool says false.
  function() = default;
  // `entry` must stay callable while `owner` lives (what compile() and
  // handles build: owner is the compiled version, which owns `report`).
  function(pointer_type entry, std::shared_ptr<const void> owner,
           const jit::stage_report* report = nullptr) noexcept
      : entry_(entry), owner_(std::move(owner)), report_(report) {}

  R operator()(A... args) const { return entry_(args...); }

  explicit operator bool() const noexcept { return entry_ != nullptr; }

  // The native entry point. Valid only while this function, a copy of it, or
  // a keep_alive() reference lives: callers that keep the raw pointer (e.g.
  // jit::handle, which swaps it atomically) must hold keep_alive() too.
  pointer_type pointer() const noexcept { return entry_; }
  // Owns the compiled version: its code stays loaded while the result (or any
  // copy of this function) lives. Releasing the last one unloads the code, so
  // no thread may still be running it then.
  std::shared_ptr<const void> keep_alive() const { return owner_; }

  // The first stage that produced this function's program (runs,
  // explorations, first-stage time, IR size; docs/compile.md, "Stage
  // report"), valid while the function lives; null for a function that
  // jit::compile did not make. A version shared by equal programs reports the
  // extraction that compiled it.
  const jit::stage_report* stage_report() const noexcept { return report_; }

 private:
  pointer_type entry_ = nullptr;
  std::shared_ptr<const void> owner_;
  const jit::stage_report* report_ = nullptr;
};

}  // namespace jit
