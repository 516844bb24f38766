// The hash-consing table: maps an e-node's content (label + children) to the id
// of the one e-node with that content.
//
// The table stores only ids and hashes; the content lives in the EGraph, so
// lookups take an equality predicate that reads it. Callers must erase an id
// before changing its content (rebuild canonicalizes children) and re-insert it
// afterwards, so that every stored hash is the hash of the current content.
// Open addressing with linear probing; erase shifts entries back, so there are
// no tombstones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "runtime/eqsat/id.h"

namespace augur::eqsat {

std::uint64_t hash_node(Label label, std::span<const Id> children);

class NodeTable {
 public:
  template <class Equal>
  std::optional<Id> find(std::uint64_t hash, Equal&& equal) const {
    if (slots_.empty()) return std::nullopt;
    const auto h = static_cast<std::uint32_t>(hash);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.id_plus_one == 0) return std::nullopt;
      if (s.hash == h && equal(make_id(s.id_plus_one - 1))) return make_id(s.id_plus_one - 1);
    }
  }

  // `id` must not be present, and no present id may have equal content.
  void insert(std::uint64_t hash, Id id);
  // Removes `id` if present (it was inserted with `hash`); returns whether it was.
  bool erase(std::uint64_t hash, Id id);

  std::size_t size() const { return size_; }
  std::size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t id_plus_one = 0;  // 0: empty
  };
  void grow();

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace augur::eqsat
