// Background compiles of handles run on the TBB pool.
#pragma once

#include <functional>

namespace augur::swap {

// Runs `job` on a TBB worker; `job` must not throw.
void run_in_background(std::function<void()> job);

}  // namespace augur::swap
