// jit::find_byte, jit::find_any_of, jit::find_literal and jit::find_sets
// (jit/scan.h): staged code that skips ahead agrees with a byte-by-byte
// reference in the interpreter and compiled at O0 and O2, on random texts,
// ranges and sets of every size the host functions treat differently (one
// byte, vector compares, nibble lookups, bitmap), with every search strategy
// the machine has, up to the last byte before an unreadable page.
#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "jit/jit.h"
#include "runtime/stage/scan.h"
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

// ------------------------------------------------------------ jit::find_sets

using Sets = std::vector<jit::byte_set_at>;

std::int64_t reference_sets(const Bytes& text, std::int64_t from, std::int64_t to,
                            const Sets& sets) {
  for (std::int64_t p = from; p < to; ++p) {
    bool all = true;
    for (const jit::byte_set_at& s : sets) {
      const std::int64_t q = p + s.offset;
      all = all && q < to && s.bytes.test(text[static_cast<std::size_t>(q)]);
    }
    if (all) return p;
  }
  return to;
}

// A set of `size` random bytes; size 256 - 1 is everything but one byte.
std::bitset<256> random_bytes(std::mt19937_64& rng, std::size_t size) {
  std::bitset<256> out;
  for (const std::uint8_t b : random_set(rng, size)) out.set(b);
  return out;
}

// Sets of every kind the host function tells apart: 1 to 4 bytes (vector
// compares), more (nibble lookups), a range, high bytes; 1 to 8 of them, at
// offsets up to 63.
Sets random_sets(std::mt19937_64& rng) {
  Sets sets(1 + rng() % 8);
  for (jit::byte_set_at& s : sets) {
    s.offset = rng() % 4 == 0 ? static_cast<std::int64_t>(rng() % 64)
                              : static_cast<std::int64_t>(rng() % 6);
    const std::size_t sizes[] = {1, 2, 3, 4, 5, 9, 40, 128, 255};
    s.bytes = random_bytes(rng, sizes[rng() % std::size(sizes)]);
    if (rng() % 5 == 0) {
      s.bytes.reset();
      for (int b = 'a'; b <= 'z'; ++b) s.bytes.set(static_cast<std::size_t>(b));
    }
  }
  return sets;
}

// `size` random bytes, with the sets' bytes planted at a few positions so
// that some positions pass them all.
Bytes planted_text(std::mt19937_64& rng, std::size_t size, const Sets& sets) {
  Bytes text(size);
  for (std::uint8_t& b : text) b = static_cast<std::uint8_t>(rng());
  const auto member = [&](const std::bitset<256>& bytes) {
    for (;;) {
      const auto b = static_cast<std::uint8_t>(rng());
      if (bytes.test(b)) return b;
    }
  };
  for (std::size_t k = 0; size > 0 && k < 1 + size / 40; ++k) {
    const std::size_t at = rng() % size;
    for (const jit::byte_set_at& s : sets) {
      if (at + static_cast<std::size_t>(s.offset) < size && rng() % 8 != 0) {
        text[at + static_cast<std::size_t>(s.offset)] = member(s.bytes);
      }
    }
  }
  return text;
}

const std::vector<Sets>& staged_sets() {
  static const std::vector<Sets> all = [] {
    std::mt19937_64 rng(11);
    std::vector<Sets> out;
    for (int k = 0; k < 12; ++k) out.push_back(random_sets(rng));
    return out;
  }();
  return all;
}

// Every position in [from, to) that passes staged_sets()[which], summed and
// weighted like positions().
jit::dyn<std::int64_t> set_positions(jit::dyn<const std::uint8_t*> text,
                                     jit::dyn<std::int64_t> from, jit::dyn<std::int64_t> to,
                                     int which) {
  const Sets& sets = staged_sets()[static_cast<std::size_t>(which)];
  jit::dyn<std::int64_t> sum = 0, count = 0;
  jit::dyn<std::int64_t> p = from;
  while (p < to) {
    p = jit::find_sets(text, p, to, sets);
    count = count + 1;
    sum = sum + p * count;
    p = p + 1;
  }
  return sum;
}

TEST(Scan, SetsAtOffsetsAgreeWithAByteByByteSearch) {
  std::mt19937_64 rng(20261126);
  for (int which = 0; which < static_cast<int>(staged_sets().size()); ++which) {
    const Sets& sets = staged_sets()[static_cast<std::size_t>(which)];
    jit::compile_options o0, o2;
    o0.opt_level = 0;
    o2.opt_level = 2;
    const Positions at_o0 = jit::compile(o0, set_positions, which);
    const Positions at_o2 = jit::compile(o2, set_positions, which);
    const ir::Interpreter interp = interpreter(jit::extract(set_positions, which));
    for (int trial = 0; trial < 30; ++trial) {
      const Bytes text = planted_text(rng, rng() % 400, sets);
      const auto n = static_cast<std::int64_t>(text.size());
      const std::int64_t from = n == 0 ? 0 : static_cast<std::int64_t>(rng() % text.size());
      const std::int64_t to = from + static_cast<std::int64_t>(rng() % (text.size() - from + 1));
      std::int64_t want = 0, count = 0;
      for (std::int64_t p = from; p < to; ++p) {
        p = reference_sets(text, p, to, sets);
        ++count;
        want += p * count;
      }
      EXPECT_EQ(at_o0(text.data(), from, to), want) << "sets " << which << ", trial " << trial;
      EXPECT_EQ(at_o2(text.data(), from, to), want) << "sets " << which << ", trial " << trial;
      EXPECT_EQ((run<std::int64_t>(interp, text.data(), from, to)), want)
          << "sets " << which << ", trial " << trial;
    }
  }
}

// The table jit::find_sets gives its host function.
Bytes filter_of(const Sets& sets) {
  const jit::detail::set_filter f = jit::detail::make_set_filter(sets);
  Bytes out(sizeof f);
  std::memcpy(out.data(), &f, sizeof f);
  return out;
}

// Each strategy the machine has (portable, SSE2, AVX2), on texts that end
// where an unreadable page starts: a read past `to` would fault.
TEST(Scan, EveryStrategyFindsTheSetsUpToTheLastByteOfAPage) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* mapped =
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* base = static_cast<std::uint8_t*>(mapped);
  ASSERT_EQ(mprotect(base + page, page, PROT_NONE), 0);
  std::mt19937_64 rng(5);
  using jit::detail::set_scan;
  int strategies = 0;
  for (const set_scan how : {set_scan::portable, set_scan::sse2, set_scan::avx2}) {
    if (!jit::detail::can_scan(how)) continue;
    ++strategies;
    for (int trial = 0; trial < 400; ++trial) {
      const Sets sets = random_sets(rng);
      const Bytes text = planted_text(rng, 1 + rng() % 300, sets);
      std::uint8_t* at = base + page - text.size();
      std::memcpy(at, text.data(), text.size());
      const Bytes filter = filter_of(sets);
      const auto n = static_cast<std::int64_t>(text.size());
      const std::int64_t from = static_cast<std::int64_t>(rng() % text.size());
      EXPECT_EQ(jit::detail::find_sets_by(how, at, from, n, filter.data()),
                reference_sets(text, from, n, sets))
          << "strategy " << static_cast<int>(how) << ", trial " << trial;
    }
  }
  munmap(mapped, 2 * page);
  EXPECT_GE(strategies, 1);
}

TEST(Scan, FindSetsNamesABadArgument) {
  const auto staged = [](const Sets& sets) {
    return jit::extract([](jit::dyn<const std::uint8_t*> t, jit::dyn<std::int64_t> n,
                           const Sets& s) { return jit::find_sets(t, 0, n, s); },
                        sets);
  };
  const auto message = [&](const Sets& sets) {
    try {
      staged(sets);
    } catch (const jit::error& e) {
      return e.message();
    }
    return std::string("no error");
  };
  std::bitset<256> a;
  a.set('a');
  EXPECT_NE(message({}).find("0 sets given"), std::string::npos) << message({});
  EXPECT_NE(message(Sets(9, {0, a})).find("9 sets given"), std::string::npos);
  EXPECT_NE(message({{0, a}, {64, a}}).find("set 1 is at offset 64"), std::string::npos)
      << message({{0, a}, {64, a}});
  EXPECT_NE(staged({{0, a}, {2, a}}).ir().find("@augur_find_sets("), std::string::npos);
}

}  // namespace
}  // namespace augur::stage::testing
