// Bit mixers shared by Augur's hashes (the IR content hash, static tags, the
// e-graph's hash-consing): bijective functions of a word in which every input
// bit affects every output bit.
#pragma once

#include <cstdint>

namespace augur {

// The murmur3 64-bit finalizer.
constexpr std::uint64_t murmur_mix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

// SplitMix64's finalizer (Stafford's variant 13): independent of
// murmur_mix64, for a second hash lane.
constexpr std::uint64_t splitmix_mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

}  // namespace augur
