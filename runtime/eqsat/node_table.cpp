#include "runtime/eqsat/node_table.h"

#include "runtime/ir/mix.h"

namespace augur::eqsat {

std::uint64_t hash_node(Label label, std::span<const Id> children) {
  std::uint64_t h = murmur_mix64(label.op * 0x9e3779b97f4a7c15ULL ^ label.payload);
  for (Id c : children) h = murmur_mix64(h ^ (index(c) + 0x632be59bd9b4e019ULL));
  return h ^ children.size();
}

void NodeTable::insert(std::uint64_t hash, Id id) {
  if ((size_ + 1) * 8 > slots_.size() * 5) grow();
  const auto h = static_cast<std::uint32_t>(hash);
  std::size_t i = h & mask_;
  while (slots_[i].id_plus_one != 0) i = (i + 1) & mask_;
  slots_[i] = {h, index(id) + 1};
  ++size_;
}

bool NodeTable::erase(std::uint64_t hash, Id id) {
  if (slots_.empty()) return false;
  const auto h = static_cast<std::uint32_t>(hash);
  std::size_t i = h & mask_;
  for (;; i = (i + 1) & mask_) {
    if (slots_[i].id_plus_one == 0) return false;
    if (slots_[i].id_plus_one == index(id) + 1) break;
  }
  // Backward-shift deletion: move later entries of the probe run into the hole
  // unless that would put them before their home slot.
  for (std::size_t j = i;;) {
    j = (j + 1) & mask_;
    if (slots_[j].id_plus_one == 0) break;
    const std::size_t home = slots_[j].hash & mask_;
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    slots_[i] = slots_[j];
    i = j;
  }
  slots_[i] = {};
  --size_;
  return true;
}

void NodeTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id_plus_one == 0) continue;
    std::size_t i = s.hash & mask_;
    while (slots_[i].id_plus_one != 0) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace augur::eqsat
