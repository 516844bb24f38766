// Which Augur made a piece of code: a hash of the library's sources (the
// optimizer, the code generators, everything), computed at build time by
// cmake/AugurBuildId.cmake. The disk cache keys on it, so code written by
// another build of Augur is never served, even with the same LLVM.
#pragma once

#include <string_view>

namespace augur::cache {

// 64 hex digits; the same for every process of one build.
std::string_view build_id();

}  // namespace augur::cache
