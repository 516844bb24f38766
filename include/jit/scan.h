// Scanning ahead in staged code: where the next interesting byte is.
//
//   jit::dyn<std::int64_t> nl = jit::find_byte(text, i, n, '\n');
//   jit::dyn<std::int64_t> j = jit::find_any_of(text, i, n, {'a', 'q', 'z'});
//   jit::dyn<std::int64_t> k = jit::find_literal(text, i, n, "hello");
//
// Each returns the first position p in [from, to) with text[p] equal to
// `byte` (in `bytes`; where `literal` starts), or `to` if there is none. The
// bytes are static: they are part of the compiled code. A matcher or a parser spends most of its
// time skipping bytes that cannot start anything; these calls skip them 16 or more at a time (SIMD:
// memchr for one byte, vector compares for up to 8 bytes or 4 ranges of bytes, a bitmap test per
// byte for other sets; a literal's first and last bytes compared 16 positions at a time), as RE2
// and PCRE2 do for a pattern's first bytes. They compile to a call of a host function that reads
// `text` (an extern with jit::effect::readonly, named augur_find_byte,
// augur_find_any_of and augur_find_literal) on the CPU backend and in the
// interpreter; in a GPU kernel each thread runs a device version of the scan
// with the same result, a byte at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string_view>

#include "jit/dyn.h"
#include "jit/extern.h"

namespace jit {

namespace detail {
std::int64_t find_byte_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                            std::uint8_t byte);
std::int64_t find_literal_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                               std::uint64_t head, std::uint64_t tail, std::uint8_t length);
std::int64_t find_any_of_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                              std::uint64_t set0, std::uint64_t set1, std::uint64_t set2,
                              std::uint64_t set3);
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

}  // namespace jit
