// The host functions behind jit::find_byte, jit::find_any_of and
// jit::find_literal (jit/scan.h).
#include "jit/scan.h"

#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace jit::detail {

namespace {

// std::popcount without -mpopcnt is a library call per word; this is a few
// instructions, and the scans count their set on every call.
int count_bits(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

bool in_set(const std::uint64_t (&set)[4], std::uint8_t b) {
  return (set[b / 64] >> (b % 64)) & 1;
}

// Sets of up to kVectorBytes bytes, or of up to kVectorRanges ranges of bytes
// (`[0-9]`, `[a-zA-Z]`), are compared 16 bytes at a time; other sets test a
// bitmap byte by byte.
constexpr int kVectorBytes = 8;
constexpr int kVectorRanges = 4;

struct Ranges {
  int count = 0;  // 0: more than kVectorRanges
  std::uint8_t low[kVectorRanges] = {};
  std::uint8_t span[kVectorRanges] = {};  // the range is [low, low + span]
};

// The set's bytes in increasing order, visiting set bits only.
template <class Visit>
void for_each_member(const std::uint64_t (&set)[4], Visit&& visit) {
  for (int w = 0; w < 4; ++w) {
    for (std::uint64_t bits = set[w]; bits != 0; bits &= bits - 1) {
      visit(static_cast<std::uint8_t>(64 * w + std::countr_zero(bits)));
    }
  }
}

Ranges ranges_of(const std::uint64_t (&set)[4]) {
  Ranges out;
  int previous = -2;
  bool too_many = false;
  for_each_member(set, [&](std::uint8_t b) {
    if (b == previous + 1) {
      ++out.span[out.count - 1];
    } else if (out.count == kVectorRanges) {
      too_many = true;
    } else {
      out.low[out.count] = b;
      out.span[out.count] = 0;
      ++out.count;
    }
    previous = b;
  });
  return too_many ? Ranges{} : out;
}

#if defined(__SSE2__)
// The first position in [p, to - 15] of a 16-byte block where `hits` finds
// something, as p advances 16 at a time; `p` is left at the first block not
// searched.
template <class Hits>
std::int64_t scan_blocks(const std::uint8_t* text, std::int64_t& p, std::int64_t to, Hits&& hits) {
  for (; p + 16 <= to; p += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + p));
    if (const int mask = _mm_movemask_epi8(hits(chunk))) {
      return p + std::countr_zero(static_cast<unsigned>(mask));
    }
  }
  return -1;
}
#endif

}  // namespace

std::int64_t find_byte_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                            std::uint8_t byte) {
  if (from >= to) return to;
  const void* found = std::memchr(text + from, byte, static_cast<std::size_t>(to - from));
  return found ? static_cast<const std::uint8_t*>(found) - text : to;
}

std::int64_t find_any_of_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                              std::uint64_t set0, std::uint64_t set1, std::uint64_t set2,
                              std::uint64_t set3) {
  const std::uint64_t set[4] = {set0, set1, set2, set3};
  const int count = count_bits(set0) + count_bits(set1) + count_bits(set2) + count_bits(set3);
  if (count == 0 || from >= to) return to;
  // Where the set is frequent the next byte is often in it: no set-up then.
  if (in_set(set, text[from])) return from;
  std::uint8_t members[kVectorBytes];
  if (count <= kVectorBytes) {
    int m = 0;
    for_each_member(set, [&](std::uint8_t b) { members[m++] = b; });
    if (count == 1) return find_byte_host(text, from, to, members[0]);
  }
  std::int64_t p = from;
#if defined(__SSE2__)
  std::int64_t found = -1;
  if (count <= kVectorBytes) {
    __m128i wanted[kVectorBytes];
    for (int m = 0; m < count; ++m) wanted[m] = _mm_set1_epi8(static_cast<char>(members[m]));
    found = scan_blocks(text, p, to, [&](__m128i chunk) {
      __m128i hits = _mm_cmpeq_epi8(chunk, wanted[0]);
      for (int m = 1; m < count; ++m) hits = _mm_or_si128(hits, _mm_cmpeq_epi8(chunk, wanted[m]));
      return hits;
    });
  } else if (const Ranges ranges = ranges_of(set); ranges.count > 0) {
    // b is in [low, low + span] when (b - low) minus span, saturated, is zero.
    __m128i lows[kVectorRanges], spans[kVectorRanges];
    for (int r = 0; r < ranges.count; ++r) {
      lows[r] = _mm_set1_epi8(static_cast<char>(ranges.low[r]));
      spans[r] = _mm_set1_epi8(static_cast<char>(ranges.span[r]));
    }
    const __m128i zero = _mm_setzero_si128();
    found = scan_blocks(text, p, to, [&](__m128i chunk) {
      __m128i hits = zero;
      for (int r = 0; r < ranges.count; ++r) {
        const __m128i above = _mm_subs_epu8(_mm_sub_epi8(chunk, lows[r]), spans[r]);
        hits = _mm_or_si128(hits, _mm_cmpeq_epi8(above, zero));
      }
      return hits;
    });
  }
  if (found >= 0) return found;
#endif
  for (; p < to; ++p) {
    if (in_set(set, text[p])) return p;
  }
  return to;
}

std::int64_t find_literal_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                               std::uint64_t head, std::uint64_t tail, std::uint8_t length) {
  std::uint8_t literal[16];
  std::memcpy(literal, &head, 8);
  std::memcpy(literal + 8, &tail, 8);
  // jit::find_literal passes at most 16 bytes; IR text may say more.
  if (length > 16) length = 16;
  if (length == 0) return from < to ? from : to;
  if (length == 1) return find_byte_host(text, from, to, literal[0]);
  const std::int64_t last = to - length;  // the last position the literal may start at
  std::int64_t p = from;
#if defined(__SSE2__)
  // Candidates have the literal's first and last bytes in place (W. Muła's
  // SIMD substring search); memcmp checks the bytes between.
  const __m128i first = _mm_set1_epi8(static_cast<char>(literal[0]));
  const __m128i final = _mm_set1_epi8(static_cast<char>(literal[length - 1]));
  for (; p + 15 <= last; p += 16) {
    const __m128i starts = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + p));
    const __m128i ends = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + p + length - 1));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_and_si128(_mm_cmpeq_epi8(starts, first), _mm_cmpeq_epi8(ends, final))));
    while (mask != 0) {
      const int bit = std::countr_zero(mask);
      if (std::memcmp(text + p + bit + 1, literal + 1, length - 2u) == 0) return p + bit;
      mask &= mask - 1;
    }
  }
#endif
  for (; p <= last; ++p) {
    if (std::memcmp(text + p, literal, length) == 0) return p;
  }
  return to;
}

}  // namespace jit::detail
