// Tiers, tiering policies and handle statistics: the vocabulary of
// jit::handle (handle.h) and of tiered compiles (tiered.h).
#pragma once

#include <cstdint>

namespace jit {

// How optimized a version is: tier::quick versions are compiled at O0 to
// serve calls at once, tier::optimized at O2 (docs/hotswap.md explains the choice).
enum class tier : std::uint8_t { quick, optimized };

// What a handle has done so far.
struct handle_statistics {
  std::uint64_t version = 0;          // the live version: 1 for the first published, 0 before
  jit::tier tier = jit::tier::quick;  // the live version's tier
  std::uint64_t published = 0;        // versions made live
  std::uint64_t swaps = 0;            // publications that replaced a live version
  std::uint64_t retired = 0;          // versions replaced, waiting for callers to leave them
  std::uint64_t freed = 0;            // retired versions released (their code unloaded
                                      // unless a cache still holds them)
  std::uint64_t superseded = 0;       // compiled versions dropped unpublished: a newer
                                      // request was published first
  std::uint64_t failed = 0;           // background compiles that threw
  std::uint64_t pending = 0;          // background compiles queued or running
};

// When a tiered handle moves from its quick version to the optimized one.
struct tiering {
  // Start the optimized compile after this many calls to the quick version;
  // 0: at once, in the background, as the handle is made.
  std::uint64_t promote_after_calls = 0;
  // Only handle::promote() starts it.
  bool explicit_only = false;
};

// The tag that asks jit::compile for a tiered handle, with its policy.
struct tiered_t {
  tiering policy;
};
// O2 compile started at once.
inline constexpr tiered_t tiered{};
// O2 compile started as `policy` says: jit::tiered_by({.promote_after_calls = 1000}).
constexpr tiered_t tiered_by(tiering policy) {
  return tiered_t{policy};
}

}  // namespace jit
