// The staging goldens' generators through jit::compile at O0 and O2, over
// many static arguments, against the IR interpreter running the program
// jit::extract stages from the same arguments, on random inputs.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "jit/jit.h"
#include "tests/stage/bf.h"
#include "tests/stage/support.h"
#include "tests/support/staged_programs.h"

namespace {

using augur::stage::testing::interpreter;
using augur::stage::testing::run;
namespace golden = augur::staged;

jit::compile_options at(int level) {
  jit::compile_options options;
  options.opt_level = level;
  return options;
}

template <class T>
auto bits_of(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(value);
  } else {
    return value;
  }
}

class Differential : public ::testing::TestWithParam<int> {
 protected:
  jit::compile_options options() const { return at(GetParam()); }
  std::mt19937_64 rng{static_cast<std::uint64_t>(GetParam()) + 1};
};

TEST_P(Differential, PowerForEveryExponentUpTo63) {
  std::uniform_real_distribution<double> value(-1.5, 1.5);
  for (int n = 0; n < 64; ++n) {
    const auto interp = interpreter(jit::extract(golden::power, n));
    const auto compiled = jit::compile(options(), golden::power, n);
    for (int i = 0; i < 20; ++i) {
      const double x = value(rng);
      EXPECT_EQ(bits_of(compiled(x)), bits_of(run<double>(interp, x))) << x << "^" << n;
    }
  }
}

TEST_P(Differential, BitReversalOfEveryWidth) {
  for (int n = 1; n <= 32; ++n) {
    const auto interp = interpreter(jit::extract(golden::bits, n));
    const auto compiled = jit::compile(options(), golden::bits, n);
    for (int i = 0; i < 20; ++i) {
      const auto x = static_cast<std::uint32_t>(rng());
      EXPECT_EQ(compiled(x), run<std::uint32_t>(interp, x)) << x << ", n = " << n;
    }
  }
}

TEST_P(Differential, ClampOfEveryLengthUpTo16) {
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  for (int n = 1; n <= 16; ++n) {
    const auto interp = interpreter(jit::extract(golden::clamp_all, n));
    const auto compiled = jit::compile(options(), golden::clamp_all, n);
    for (int i = 0; i < 20; ++i) {
      std::array<float, 17> v{};
      for (float& x : v) x = value(rng);
      std::array<float, 17> expected = v;
      const float lo = value(rng), hi = value(rng);
      compiled(v.data(), lo, hi);
      run<void>(interp, expected.data(), lo, hi);
      EXPECT_EQ(v, expected) << "n = " << n;
    }
  }
}

TEST_P(Differential, GeneratorsWithoutStaticArguments) {
  const auto power_interp = interpreter(jit::extract(golden::power_dyn));
  const auto power = jit::compile(options(), golden::power_dyn);
  const auto loops_interp = interpreter(jit::extract(golden::nested_loops));
  const auto loops = jit::compile(options(), golden::nested_loops);
  const auto helpers_interp = interpreter(jit::extract(golden::helpers));
  const auto helpers = jit::compile(options(), golden::helpers);
  std::uniform_real_distribution<double> base(-1.5, 1.5);
  std::uniform_int_distribution<int> small(-5, 45);
  std::uniform_int_distribution<int> any(-100000, 100000);
  for (int i = 0; i < 200; ++i) {
    const double x = base(rng);
    const int n = small(rng), m = small(rng);
    EXPECT_EQ(bits_of(power(x, n)), bits_of(run<double>(power_interp, x, n))) << x << "^" << n;
    EXPECT_EQ(loops(n, m), run<int>(loops_interp, n, m)) << n << ", " << m;
    const int a = any(rng), b = any(rng);
    EXPECT_EQ(helpers(a, b), run<int>(helpers_interp, a, b)) << a << ", " << b;
  }
}

TEST_P(Differential, BrainfuckPrograms) {
  const std::vector<std::string> programs{
      ",>,<[->[->+>+<<]>>[-<<+>>]<<<]>>.",  // a * b
      ",[.-]",                              // a, a-1, ..., 1
      ",>,[-<+>]<.",                        // a + b
      ",[->+>+<<]>>[-<<+>>]<[->+<]>.",      // 2a
      "++++++++[>++++[>++>+++<<-]<-]>>.>+.<<,.",
  };
  std::uniform_int_distribution<int> byte(0, 12);
  for (const std::string& program : programs) {
    const auto interp = interpreter(jit::extract(bf::staged, program));
    const auto compiled = jit::compile(options(), bf::staged, program);
    for (int i = 0; i < 20; ++i) {
      const std::array<std::uint8_t, 2> input{static_cast<std::uint8_t>(byte(rng)),
                                              static_cast<std::uint8_t>(byte(rng))};
      std::array<std::uint8_t, 16> tape{}, expected_tape{};
      std::array<std::uint8_t, 16> out{}, expected_out{};
      const int written = compiled(tape.data(), input.data(), out.data());
      const int expected_written =
          run<int>(interp, expected_tape.data(), input.data(), expected_out.data());
      EXPECT_EQ(written, expected_written) << program;
      EXPECT_EQ(out, expected_out) << program;
      EXPECT_EQ(tape, expected_tape) << program;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, Differential, ::testing::Values(0, 2),
                         [](const auto& info) { return "O" + std::to_string(info.param); });

}  // namespace
