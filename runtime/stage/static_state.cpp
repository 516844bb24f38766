#include "runtime/stage/static_state.h"

namespace augur::stage {

namespace {

// Two independent mixes of (key, value): the lanes of the state hash.
Tag term(std::uint32_t key, std::span<const std::byte> value) {
  const std::uint64_t v = hash_bytes(value);
  return {murmur_mix64(v + 0x9e3779b97f4a7c15ull * (key + 1)),
          murmur_mix64((v ^ 0xd6e8feb86659fd93ull) * 0xa0761d6478bd642full + key)};
}

}  // namespace

std::uint32_t StaticState::attach(std::span<const std::byte> value) {
  std::uint32_t key;
  if (holes_.empty()) {
    key = next_key_++;
  } else {
    key = *holes_.begin();
    holes_.erase(holes_.begin());
  }
  add(key, value);
  return key;
}

void StaticState::update(std::uint32_t key, std::span<const std::byte> old_value,
                         std::span<const std::byte> new_value) {
  remove(key, old_value);
  add(key, new_value);
}

void StaticState::detach(std::uint32_t key, std::span<const std::byte> value) {
  remove(key, value);
  if (key + 1 == next_key_) {
    --next_key_;
    while (next_key_ > 0 && holes_.erase(next_key_ - 1) == 1) --next_key_;
  } else {
    holes_.insert(key);
  }
}

void StaticState::reset() {
  hi_ = lo_ = 0;
  next_key_ = 0;
  holes_.clear();
}

void StaticState::add(std::uint32_t key, std::span<const std::byte> value) {
  const Tag t = term(key, value);
  hi_ += t.hi;
  lo_ += t.lo;
}

void StaticState::remove(std::uint32_t key, std::span<const std::byte> value) {
  const Tag t = term(key, value);
  hi_ -= t.hi;
  lo_ -= t.lo;
}

}  // namespace augur::stage
