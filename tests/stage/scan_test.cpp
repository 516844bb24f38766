// jit::find_byte and jit::find_any_of (jit/scan.h): staged code that skips
// ahead agrees with a byte-by-byte reference in the interpreter and compiled
// at O0 and O2, on random texts, ranges and sets of every size the host
// function treats differently (one byte, vector compares, bitmap).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "jit/jit.h"
#include "tests/stage/support.h"

namespace augur::stage::testing {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::int64_t reference(const Bytes& text, std::int64_t from, std::int64_t to, const Bytes& set) {
  for (std::int64_t p = from; p < to; ++p) {
    for (std::uint8_t b : set) {
      if (text[static_cast<std::size_t>(p)] == b) return p;
    }
  }
  return to;
}

// Every match of `set` in [from, to): their positions summed, weighted, so
// that a wrong position anywhere changes the result.
jit::dyn<std::int64_t> positions(jit::dyn<const std::uint8_t*> text, jit::dyn<std::int64_t> from,
                                 jit::dyn<std::int64_t> to, const Bytes& set) {
  jit::dyn<std::int64_t> sum = 0, count = 0;
  jit::dyn<std::int64_t> p = from;
  while (p < to) {
    p = set.size() == 1 ? jit::find_byte(text, p, to, set[0]) : jit::find_any_of(text, p, to, set);
    count = count + 1;
    sum = sum + p * count;
    p = p + 1;
  }
  return sum;
}

std::int64_t expected_positions(const Bytes& text, std::int64_t from, std::int64_t to,
                                const Bytes& set) {
  std::int64_t sum = 0, count = 0;
  for (std::int64_t p = from; p < to; ++p) {
    p = reference(text, p, to, set);
    ++count;
    sum += p * count;
  }
  return sum;
}

Bytes random_set(std::mt19937_64& rng, std::size_t size) {
  Bytes all(256);
  for (int b = 0; b < 256; ++b) all[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(b);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(size);
  return all;
}

using Positions = jit::function<std::int64_t(const std::uint8_t*, std::int64_t, std::int64_t)>;

TEST(Scan, SkippingAheadAgreesWithAByteByByteSearch) {
  std::mt19937_64 rng(20261125);
  for (const std::size_t size : {1u, 2u, 3u, 5u, 8u, 9u, 40u, 255u, 256u}) {
    const Bytes set = random_set(rng, size);
    jit::compile_options o0, o2;
    o0.opt_level = 0;
    o2.opt_level = 2;
    const Positions at_o0 = jit::compile(o0, positions, set);
    const Positions at_o2 = jit::compile(o2, positions, set);
    const ir::Interpreter interp = interpreter(jit::extract(positions, set));
    for (int trial = 0; trial < 40; ++trial) {
      // Mostly bytes outside the set, so that the scans are long.
      Bytes text(std::uniform_int_distribution<std::size_t>(0, 300)(rng));
      const Bytes outside = random_set(rng, 256);
      for (std::uint8_t& b : text) {
        b = std::uniform_int_distribution<int>(0, 40)(rng) == 0 ? set[rng() % set.size()]
                                                                : outside[rng() % 256];
      }
      const auto n = static_cast<std::int64_t>(text.size());
      const std::int64_t from = n == 0 ? 0 : static_cast<std::int64_t>(rng() % (text.size() + 1));
      const std::int64_t to = from + static_cast<std::int64_t>(rng() % (text.size() - from + 1));
      const std::int64_t want = expected_positions(text, from, to, set);
      EXPECT_EQ(at_o0(text.data(), from, to), want) << "set of " << size << ", trial " << trial;
      EXPECT_EQ(at_o2(text.data(), from, to), want) << "set of " << size << ", trial " << trial;
      EXPECT_EQ((run<std::int64_t>(interp, text.data(), from, to)), want)
          << "set of " << size << ", trial " << trial;
    }
  }
}

Bytes ranges(std::initializer_list<std::pair<int, int>> spans) {
  Bytes out;
  for (const auto& [lo, hi] : spans) {
    for (int b = lo; b <= hi; ++b) out.push_back(static_cast<std::uint8_t>(b));
  }
  return out;
}

// Sets in up to 4 ranges take the vector path whatever their size.
TEST(Scan, SetsOfRangesAgreeWithAByteByByteSearch) {
  std::mt19937_64 rng(7);
  for (const Bytes& set :
       {ranges({{'0', '9'}}), ranges({{'a', 'z'}}),
        ranges({{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}), ranges({{0, 3}, {250, 255}})}) {
    for (int trial = 0; trial < 200; ++trial) {
      Bytes text(rng() % 200);
      for (std::uint8_t& b : text) {
        b = rng() % 30 == 0 ? set[rng() % set.size()] : static_cast<std::uint8_t>(rng());
        while (rng() % 30 != 0 && std::find(set.begin(), set.end(), b) != set.end()) {
          b = static_cast<std::uint8_t>(rng());
        }
      }
      std::uint64_t bits[4] = {0, 0, 0, 0};
      for (std::uint8_t b : set) bits[b / 64] |= std::uint64_t{1} << (b % 64);
      const auto n = static_cast<std::int64_t>(text.size());
      const std::int64_t from = n == 0 ? 0 : static_cast<std::int64_t>(rng() % text.size());
      EXPECT_EQ(
          jit::detail::find_any_of_host(text.data(), from, n, bits[0], bits[1], bits[2], bits[3]),
          reference(text, from, n, set));
    }
  }
}

jit::dyn<std::int64_t> count_literal(jit::dyn<const std::uint8_t*> text, jit::dyn<std::int64_t> n,
                                     const std::string& literal) {
  jit::dyn<std::int64_t> count = 0;
  jit::dyn<std::int64_t> p = jit::find_literal(text, 0, n, literal);
  while (p < n) {
    count = count + p;
    p = jit::find_literal(text, p + 1, n, literal);
  }
  return count;
}

TEST(Scan, LiteralsAreFoundWhereTheyStartInTheRange) {
  using Counter = jit::function<std::int64_t(const std::uint8_t*, std::int64_t)>;
  std::mt19937_64 rng(3);
  for (const std::string literal : {"ab", "aba", "hello world", "0123456789abcdef", "x"}) {
    const Counter f = jit::compile(count_literal, literal);
    const ir::Interpreter interp = interpreter(jit::extract(count_literal, literal));
    for (int trial = 0; trial < 200; ++trial) {
      std::string text(rng() % 120, 'a');
      for (char& c : text) c = "abx "[rng() % 4];
      for (int k = 0; k < 3; ++k) {
        if (text.size() >= literal.size() && rng() % 2) {
          text.replace(rng() % (text.size() - literal.size() + 1), literal.size(), literal);
        }
      }
      std::int64_t want = 0;
      for (std::size_t p = text.find(literal); p != std::string::npos;
           p = text.find(literal, p + 1)) {
        want += static_cast<std::int64_t>(p);
      }
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
      const auto n = static_cast<std::int64_t>(text.size());
      EXPECT_EQ(f(bytes, n), want) << literal << " in `" << text << "`";
      EXPECT_EQ((run<std::int64_t>(interp, bytes, n)), want) << literal << " in `" << text << "`";
    }
  }
}

TEST(Scan, AnEmptySetOrRangeFindsNothing) {
  const Bytes text = {1, 2, 3, 4};
  EXPECT_EQ(jit::detail::find_any_of_host(text.data(), 0, 4, 0, 0, 0, 0), 4);
  EXPECT_EQ(jit::detail::find_byte_host(text.data(), 2, 2, 3), 2);
  EXPECT_EQ(jit::detail::find_byte_host(text.data(), 3, 1, 3), 1);
  EXPECT_EQ(jit::detail::find_byte_host(text.data(), 0, 4, 3), 2);
}

TEST(Scan, TheCallIsAReadOnlyExternInTheIr) {
  const jit::extraction e = jit::extract(positions, Bytes{'x', 'y'});
  EXPECT_NE(e.ir().find("@augur_find_any_of("), std::string::npos) << e.ir();
  EXPECT_NE(jit::extract(positions, Bytes{'x'}).ir().find("@augur_find_byte("), std::string::npos);
}

}  // namespace
}  // namespace augur::stage::testing
