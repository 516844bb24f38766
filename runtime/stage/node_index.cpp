#include "runtime/stage/node_index.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace augur::stage {

void NodeIndex::insert(std::uint32_t hash, std::uint32_t filter_hash, std::uint32_t node) {
  if (4 * (count_ + 1) > 3 * slots_.size()) grow();
  ++count_;
  filter_hashes_.push_back(filter_hash);
  if (!deferring()) {
    place({hash, node});
    return;
  }
  filter_word(filter_hash) |= filter_bits(filter_hash);
  std::size_t i = recent_home(hash);
  while (recent_[i].node != kNone) i = (i + 1) & (kRecentSlots - 1);
  recent_[i] = {hash, node};
  if (++recent_count_ == kRecent) flush_recent();
}

void NodeIndex::place(Slot s) {
  std::size_t i = home(s.hash);
  while (slots_[i].node != kNone) i = (i + 1) & (slots_.size() - 1);
  slots_[i] = s;
}

void NodeIndex::flush_recent() {
  // The homes of keys a few places ahead are fetched while this one is
  // placed: the misses overlap instead of following one another.
  constexpr std::size_t kAhead = 16;
  std::array<Slot, kRecent> moving;
  std::size_t n = 0;
  for (Slot& s : recent_) {
    if (s.node != kNone) moving[n++] = std::exchange(s, Slot{});
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (k + kAhead < n) __builtin_prefetch(&slots_[home(moving[k + kAhead].hash)], 1);
    place(moving[k]);
  }
  recent_count_ = 0;
}

void NodeIndex::grow() {
  if (deferring()) flush_recent();
  BigVector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{});
  shift_ = 32 - static_cast<unsigned>(std::countr_zero(slots_.size()));
  // Homes are the hash's top bits: the old slots, in order, fill the new
  // table nearly in order.
  for (const Slot& s : old) {
    if (s.node != kNone) place(s);
  }
  if (slots_.size() < kDeferFrom) return;
  filter_.assign(slots_.size() / 8, 0);
  filter_shift_ = 32 - static_cast<unsigned>(std::countr_zero(filter_.size()));
  for (const std::uint32_t f : filter_hashes_) filter_word(f) |= filter_bits(f);
  if (recent_.empty()) recent_.assign(kRecentSlots, Slot{});
}

void NodeIndex::clear() {
  *this = NodeIndex();
}

}  // namespace augur::stage
