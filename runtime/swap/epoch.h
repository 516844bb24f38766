// The publisher side of the epoch protocol (docs/hotswap.md): advancing the
// epoch when a version is retired, and finding the oldest epoch that a thread
// inside a call may still be running under.
#pragma once

#include <cstddef>
#include <cstdint>

#include "jit/detail/epoch.h"

namespace augur::swap {

// Advances the global epoch and returns the epoch a version retired now is
// stamped with: the one before the advance.
std::uint64_t retire_epoch();

// The oldest epoch announced by a thread (or call_section) that may be inside
// a call through `handle` (a handle_core), or UINT64_MAX when none is. A
// version of `handle` retired in epoch e can be freed when e is below it.
// Every announcement made before the call is visible to it (it starts with a
// process-wide memory barrier); when that barrier fails, nothing may be freed
// and it returns 0.
std::uint64_t oldest_announced_epoch(const void* handle);

// Tests: how many records are taken (by threads and open call_sections).
std::size_t taken_reader_records_for_testing();

}  // namespace augur::swap
