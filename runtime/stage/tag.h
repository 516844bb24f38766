// Static tags: the identity of a first-stage program point. A tag hashes the
// call chain from the extraction entry to the operation together with the
// static state (the live jit::stat values). Two events with equal tags are the
// same point in the same static state, so the code that follows them is the
// same: this finds loop back-edges and lets runs reuse each other's code.
//
// Tags are 128-bit hashes compared by value. Equal inputs always give equal
// tags; distinct inputs collide with probability about 2^-128 per pair under
// the usual random-function model of the two independent multiply-xorshift
// lanes, negligible next to the number of tags an extraction ever compares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "jit/extract.h"
#include "runtime/ir/mix.h"

namespace augur::stage {

struct Tag {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  friend constexpr bool operator==(Tag, Tag) = default;
};

struct TagHash {
  std::size_t operator()(Tag t) const noexcept { return static_cast<std::size_t>(t.lo ^ t.hi); }
};

// A 128-bit running hash of 64-bit words (two independent lanes).
class TagHasher {
 public:
  void add(std::uint64_t word) {
    a_ = (a_ ^ murmur_mix64(word)) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    b_ = ((b_ + word) ^ (b_ >> 29)) * 0xbf58476d1ce4e5b9ull ^ 0x94d049bb133111ebull;
  }
  void add(Tag t) {
    add(t.hi);
    add(t.lo);
  }
  Tag finish() const { return {murmur_mix64(a_), murmur_mix64(b_ ^ 0x2545f4914f6cdd1dull)}; }

 private:
  std::uint64_t a_ = 0x6a09e667f3bcc908ull;
  std::uint64_t b_ = 0xbb67ae8584caa73bull;
};

// A 64-bit hash of bytes (the value of a stat<T>).
std::uint64_t hash_bytes(std::span<const std::byte> bytes);

// Thrown (not a std::exception) when the frame-pointer chain cannot be walked
// back to the extraction entry: the extraction restarts with backtrace tags.
struct ChainBroken {};

// Reads the call chain of the current operation, from inside the engine up to
// the extraction entry.
class CallChain {
 public:
  struct Result {
    Tag hash;
    std::uint32_t depth = 0;  // frames below the entry
  };

  CallChain(jit::tag_source source, std::uint32_t max_depth);

  // The frame of the engine function that calls the generator; the walk ends there.
  void set_entry(const void* frame) { entry_frame_ = frame; }
  jit::tag_source source() const { return source_; }

  // Throws ChainBroken (frame pointers only) or jit::staging_error (too deep).
  Result read() const;
  // The return addresses of the chain, innermost first (for messages).
  std::vector<const void*> frames() const;

 private:
  Result read_frame_pointers(const void* start) const;
  Result read_unwind() const;

  jit::tag_source source_;
  std::uint32_t max_depth_;
  const void* entry_frame_ = nullptr;
};

}  // namespace augur::stage
