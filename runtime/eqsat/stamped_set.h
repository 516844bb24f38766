// A set of small indices (e-class or e-node indices) that empties in O(1):
// an index is in the set when its stamp is the current one. For the walks a
// guard or a rule's builder makes at every match, every iteration (a memo of
// the classes visited): no allocation and no clearing per walk once the
// stamps cover the e-graph.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace augur::eqsat {

class StampedSet {
 public:
  // Empties the set and makes room for the indices below `size`.
  void clear(std::size_t size) {
    if (stamps_.size() < size) stamps_.resize(size, 0);
    if (++current_ == 0) {  // wrapped: old stamps could read as current
      std::fill(stamps_.begin(), stamps_.end(), 0);
      current_ = 1;
    }
    size_ = 0;
  }
  // Makes room for the indices below `size`, keeping the set.
  void grow(std::size_t size) {
    if (stamps_.size() < size) stamps_.resize(size, 0);
  }
  bool contains(std::uint32_t i) const { return stamps_[i] == current_; }
  // Adds `i`; returns whether it was not in the set.
  bool insert(std::uint32_t i) {
    if (stamps_[i] == current_) return false;
    stamps_[i] = current_;
    ++size_;
    return true;
  }
  // Removes `i`; returns whether it was in the set.
  bool erase(std::uint32_t i) {
    if (stamps_[i] != current_) return false;
    stamps_[i] = current_ - 1;
    --size_;
    return true;
  }
  std::size_t size() const { return size_; }

 private:
  std::vector<std::uint32_t> stamps_;
  std::uint32_t current_ = 0;
  std::size_t size_ = 0;
};

}  // namespace augur::eqsat
