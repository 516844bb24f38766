// A memory barrier on every thread of the process, paid for by the caller
// alone: the other half of the readers' plain-store announcements.
#pragma once

namespace augur::swap {

// Returns once every thread of the process has executed a full memory barrier
// since the call began (Linux membarrier, private expedited). Where the kernel
// lacks it, sets jit::detail::readers_fence so that readers fence themselves,
// and is a plain fence.
void heavy_barrier();

// Registers the process for heavy_barrier(); readers call it (through
// attach_reader) before their first announcement, so that readers_fence is
// final before any thread announces.
void prepare_heavy_barrier();

}  // namespace augur::swap
