// Node numbers by 32-bit hash: the expression pool's table and the graph's
// event index. Open addressing with linear probing, slots of 8 bytes (the hash
// and the node; a probe reads no node unless the hash matches), a power of
// two at most three quarters full, the hash's top bits the home.
//
// At a million nodes the table is far larger than the caches, and the first
// run of an extraction looks up every key it makes, almost all new: each
// lookup would be a miss on a random slot, one after the other. So once the
// table has kDeferFrom slots, a key goes first into a small table of recent
// keys (kRecent of them, in the L2 cache) and into a filter (a bit array of
// one byte per slot: two bits of one 64-bit word per key), and recent keys
// move to the big table kRecent at a time, with their slots prefetched ahead
// (independent misses overlap). A lookup tries the recent keys, then the
// filter, and probes the big table only when the filter says the key may be
// in it (all keys there do; a new key, a few percent of the time).
//
// The filter has its own 32-bit hash of the key, which the caller may make
// local: the expression pool gives related keys made one after the other
// the same word (the top bits) and neighbouring bits (the low six), so that
// the filter's words are read in order as its keys were made. Locality
// costs a random table nothing here, as a bit array has no clusters to
// probe through.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "runtime/stage/huge_pages.h"

namespace augur::stage {

class NodeIndex {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  // The node of the key with `hash` (and `filter_hash`) that
  // `matches(node)` accepts, or kNone. Keys are added once (insert), so at
  // most one matches.
  template <class Matches>
  std::uint32_t find(std::uint32_t hash, std::uint32_t filter_hash, Matches&& matches) const;
  // Adds `node` under `hash` and `filter_hash` (its key must not be in yet).
  void insert(std::uint32_t hash, std::uint32_t filter_hash, std::uint32_t node);
  std::size_t size() const { return count_; }
  void clear();

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t node = kNone;  // kNone: empty
  };
  static constexpr std::size_t kDeferFrom = std::size_t{1} << 19;
  static constexpr std::size_t kRecent = 4096;
  static constexpr std::size_t kRecentSlots = 2 * kRecent;

  bool deferring() const { return !filter_.empty(); }
  std::size_t home(std::uint32_t hash) const { return hash >> shift_; }
  static std::size_t recent_home(std::uint32_t hash) {
    return (hash * std::uint32_t{0x9e3779b1}) >> (32 - 13);
  }
  std::uint64_t& filter_word(std::uint32_t hash) { return filter_[hash >> filter_shift_]; }
  const std::uint64_t& filter_word(std::uint32_t hash) const {
    return filter_[hash >> filter_shift_];
  }
  static std::uint64_t filter_bits(std::uint32_t hash) {
    return std::uint64_t{1} << (hash & 63) | std::uint64_t{1} << ((hash >> 6) & 63);
  }
  void place(Slot s);  // into the big table
  void flush_recent();
  void grow();

  BigVector<Slot> slots_;
  unsigned shift_ = 32;  // 32 - log2(slots_.size())
  std::size_t count_ = 0;
  // Only while deferring:
  BigVector<std::uint64_t> filter_;  // a word per 8 slots
  unsigned filter_shift_ = 32;       // 32 - log2(filter_.size())
  // Every key's filter hash, in the order inserted: a bigger filter is
  // built from them.
  BigVector<std::uint32_t> filter_hashes_;
  BigVector<Slot> recent_;  // kRecentSlots, linear probing
  std::size_t recent_count_ = 0;
};

template <class Matches>
std::uint32_t NodeIndex::find(std::uint32_t hash, std::uint32_t filter_hash,
                              Matches&& matches) const {
  if (deferring()) {
    for (std::size_t i = recent_home(hash);; i = (i + 1) & (kRecentSlots - 1)) {
      const Slot& slot = recent_[i];
      if (slot.node == kNone) break;
      if (slot.hash == hash && matches(slot.node)) return slot.node;
    }
    const std::uint64_t bits = filter_bits(filter_hash);
    if ((filter_word(filter_hash) & bits) != bits) return kNone;
  }
  if (slots_.empty()) return kNone;
  for (std::size_t i = home(hash);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& slot = slots_[i];
    if (slot.node == kNone) return kNone;
    if (slot.hash == hash && matches(slot.node)) return slot.node;
  }
}

}  // namespace augur::stage
