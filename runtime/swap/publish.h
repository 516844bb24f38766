// Publication and retirement of a handle's versions (handle_core.cpp), shared
// with tiering.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "jit/detail/handle_core.h"
#include "runtime/swap/handle_control.h"

namespace augur::swap {

// Publishes `version` as the answer to request `ticket` at `tier` unless the
// live version answers a newer request (or the same one at a tier as high);
// returns whether it did. The replaced version is retired; then whatever no
// thread can still run is freed.
bool offer(jit::detail::handle_core& core, std::uint64_t ticket, jit::tier tier,
           jit::detail::compiled_version version,
           std::shared_ptr<const jit::detail::specialization> spec);

// Moves the retired versions of `core` that no thread can still be running
// out of its `control` (whose mutex the caller holds), counting them as freed.
// If some stay (a call in flight holds them), lists the handle for
// collect_held().
std::vector<jit::detail::retired_version> take_reclaimable(jit::detail::handle_core& core,
                                                           jit::detail::handle_control& control);

// Collects the retired versions of every handle whose last collection left
// some behind, except `done` (collected by the caller just now). Called after
// every publication and reclaim(), outside any handle's lock.
void collect_held(const jit::detail::handle_core* done);

}  // namespace augur::swap
