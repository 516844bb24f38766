// The host functions behind jit::find_byte and jit::find_any_of (jit/scan.h).
#include "jit/scan.h"

#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace jit::detail {

namespace {

bool in_set(const std::uint64_t (&set)[4], std::uint8_t b) {
  return (set[b / 64] >> (b % 64)) & 1;
}

// Up to this many bytes are compared 16 at a time; larger sets test a bitmap
// byte by byte (still branch-light, and rare in matchers' first bytes).
constexpr int kVectorBytes = 8;

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
  const int count =
      std::popcount(set0) + std::popcount(set1) + std::popcount(set2) + std::popcount(set3);
  if (count == 0 || from >= to) return to;
  std::uint8_t members[kVectorBytes];
  if (count <= kVectorBytes) {
    int m = 0;
    for (int b = 0; b < 256 && m < count; ++b) {
      if (in_set(set, static_cast<std::uint8_t>(b))) members[m++] = static_cast<std::uint8_t>(b);
    }
  }
  if (count == 1) return find_byte_host(text, from, to, members[0]);
  std::int64_t p = from;
#if defined(__SSE2__)
  if (count <= kVectorBytes) {
    __m128i wanted[kVectorBytes];
    for (int m = 0; m < count; ++m) wanted[m] = _mm_set1_epi8(static_cast<char>(members[m]));
    for (; p + 16 <= to; p += 16) {
      const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + p));
      __m128i hits = _mm_cmpeq_epi8(chunk, wanted[0]);
      for (int m = 1; m < count; ++m) hits = _mm_or_si128(hits, _mm_cmpeq_epi8(chunk, wanted[m]));
      if (const int mask = _mm_movemask_epi8(hits))
        return p + std::countr_zero(static_cast<unsigned>(mask));
    }
  }
#endif
  for (; p < to; ++p) {
    if (in_set(set, text[p])) return p;
  }
  return to;
}

}  // namespace jit::detail
