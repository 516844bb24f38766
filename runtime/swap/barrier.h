// A memory barrier on every thread of the process, paid for by the caller
// alone: the other half of the readers' plain-store announcements.
#pragma once

namespace augur::swap {

// Returns true once every thread of the process has executed a full memory
// barrier since the call began (Linux membarrier, private expedited). Where the
// kernel lacks it, sets jit::detail::readers_fence so that readers fence
// themselves, and is a plain fence. Returns false when membarrier, registered,
// fails all the same (a seccomp policy installed later, a kernel out of
// memory): readers announce without fences then, so nothing is known about
// them, and the caller must not free anything on the strength of this call.
[[nodiscard]] bool heavy_barrier();

// Registers the process for heavy_barrier(); readers call it (through
// attach_reader) before their first announcement, so that readers_fence is
// final before any thread announces.
void prepare_heavy_barrier();

// Tests: while set, every heavy_barrier() fails as a failing membarrier would.
void fail_heavy_barrier_for_testing(bool fail);

}  // namespace augur::swap
