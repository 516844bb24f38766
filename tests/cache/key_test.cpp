// jit::key encodings: equal values give equal bytes, different values
// different bytes, for every built-in kind.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "jit/key.h"

namespace {

template <class T>
std::string encoded(const T& value) {
  jit::key_writer out;
  jit::key<T>::encode(out, value);
  return std::string(out.bytes());
}

// Every pair of `values` (all distinct) encodes differently; each value equal to itself.
template <class T>
void expect_injective(const std::vector<T>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(encoded(values[i]), encoded(T(values[i]))) << i;
    for (std::size_t j = i + 1; j < values.size(); ++j) {
      EXPECT_NE(encoded(values[i]), encoded(values[j])) << i << " vs " << j;
    }
  }
}

enum class color : std::uint8_t { red, green, blue };
enum plain_enum { first = -1, second = 1 << 20 };

TEST(Key, Integers) {
  expect_injective<int>(
      {0, 1, -1, 13, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()});
  expect_injective<std::uint64_t>({0, 1, ~std::uint64_t{0}, std::uint64_t{1} << 63});
  expect_injective<std::int8_t>({0, -128, 127});
  expect_injective<bool>({false, true});
  expect_injective<char>({'a', 'b', '\0'});
  EXPECT_EQ(encoded(13).size(), sizeof(int));
}

TEST(Key, FloatsBitForBit) {
  expect_injective<double>({0.0, -0.0, 1.0, -1.0, std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::denorm_min()});
  expect_injective<float>({0.0f, -0.0f, 1.5f, std::numeric_limits<float>::quiet_NaN()});
  // NaNs with different payloads differ; the same NaN equals itself.
  const double nan1 = std::bit_cast<double>(std::uint64_t{0x7ff8000000000001});
  const double nan2 = std::bit_cast<double>(std::uint64_t{0x7ff8000000000002});
  EXPECT_NE(encoded(nan1), encoded(nan2));
  EXPECT_EQ(encoded(nan1), encoded(nan1));
}

TEST(Key, Enums) {
  expect_injective<color>({color::red, color::green, color::blue});
  expect_injective<plain_enum>({first, second});
}

TEST(Key, Strings) {
  expect_injective<std::string>({"", "a", "ab", "b", std::string("a\0b", 3)});
  EXPECT_EQ(encoded(std::string("power")), encoded(std::string_view("power")));
  const char* text = "power";
  EXPECT_EQ(encoded(text), encoded(std::string("power")));
  // A null pointer (once strlen(nullptr)) is a key of its own, not "".
  expect_injective<const char*>({nullptr, "", "a"});
  expect_injective<std::vector<const char*>>({{nullptr}, {""}, {nullptr, nullptr}, {"", ""}});
}

TEST(Key, Containers) {
  expect_injective<std::array<int, 3>>({{1, 2, 3}, {1, 2, 4}, {0, 0, 0}});
  expect_injective<std::vector<int>>({{}, {0}, {0, 0}, {1}, {1, 0}});
  expect_injective<std::pair<int, double>>({{1, 0.0}, {1, -0.0}, {2, 0.0}});
  expect_injective<std::tuple<int, std::string, bool>>(
      {{1, "a", true}, {1, "a", false}, {1, "", true}, {2, "a", true}});
}

TEST(Key, NestedContainersKeepTheirBoundaries) {
  // Lengths are encoded, so moving an element between strings or vectors
  // changes the key.
  expect_injective<std::vector<std::string>>({{"ab", "c"}, {"a", "bc"}, {"abc"}, {"", "abc"}});
  expect_injective<std::vector<std::vector<int>>>({{{1, 2}, {3}}, {{1}, {2, 3}}, {{1, 2, 3}}});
  expect_injective<std::pair<std::vector<int>, std::vector<int>>>({{{1}, {2, 3}}, {{1, 2}, {3}}});
}

struct shape {
  int rows;
  int cols;
};

}  // namespace

template <>
struct jit::key<shape> {
  static void encode(jit::key_writer& out, const shape& s) {
    out.write_value(s.rows);
    out.write_value(s.cols);
  }
};

namespace {

TEST(Key, UserSpecializationsComposeWithTheBuiltIns) {
  static_assert(jit::keyable<std::vector<shape>>);
  EXPECT_NE(encoded(std::vector<shape>{{1, 2}}), encoded(std::vector<shape>{{2, 1}}));
  EXPECT_EQ(encoded(std::vector<shape>{{1, 2}}), encoded(std::vector<shape>{{1, 2}}));
}

TEST(Key, LongKeysMoveToTheHeapIntact) {
  std::vector<std::uint64_t> values(100);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i * 0x0101010101010101ull;
  const std::string bytes = encoded(values);
  ASSERT_EQ(bytes.size(), 8 + 100 * 8);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + 8 + 8 * i, 8);
    EXPECT_EQ(word, values[i]);
  }
}

}  // namespace
