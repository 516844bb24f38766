#include "runtime/eqsat/changed_neighbourhood.h"

namespace augur::eqsat {

void ChangedNeighbourhood::find(const EGraph& egraph) {
  // Only the classes marked last time are reset.
  for (std::uint32_t c : marked_) distance_[c] = kFar;
  marked_.clear();
  if (distance_.size() < egraph.id_count()) distance_.resize(egraph.id_count(), kFar);
  for (Id c : egraph.changed()) mark(index(c), 0);
  // Breadth first, one distance at a time.
  std::size_t begin = 0;
  for (std::uint32_t d = 1; d <= reach_; ++d) {
    const std::size_t end = marked_.size();
    for (std::size_t i = begin; i < end; ++i)
      for (Id parent : egraph.parents_of(make_id(marked_[i])))
        mark(index(egraph.find(parent)), static_cast<std::uint8_t>(d));
    begin = end;
  }
}

void ChangedNeighbourhood::mark(std::uint32_t cls, std::uint8_t distance) {
  if (distance_[cls] != kFar) return;
  distance_[cls] = distance;
  marked_.push_back(cls);
}

}  // namespace augur::eqsat
