// The publisher side of the epoch protocol (docs/hotswap.md): advancing the
// epoch when a version is retired, and finding the oldest epoch that a thread
// inside a call may still be running under.
#pragma once

#include <cstdint>

#include "jit/detail/epoch.h"

namespace augur::swap {

// Advances the global epoch and returns the epoch a version retired now is
// stamped with: the one before the advance.
std::uint64_t retire_epoch();

// The oldest epoch announced by a thread inside a call, or UINT64_MAX when no
// thread is in one. A version retired in epoch e can be freed when e is below
// it. Every announcement made before the call is visible to it (it starts with
// a process-wide memory barrier).
std::uint64_t oldest_announced_epoch();

}  // namespace augur::swap
