// Scanning ahead in staged code: where the next interesting byte is.
//
//   jit::dyn<std::int64_t> nl = jit::find_byte(text, i, n, '\n');
//   jit::dyn<std::int64_t> j = jit::find_any_of(text, i, n, {'a', 'q', 'z'});
//   jit::dyn<std::int64_t> k = jit::find_literal(text, i, n, "hello");
//   jit::dyn<std::int64_t> c = jit::find_sets(text, i, n, {{0, cd}, {2, tg}});  // (c|d)?(t|g)
//
// Each returns the first position p in [from, to) with text[p] equal to
// `byte` (in `bytes`; where `literal` starts), or `to` if there is none. The
// bytes are static: they are part of the compiled code. A matcher or a parser spends most of its
// time skipping bytes that cannot start anything; these calls skip them 16 or more at a time (SIMD:
// memchr for one byte, vector compares for up to 8 bytes or 4 ranges of bytes, a bitmap test per
// byte for other sets; a literal's first and last bytes compared 16 positions at a time), as RE2
// and PCRE2 do for a pattern's first bytes. They compile to a call of a host function that reads
// `text` (an extern with jit::effect::readonly, named augur_find_byte,
// augur_find_any_of, augur_find_literal and augur_find_sets) on the CPU
// backend and in the interpreter; in a GPU kernel each thread runs a device
// version of the scan with the same result, a byte at a time.
#pragma once

#include <bitset>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "jit/dyn.h"
#include "jit/error.h"
#include "jit/extern.h"
#include "jit/table.h"

namespace jit {

// A byte set at an offset from a position: an argument of jit::find_sets.
struct byte_set_at {
  std::int64_t offset = 0;  // 0 to 63
  std::bitset<256> bytes;
};

namespace detail {
std::int64_t find_byte_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                            std::uint8_t byte);
std::int64_t find_literal_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                               std::uint64_t head, std::uint64_t tail, std::uint8_t length);
std::int64_t find_any_of_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                              std::uint64_t set0, std::uint64_t set1, std::uint64_t set2,
                              std::uint64_t set3);

// What jit::find_sets hands its host function, as a jit::table of bytes.
struct set_filter {
  static constexpr int kMaxSets = 8;
  std::uint8_t count = 0;                  // sets, 1 to kMaxSets
  std::uint8_t offset[kMaxSets] = {};      // from the candidate position
  std::uint8_t members[2][4] = {};         // sets 0 and 1 with 1 to 4 bytes: those bytes,
  std::uint8_t small[2] = {};              // repeated to fill, and small[j] = 1
  std::uint8_t nibbles[2][2][16] = {};     // sets 0 and 1: [b >= 0x80][b & 15] has bit (b >> 4) & 7
  std::uint8_t bitmap[kMaxSets][32] = {};  // bit b % 8 of [b / 8]: b is in the set
};

std::int64_t find_sets_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                            const std::uint8_t* filter);

// The filter of jit::find_sets (a jit::error for a bad argument).
inline set_filter make_set_filter(std::span<const byte_set_at> sets) {
  if (sets.empty() || sets.size() > set_filter::kMaxSets) {
    throw error("jit::find_sets: " + std::to_string(sets.size()) + " sets given; it takes 1 to 8");
  }
  set_filter f;
  f.count = static_cast<std::uint8_t>(sets.size());
  for (std::size_t j = 0; j < sets.size(); ++j) {
    const byte_set_at& s = sets[j];
    if (s.offset < 0 || s.offset > 63) {
      throw error("jit::find_sets: set " + std::to_string(j) + " is at offset " +
                  std::to_string(s.offset) + "; offsets run from 0 to 63");
    }
    f.offset[j] = static_cast<std::uint8_t>(s.offset);
    int size = 0;
    for (int b = 0; b < 256; ++b) {
      if (!s.bytes.test(static_cast<std::size_t>(b))) continue;
      f.bitmap[j][b / 8] = static_cast<std::uint8_t>(f.bitmap[j][b / 8] | (1u << (b % 8)));
      if (j < 2) {
        f.nibbles[j][b >> 7][b & 15] =
            static_cast<std::uint8_t>(f.nibbles[j][b >> 7][b & 15] | (1u << ((b >> 4) & 7)));
        if (size < 4) f.members[j][size] = static_cast<std::uint8_t>(b);
      }
      ++size;
    }
    if (j < 2 && size >= 1 && size <= 4) {
      f.small[j] = 1;
      for (int m = size; m < 4; ++m) f.members[j][m] = f.members[j][0];
    }
  }
  return f;
}
}  // namespace detail

// The first position in [from, to) of `text` holding `byte`, else `to`.
inline dyn<std::int64_t> find_byte(const dyn<const std::uint8_t*>& text,
                                   const dyn<std::int64_t>& from, const dyn<std::int64_t>& to,
                                   std::uint8_t byte) {
  static const auto host =
      register_external("augur_find_byte", &detail::find_byte_host, effect::readonly);
  return host(text, from, to, static_cast<std::uint8_t>(byte));
}

// The first position in [from, to) of `text` holding one of `bytes`, else
// `to`. An empty set finds nothing (the result is `to`).
inline dyn<std::int64_t> find_any_of(const dyn<const std::uint8_t*>& text,
                                     const dyn<std::int64_t>& from, const dyn<std::int64_t>& to,
                                     std::span<const std::uint8_t> bytes) {
  static const auto host =
      register_external("augur_find_any_of", &detail::find_any_of_host, effect::readonly);
  std::uint64_t set[4] = {0, 0, 0, 0};
  for (const std::uint8_t b : bytes) set[b / 64] |= std::uint64_t{1} << (b % 64);
  return host(text, from, to, set[0], set[1], set[2], set[3]);
}

// The first position p in [from, to) where all of `literal` lies in
// text[p, to), else `to`. At most 16 bytes count: a longer string's first 16
// say where it may start.
inline dyn<std::int64_t> find_literal(const dyn<const std::uint8_t*>& text,
                                      const dyn<std::int64_t>& from, const dyn<std::int64_t>& to,
                                      std::string_view literal) {
  static const auto host =
      register_external("augur_find_literal", &detail::find_literal_host, effect::readonly);
  literal = literal.substr(0, 16);
  std::uint64_t packed[2] = {0, 0};
  std::memcpy(packed, literal.data(), literal.size());
  return host(text, from, to, packed[0], packed[1], static_cast<std::uint8_t>(literal.size()));
}

inline dyn<std::int64_t> find_any_of(const dyn<const std::uint8_t*>& text,
                                     const dyn<std::int64_t>& from, const dyn<std::int64_t>& to,
                                     std::initializer_list<std::uint8_t> bytes) {
  return find_any_of(text, from, to, std::span<const std::uint8_t>(bytes.begin(), bytes.size()));
}

// The first position p in [from, to) where, for every entry of `sets`,
// p + offset < to and text[p + offset] is in its bytes, else `to`: a filter
// on a few bytes at fixed distances (a pattern's first positions, a literal's
// rarest bytes). 1 to 8 sets, offsets 0 to 63. The first two sets are tested
// at 32 positions at once (AVX2 where the CPU has it, else 16 with SSE2 for
// sets of up to 4 bytes), the others at the positions that pass them: put the
// rarest first. The sets become a jit::table in the compiled code.
inline dyn<std::int64_t> find_sets(const dyn<const std::uint8_t*>& text,
                                   const dyn<std::int64_t>& from, const dyn<std::int64_t>& to,
                                   std::span<const byte_set_at> sets) {
  static const auto host =
      register_external("augur_find_sets", &detail::find_sets_host, effect::readonly);
  const detail::set_filter f = detail::make_set_filter(sets);
  std::uint8_t bytes[sizeof f];
  std::memcpy(bytes, &f, sizeof f);
  return host(text, from, to, table(std::span<const std::uint8_t>(bytes, sizeof bytes)));
}

inline dyn<std::int64_t> find_sets(const dyn<const std::uint8_t*>& text,
                                   const dyn<std::int64_t>& from, const dyn<std::int64_t>& to,
                                   std::initializer_list<byte_set_at> sets) {
  return find_sets(text, from, to, std::span<const byte_set_at>(sets.begin(), sets.size()));
}

}  // namespace jit
