// Tiering and respecialization: compiles that run in the background and
// publish when they finish (docs/hotswap.md).
#include <exception>
#include <memory>
#include <mutex>
#include <utility>

#include "jit/compiler.h"
#include "jit/detail/handle_core.h"
#include "jit/error.h"
#include "runtime/swap/handle_control.h"
#include "runtime/swap/publish.h"

namespace jit::detail {
namespace {

// Compiles `spec` at `tier` on the TBB pool as the answer to request `ticket`.
void compile_in_background(const std::shared_ptr<handle_core>& core,
                           std::shared_ptr<const specialization> spec, std::uint64_t ticket,
                           jit::tier tier) {
  handle_control& control = core->control();
  {
    const std::scoped_lock lock(control.mutex);
    ++control.pending;
  }
  run_in_background([core, spec = std::move(spec), ticket, tier] {
    handle_control& control = core->control();
    std::exception_ptr failure;
    try {
      augur::swap::offer(*core, ticket, tier, spec->compile(tier), spec);
    } catch (...) {
      failure = std::current_exception();
    }
    const std::scoped_lock lock(control.mutex);
    if (failure != nullptr) {
      ++control.counts.failed;
      control.failure = failure;
    }
    --control.pending;
    control.idle.notify_all();
  });
}

}  // namespace

void handle_core::start_tiered(std::shared_ptr<const specialization> spec, tiering policy) {
  std::uint64_t ticket = 0;
  {
    const std::scoped_lock lock(control_->mutex);
    control_->policy = policy;
    control_->requested_spec = spec;
    ticket = ++control_->tickets;
  }
  augur::swap::offer(*this, ticket, jit::tier::quick, spec->compile(jit::tier::quick), spec);
  if (!policy.explicit_only && policy.promote_after_calls == 0) promote();
}

void handle_core::respecialize(const void* statics, const std::type_info& type) {
  std::shared_ptr<const specialization> spec;
  std::uint64_t ticket = 0;
  {
    const std::scoped_lock lock(control_->mutex);
    if (control_->requested_spec == nullptr) {
      throw jit::error(
          "jit::handle::respecialize: the handle was not made by jit::compile(..., jit::tiered)");
    }
    spec = control_->requested_spec->with(statics, type);
    control_->requested_spec = spec;
    ticket = ++control_->tickets;
  }
  compile_in_background(shared_from_this(), std::move(spec), ticket, jit::tier::optimized);
}

void handle_core::promote() {
  std::shared_ptr<const specialization> spec;
  std::uint64_t ticket = 0;
  {
    const std::scoped_lock lock(control_->mutex);
    if (control_->live_spec == nullptr || control_->live_tier == jit::tier::optimized ||
        control_->promoting_ticket == control_->live_ticket) {
      return;
    }
    spec = control_->live_spec;
    ticket = control_->promoting_ticket = control_->live_ticket;
  }
  calls_until_promotion_.store(0, std::memory_order_relaxed);
  compile_in_background(shared_from_this(), std::move(spec), ticket, jit::tier::optimized);
}

void handle_core::count_call() {
  if (calls_until_promotion_.fetch_sub(1, std::memory_order_relaxed) == 1) promote();
}

void handle_core::wait() {
  std::unique_lock lock(control_->mutex);
  control_->idle.wait(lock, [&] { return control_->pending == 0; });
  if (control_->failure != nullptr) std::rethrow_exception(std::exchange(control_->failure, {}));
}

}  // namespace jit::detail
