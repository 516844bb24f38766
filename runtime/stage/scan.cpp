// The host functions behind jit::find_byte, jit::find_any_of,
// jit::find_literal and jit::find_sets (jit/scan.h).
#include "runtime/stage/scan.h"

#include "jit/scan.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AUGUR_SCAN_AVX2 1
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

// jit::find_sets: whether position p passes every set (false where a set's
// byte lies at or beyond `to`).
// Sets before `from` are known to pass.
bool passes(const set_filter& f, const std::uint8_t* text, std::int64_t p, std::int64_t to,
            int from = 0) {
  for (int j = from; j < f.count; ++j) {
    const std::int64_t q = p + f.offset[j];
    if (q >= to) return false;
    const std::uint8_t b = text[q];
    if (((f.bitmap[j][b >> 3] >> (b & 7)) & 1) == 0) return false;
  }
  return true;
}

// The first of the candidates p + k (bit k of `mask`) that passes, else -1;
// sets before `from` are known to pass at every candidate.
std::int64_t first_passing(const set_filter& f, const std::uint8_t* text, std::int64_t p,
                           std::int64_t to, std::uint32_t mask, int from = 0) {
  for (; mask != 0; mask &= mask - 1) {
    const std::int64_t at = p + std::countr_zero(mask);
    if (passes(f, text, at, to, from)) return at;
  }
  return -1;
}

#if defined(__SSE2__)
// Sets 0 and 1 of up to 4 bytes each compared at 16 positions at once; `p`
// is left at the first position not searched.
std::int64_t find_sets_sse2(const set_filter& f, const std::uint8_t* text, std::int64_t& p,
                            std::int64_t to) {
  __m128i wanted[2][4];
  std::int64_t offset[2] = {0, 0};
  int tested = 0;
  for (int j = 0; j < f.count && j < 2; ++j) {
    if (!f.small[j]) continue;
    for (int m = 0; m < 4; ++m)
      wanted[tested][m] = _mm_set1_epi8(static_cast<char>(f.members[j][m]));
    offset[tested++] = f.offset[j];
  }
  if (tested == 0) return -1;
  const std::int64_t reach = std::max(offset[0], offset[1]) + 16;
  const auto hits = [&](int t) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + p + offset[t]));
    return _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(chunk, wanted[t][0]), _mm_cmpeq_epi8(chunk, wanted[t][1])),
        _mm_or_si128(_mm_cmpeq_epi8(chunk, wanted[t][2]), _mm_cmpeq_epi8(chunk, wanted[t][3])));
  };
  for (; p + reach <= to; p += 16) {
    __m128i found = hits(0);
    if (tested == 2) found = _mm_and_si128(found, hits(1));
    if (const auto mask = static_cast<std::uint32_t>(_mm_movemask_epi8(found))) {
      if (const std::int64_t at = first_passing(f, text, p, to, mask); at >= 0) return at;
    }
  }
  return -1;
}
#endif

#if defined(AUGUR_SCAN_AVX2)
// How a vector test checks one of sets 0 and 1: one byte compared, up to 4
// compared, or any set by nibble lookups (Hyperscan's "truffle": the low
// nibble selects a byte of bits, one table for bytes below 0x80 and one
// above, and bits 4 to 6 of the byte select the bit); `none` where there is
// no set 1.
enum class Test { one, few, any, none };

struct VectorSet {
  Test test;
  __m256i wanted[4];
  __m256i low_half, high_half;
  std::int64_t offset;
};

__attribute__((target("avx2"))) VectorSet vector_set(const set_filter& f, int j) {
  VectorSet v{};
  if (j >= f.count) {
    v.test = Test::none;
    return v;
  }
  const std::uint8_t* m = f.members[j];
  v.test = !f.small[j]                                    ? Test::any
           : m[0] == m[1] && m[0] == m[2] && m[0] == m[3] ? Test::one
                                                          : Test::few;
  for (int k = 0; k < 4; ++k) v.wanted[k] = _mm256_set1_epi8(static_cast<char>(m[k]));
  v.low_half = _mm256_broadcastsi128_si256(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(f.nibbles[j][0])));
  v.high_half = _mm256_broadcastsi128_si256(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(f.nibbles[j][1])));
  v.offset = f.offset[j];
  return v;
}

template <Test T>
__attribute__((target("avx2"), always_inline)) inline __m256i vector_hits(const VectorSet& v,
                                                                          const std::uint8_t* at,
                                                                          __m256i bit_of_high,
                                                                          __m256i low_nibble,
                                                                          __m256i top_bit) {
  const __m256i chunk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + v.offset));
  if constexpr (T == Test::one) {
    return _mm256_cmpeq_epi8(chunk, v.wanted[0]);
  } else if constexpr (T == Test::few) {
    return _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(chunk, v.wanted[0]),
                                           _mm256_cmpeq_epi8(chunk, v.wanted[1])),
                           _mm256_or_si256(_mm256_cmpeq_epi8(chunk, v.wanted[2]),
                                           _mm256_cmpeq_epi8(chunk, v.wanted[3])));
  } else {
    // vpshufb gives 0 where the index's top bit is set: each half table
    // answers only for its own bytes.
    const __m256i bits =
        _mm256_or_si256(_mm256_shuffle_epi8(v.low_half, chunk),
                        _mm256_shuffle_epi8(v.high_half, _mm256_xor_si256(chunk, top_bit)));
    const __m256i high = _mm256_and_si256(_mm256_srli_epi16(chunk, 4), low_nibble);
    const __m256i bit = _mm256_shuffle_epi8(bit_of_high, high);
    return _mm256_cmpeq_epi8(_mm256_and_si256(bits, bit), bit);
  }
}

// Sets 0 and 1 tested at 32 positions at once; `p` is left at the first
// position not searched.
template <Test First, Test Second>
__attribute__((target("avx2"))) std::int64_t find_sets_avx2(const set_filter& f,
                                                            const std::uint8_t* text,
                                                            std::int64_t& p, std::int64_t to,
                                                            const VectorSet& first,
                                                            const VectorSet& second) {
  const __m256i bit_of_high =
      _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16,
                       32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
  const __m256i low_nibble = _mm256_set1_epi8(0x0f);
  const __m256i top_bit = _mm256_set1_epi8(static_cast<char>(0x80));
  const std::int64_t reach = std::max(first.offset, second.offset) + 32;
  const int known = f.count < 2 ? 1 : 2;  // the sets the vectors test
  for (; p + reach <= to; p += 32) {
    __m256i found = vector_hits<First>(first, text + p, bit_of_high, low_nibble, top_bit);
    if constexpr (Second != Test::none) {
      found = _mm256_and_si256(
          found, vector_hits<Second>(second, text + p, bit_of_high, low_nibble, top_bit));
    }
    if (const auto mask = static_cast<std::uint32_t>(_mm256_movemask_epi8(found))) {
      if (const std::int64_t at = first_passing(f, text, p, to, mask, known); at >= 0) return at;
    }
  }
  return -1;
}

template <Test First>
__attribute__((target("avx2"))) std::int64_t find_sets_avx2_with(const set_filter& f,
                                                                 const std::uint8_t* text,
                                                                 std::int64_t& p, std::int64_t to,
                                                                 const VectorSet& first,
                                                                 const VectorSet& second) {
  switch (second.test) {
    case Test::one:
      return find_sets_avx2<First, Test::one>(f, text, p, to, first, second);
    case Test::few:
      return find_sets_avx2<First, Test::few>(f, text, p, to, first, second);
    case Test::any:
      return find_sets_avx2<First, Test::any>(f, text, p, to, first, second);
    case Test::none:
      break;
  }
  return find_sets_avx2<First, Test::none>(f, text, p, to, first, second);
}

__attribute__((target("avx2"))) std::int64_t find_sets_avx2(const set_filter& f,
                                                            const std::uint8_t* text,
                                                            std::int64_t& p, std::int64_t to) {
  const VectorSet first = vector_set(f, 0), second = vector_set(f, 1);
  switch (first.test) {
    case Test::one:
      return find_sets_avx2_with<Test::one>(f, text, p, to, first, second);
    case Test::few:
      return find_sets_avx2_with<Test::few>(f, text, p, to, first, second);
    case Test::any:
    case Test::none:
      break;
  }
  return find_sets_avx2_with<Test::any>(f, text, p, to, first, second);
}

const bool kHaveAvx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();
#endif

}  // namespace

bool can_scan(set_scan how) {
  switch (how) {
    case set_scan::portable:
      return true;
    case set_scan::sse2:
#if defined(__SSE2__)
      return true;
#else
      return false;
#endif
    case set_scan::avx2:
#if defined(AUGUR_SCAN_AVX2)
      return kHaveAvx2;
#else
      return false;
#endif
  }
  return false;
}

std::int64_t find_sets_by(set_scan how, const std::uint8_t* text, std::int64_t from,
                          std::int64_t to, const std::uint8_t* filter) {
  set_filter f;
  std::memcpy(&f, filter, sizeof f);
  // jit::find_sets makes at most kMaxSets; IR text may say more.
  if (f.count > set_filter::kMaxSets) f.count = set_filter::kMaxSets;
  std::int64_t p = from;
  std::int64_t found = -1;
#if defined(AUGUR_SCAN_AVX2)
  if (how == set_scan::avx2) found = find_sets_avx2(f, text, p, to);
#endif
#if defined(__SSE2__)
  if (how == set_scan::sse2) found = find_sets_sse2(f, text, p, to);
#endif
  if (found >= 0) return found;
  for (; p < to; ++p) {
    if (passes(f, text, p, to)) return p;
  }
  return to;
}

std::int64_t find_sets_host(const std::uint8_t* text, std::int64_t from, std::int64_t to,
                            const std::uint8_t* filter) {
  static const set_scan best = can_scan(set_scan::avx2)   ? set_scan::avx2
                               : can_scan(set_scan::sse2) ? set_scan::sse2
                                                          : set_scan::portable;
  return find_sets_by(best, text, from, to, filter);
}

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
