// The staging goldens: each program's extracted IR is compared with
// tests/stage/golden/<name>.ir (AUGUR_UPDATE_GOLDEN=1 rewrites them), then run
// in the IR interpreter on random inputs against the same logic in plain C++.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bf.h"
#include "jit/jit.h"
#include "support.h"
#include "tests/support/staged_programs.h"

namespace augur::stage::testing {
namespace {

using namespace augur::staged;

jit::extract_options named(std::string name, std::vector<std::string> params) {
  jit::extract_options options;
  options.name = std::move(name);
  options.param_names = std::move(params);
  return options;
}

// ---------------------------------------------------------------- power

TEST(Golden, PowerWithStaticExponentUnrolls) {
  const jit::extraction e = jit::extract(named("power13", {"x"}), power, 13);
  EXPECT_TRUE(matches_golden("power_static", e.ir()));
  EXPECT_EQ(e.report().control_flow_runs, 1u);
  const ir::Interpreter interp = interpreter(e);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> value(-2.0, 2.0);
  for (int i = 0; i < 200; ++i) {
    const double x = value(rng);
    EXPECT_EQ(run<double>(interp, x), plain_power(x, 13)) << "x = " << x;
  }
}

TEST(Golden, PowerWithDynExponentIsALoop) {
  const jit::extraction e = jit::extract(named("power", {"x", "n"}), power_dyn);
  EXPECT_TRUE(matches_golden("power_dyn", e.ir()));
  const ir::Interpreter interp = interpreter(e);
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> value(-1.5, 1.5);
  std::uniform_int_distribution<int> exponent(-3, 40);
  for (int i = 0; i < 200; ++i) {
    const double x = value(rng);
    const int n = exponent(rng);
    EXPECT_EQ(run<double>(interp, x, n), plain_power(x, n)) << x << "^" << n;
  }
}

// ---------------------------------------------------------------- Brainfuck

// Reads a and b, prints a * b (mod 256).
const std::string kMultiply = ",>,<[->[->+>+<<]>>[-<<+>>]<<<]>>.";

TEST(Golden, BrainfuckInterpreterSpecializedToAProgramHasNoDispatch) {
  const jit::extraction e =
      jit::extract(named("bf_multiply", {"tape", "input", "output"}), bf::staged, kMultiply);
  EXPECT_TRUE(matches_golden("bf_multiply", e.ir()));
  // No trace of the interpreter: one loop per bracket pair, no other branch.
  EXPECT_EQ(count_statements(function_of(e).body, ir::StmtKind::While), 3);
  EXPECT_EQ(count_statements(function_of(e).body, ir::StmtKind::For), 0);
  EXPECT_EQ(count_statements(function_of(e).body, ir::StmtKind::If), 0);

  const ir::Interpreter interp = interpreter(e);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> byte(0, 20);
  for (int i = 0; i < 100; ++i) {
    const std::array<std::uint8_t, 2> input{static_cast<std::uint8_t>(byte(rng)),
                                            static_cast<std::uint8_t>(byte(rng))};
    std::array<std::uint8_t, 16> tape{}, expected_tape{};
    std::array<std::uint8_t, 4> out{}, expected_out{};
    const int n = run<int>(interp, tape.data(), input.data(), out.data());
    const int expected_n =
        bf::plain(expected_tape.data(), input.data(), expected_out.data(), kMultiply);
    ASSERT_EQ(n, expected_n);
    EXPECT_EQ(out, expected_out);
    EXPECT_EQ(tape, expected_tape);
    EXPECT_EQ(out[0], static_cast<std::uint8_t>(input[0] * input[1]));
  }
}

// ---------------------------------------------------------------- nested loops

TEST(Golden, NestedDynLoopsWithBreakAndContinue) {
  const jit::extraction e = jit::extract(named("nested_loops", {"n", "m"}), nested_loops);
  EXPECT_TRUE(matches_golden("nested_loops", e.ir()));
  const ir::Interpreter interp = interpreter(e);
  for (int n = -1; n < 40; n += 3) {
    for (int m = -1; m < 40; m += 4) {
      EXPECT_EQ(run<int>(interp, n, m), plain_nested_loops(n, m)) << n << ", " << m;
    }
  }
}

// ---------------------------------------------------------------- helpers

TEST(Golden, AHelperCalledFromTwoSitesIsTwoPlaces) {
  const jit::extraction e = jit::extract(named("helpers", {"a", "b"}), helpers);
  EXPECT_TRUE(matches_golden("helpers", e.ir()));
  const ir::Interpreter interp = interpreter(e);
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> value(-100, 100);
  for (int i = 0; i < 200; ++i) {
    const int a = value(rng), b = value(rng);
    EXPECT_EQ(run<int>(interp, a, b), plain_helpers(a, b)) << a << ", " << b;
  }
}

// ---------------------------------------------------------------- sequential ifs

TEST(Golden, SequentialDynIfsCostLinearRuns) {
  constexpr int kIfs = 32;
  const jit::extraction e = jit::extract(named("reverse_bits", {"x"}), bits, kIfs);
  EXPECT_TRUE(matches_golden("sequential_ifs", e.ir()));
  // Not 2^32 runs, nor one per branch: the second run takes every `else`.
  EXPECT_EQ(e.report().control_flow_runs, 2u);
  const ir::Interpreter interp = interpreter(e);
  std::mt19937 rng(5);
  for (int i = 0; i < 200; ++i) {
    const std::uint32_t x = rng();
    std::uint32_t expected = 0;
    for (int k = 0; k < kIfs; ++k) {
      if ((x >> k) & 1u) expected |= 1u << (kIfs - 1 - k);
    }
    EXPECT_EQ(run<std::uint32_t>(interp, x), expected) << x;
  }
}

// ---------------------------------------------------------------- static loop

TEST(Golden, StaticLoopAroundDynIfsUnrolls) {
  const jit::extraction e = jit::extract(named("clamp4", {"v", "lo", "hi"}), clamp_all, 4);
  EXPECT_TRUE(matches_golden("static_loop", e.ir()));
  const ir::Interpreter interp = interpreter(e);
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  for (int i = 0; i < 200; ++i) {
    std::array<float, 5> v{}, expected{};
    for (float& x : v) x = value(rng);
    expected = v;
    const float lo = -1.0f, hi = value(rng);
    for (int k = 0; k < 4; ++k) {
      if (expected[k] < lo) {
        expected[k] = lo;
      } else if (expected[k] > hi) {
        expected[k] = hi;
      }
    }
    run<void>(interp, v.data(), lo, hi);
    EXPECT_EQ(v, expected);
  }
}

// ---------------------------------------------------------------- tables

// CRC-8 (polynomial 0x07) a byte at a time through its 256-entry table, the
// table in the code (jit::table).
std::vector<std::uint8_t> crc8_table() {
  std::vector<std::uint8_t> table(256);
  for (int b = 0; b < 256; ++b) {
    std::uint8_t crc = static_cast<std::uint8_t>(b);
    for (int k = 0; k < 8; ++k) {
      crc = static_cast<std::uint8_t>((crc & 0x80) ? (crc << 1) ^ 0x07 : crc << 1);
    }
    table[static_cast<std::size_t>(b)] = crc;
  }
  return table;
}

jit::dyn<std::uint8_t> crc8(jit::dyn<const std::uint8_t*> data, jit::dyn<int> n,
                            const std::vector<std::uint8_t>& table) {
  const auto t = jit::table(table);
  jit::dyn<std::uint8_t> crc = 0;
  for (jit::dyn<int> i = 0; i < n; i = i + 1) crc = t[crc ^ data[i]];
  return crc;
}

TEST(Golden, ATableIsPartOfTheProgram) {
  const std::vector<std::uint8_t> table = crc8_table();
  const jit::extraction e = jit::extract(named("crc8", {"data", "n"}), crc8, table);
  EXPECT_TRUE(matches_golden("table_crc8", e.ir()));
  const ir::Interpreter interp = interpreter(e);
  std::mt19937 rng(7);
  for (int i = 0; i < 100; ++i) {
    std::vector<std::uint8_t> data(rng() % 64);
    for (std::uint8_t& b : data) b = static_cast<std::uint8_t>(rng());
    std::uint8_t expected = 0;
    for (const std::uint8_t b : data) expected = table[expected ^ b];
    EXPECT_EQ(run<std::uint8_t>(interp, data.data(), static_cast<int>(data.size())), expected);
  }
}

}  // namespace
}  // namespace augur::stage::testing
