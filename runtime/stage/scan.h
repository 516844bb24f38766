// The search strategies behind jit::find_sets (jit/scan.h), each callable
// alone so that tests check every one the machine can run, whichever the
// host function picks.
#pragma once

#include <cstdint>

namespace jit::detail {

enum class set_scan { portable, sse2, avx2 };

// Whether this build and this CPU can search that way.
bool can_scan(set_scan how);

// find_sets_host's search, the way `how` says (which can_scan allows).
std::int64_t find_sets_by(set_scan how, const std::uint8_t* text, std::int64_t from,
                          std::int64_t to, const std::uint8_t* filter);

}  // namespace jit::detail
