// The static state of one first-stage run: the values of the live jit::stat
// objects, kept as a 128-bit hash updated in O(1) per construction, write and
// destruction (instead of a snapshot of every static variable at every
// operation, which is what makes BuildIt's tags costly: BuildIt issue #76).
//
// Each live stat gets a key: the lowest key not held by another live stat,
// so keys follow the run's sequence of constructions and destructions and are
// the same in every run that makes them in the same order. The state hash is
// the sum, in each 64-bit lane, of a mix of (key, value) per live stat.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>

#include "runtime/stage/tag.h"

namespace augur::stage {

class StaticState {
 public:
  std::uint32_t attach(std::span<const std::byte> value);
  void update(std::uint32_t key, std::span<const std::byte> old_value,
              std::span<const std::byte> new_value);
  void detach(std::uint32_t key, std::span<const std::byte> value);

  Tag hash() const { return {hi_, lo_}; }
  void reset();

 private:
  void add(std::uint32_t key, std::span<const std::byte> value);
  void remove(std::uint32_t key, std::span<const std::byte> value);

  std::uint64_t hi_ = 0;
  std::uint64_t lo_ = 0;
  std::uint32_t next_key_ = 0;     // 1 + the highest key in use
  std::set<std::uint32_t> holes_;  // free keys below next_key_ (after non-LIFO destruction)
};

}  // namespace augur::stage
