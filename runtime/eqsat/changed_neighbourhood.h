// For the runner's incremental search: how many parent steps each class is
// above a class the last rebuild changed (EGraph::changed), up to a reach.
// A new match of a pattern of depth d binds, d steps or fewer below its
// root, a class that changed or holds a new e-node, whose parent changed
// (runner.h), so its root is within d of a changed class.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/eqsat/egraph.h"

namespace augur::eqsat {

class ChangedNeighbourhood {
 public:
  // Distances are kept up to `reach` (at most kMaxReach).
  static constexpr std::uint32_t kMaxReach = 64;
  explicit ChangedNeighbourhood(std::uint32_t reach) : reach_(std::min(reach, kMaxReach)) {}

  // Measures from the changes of `egraph`'s last rebuild; linear in the
  // classes found and their parent lists.
  void find(const EGraph& egraph);
  // Whether `cls` (canonical) is `depth` or fewer parent steps above a
  // changed class (depth at most the reach).
  bool within(Id cls, std::uint32_t depth) const {
    return index(cls) < distance_.size() && distance_[index(cls)] <= depth;
  }

 private:
  static constexpr std::uint8_t kFar = 0xff;
  void mark(std::uint32_t cls, std::uint8_t distance);

  std::uint32_t reach_;
  std::vector<std::uint8_t> distance_;  // by class index; kFar past the reach
  std::vector<std::uint32_t> marked_;   // the classes within the reach, nearest first
};

}  // namespace augur::eqsat
