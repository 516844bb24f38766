// A small deterministic random generator for tests: the same seed gives the
// same sequence on every platform (the standard distributions do not promise that).
#pragma once

#include <cstdint>
#include <span>

namespace augur::testing {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  // SplitMix64.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n); n > 0. The modulo bias is negligible for the small n tests use.
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  // Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  // True with probability percent/100.
  bool chance(unsigned percent) { return below(100) < percent; }

  template <class T>
  const T& pick(std::span<const T> items) {
    return items[below(items.size())];
  }

 private:
  std::uint64_t state_;
};

}  // namespace augur::testing
