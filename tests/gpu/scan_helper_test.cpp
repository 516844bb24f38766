// The scans' device helpers, compiled for the host (the CUDA qualifiers
// defined away), against the host functions of jit/scan.h on random texts,
// sets, literals and filters: what a kernel on a device computes, without a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "jit/scan.h"

namespace device {
typedef unsigned char u8;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;
#define __device__
#define __forceinline__ inline
#include "scan_helpers.inc"
#undef __device__
#undef __forceinline__
}  // namespace device

namespace {

class ScanHelpers : public ::testing::Test {
 protected:
  // Texts over a small alphabet, so that sets and literals are found often.
  std::vector<std::uint8_t> text(std::size_t n) {
    std::vector<std::uint8_t> out(n);
    for (std::uint8_t& b : out) b = "abcdxyz\n\xff\x80"[random_() % 10];
    return out;
  }
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(random_() % (n + 1)); }
  std::mt19937_64 random_{11};
};

TEST_F(ScanHelpers, FindByteIsTheHostsFindByte) {
  for (int round = 0; round < 2000; ++round) {
    const std::vector<std::uint8_t> t = text(1 + random_() % 80);
    const auto n = static_cast<std::int64_t>(t.size());
    const std::int64_t from = below(n), to = below(n);
    const std::uint8_t b = t[random_() % t.size()];
    ASSERT_EQ(device::find_byte(t.data(), from, to, b),
              jit::detail::find_byte_host(t.data(), from, to, b))
        << round;
  }
}

TEST_F(ScanHelpers, FindAnyOfIsTheHostsFindAnyOf) {
  for (int round = 0; round < 2000; ++round) {
    const std::vector<std::uint8_t> t = text(1 + random_() % 80);
    const auto n = static_cast<std::int64_t>(t.size());
    const std::int64_t from = below(n), to = below(n);
    std::uint64_t set[4] = {0, 0, 0, 0};
    for (int k = random_() % 4; k > 0; --k) {
      const std::uint8_t b = t[random_() % t.size()];
      set[b / 64] |= std::uint64_t{1} << (b % 64);
    }
    ASSERT_EQ(device::find_any_of(t.data(), from, to, set[0], set[1], set[2], set[3]),
              jit::detail::find_any_of_host(t.data(), from, to, set[0], set[1], set[2], set[3]))
        << round;
  }
}

TEST_F(ScanHelpers, FindLiteralIsTheHostsFindLiteral) {
  for (int round = 0; round < 4000; ++round) {
    const std::vector<std::uint8_t> t = text(1 + random_() % 80);
    const auto n = static_cast<std::int64_t>(t.size());
    const std::int64_t from = below(n), to = below(n);
    // Literals of 0 to 16 bytes, often taken from the text itself.
    const auto length = static_cast<std::size_t>(random_() % 17);
    std::uint8_t literal[16] = {};
    const std::size_t start = random_() % t.size();
    for (std::size_t k = 0; k < length; ++k) {
      literal[k] =
          random_() % 4 == 0 || start + k >= t.size() ? "abxy"[random_() % 4] : t[start + k];
    }
    std::uint64_t head = 0, tail = 0;
    std::memcpy(&head, literal, 8);
    std::memcpy(&tail, literal + 8, 8);
    const auto size = static_cast<std::uint8_t>(length);
    ASSERT_EQ(device::find_literal(t.data(), from, to, head, tail, size),
              jit::detail::find_literal_host(t.data(), from, to, head, tail, size))
        << round << " length " << length;
  }
}

TEST_F(ScanHelpers, FindSetsIsTheHostsFindSets) {
  for (int round = 0; round < 4000; ++round) {
    const std::vector<std::uint8_t> t = text(1 + random_() % 100);
    const auto n = static_cast<std::int64_t>(t.size());
    const std::int64_t from = below(n), to = below(n);
    // 1 to 8 sets of 1 to 6 bytes, often bytes of the text, at offsets 0 to 63.
    std::vector<jit::byte_set_at> sets(1 + random_() % 8);
    for (jit::byte_set_at& set : sets) {
      set.offset = static_cast<std::int64_t>(random_() % (random_() % 2 ? 4 : 64));
      for (int k = static_cast<int>(random_() % 6); k >= 0; --k)
        set.bytes.set(random_() % 3 ? t[random_() % t.size()] : random_() % 256);
    }
    const jit::detail::set_filter f = jit::detail::make_set_filter(sets);
    std::uint8_t filter[sizeof f];
    std::memcpy(filter, &f, sizeof f);
    ASSERT_EQ(device::find_sets(t.data(), from, to, filter),
              jit::detail::find_sets_host(t.data(), from, to, filter))
        << round;
  }
}

}  // namespace
