// Long blocks given bounded scheduling regions (jit/cpu/schedule_regions.h):
// at O1 and above a block longer than kLongBlock instructions gets a label
// every kInstructionsPerRegion instructions, shorter blocks and O0 none; the
// reordered code computes what the interpreter does, loads and stores that
// may alias included.
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <utility>

#include "jit/cpu/statistics.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

constexpr std::string_view kLabel = "call void @llvm.codeview.annotation";

struct Compiled {
  std::shared_ptr<CompiledCode> code;
  std::string optimized;     // the optimized LLVM IR
  std::uint64_t blocks = 0;  // given labels
};

Compiled compile_dumped(const ir::Module& module, int opt_level) {
  Options options;
  options.opt_level = opt_level;
  options.split_nodes = 0;  // one function, however long
  CompiledWithIr compiled = compile_keeping_ir(module, options);
  return {std::move(compiled.code), std::move(compiled.optimized),
          compiled.after.schedule_regions_bounded - compiled.before.schedule_regions_bounded};
}

// s = s * (x[j % 8] + j) ^ s >> 7, `terms` times: four instructions a
// term, each on the one before, so that no vectorizer shortens the block.
ir::Module arithmetic(int terms) {
  std::string text = "fn sum(x: i64*) -> i64 {\n  var s: i64 = 1i64;\n";
  for (int j = 0; j < terms; ++j) {
    text += "  s = s * (x[" + std::to_string(j % 8) + "u64] + " + std::to_string(j) +
            "i64) ^ s >> 7i64;\n";
  }
  text += "  return s;\n}\n";
  return ir::parse_module(text);
}

void expect_sums_as_interpreted(const ir::Module& module, const CompiledCode& code) {
  std::array<std::int64_t, 8> x{};
  expect_as_interpreted<std::int64_t>(module, code, "sum", 20, [&x](std::mt19937_64& rng) {
    return std::tuple{random_words(x, rng)};
  });
}

TEST(ScheduleRegions, ALongBlockGetsALabelPerRegion) {
  const ir::Module module = arithmetic(1'500);
  const Compiled o2 = compile_dumped(module, 2);
  EXPECT_EQ(o2.blocks, 1u);
  // About 6,000 instructions.
  EXPECT_GE(occurrences(o2.optimized, kLabel), 4u);
  EXPECT_LE(occurrences(o2.optimized, kLabel), 8u);
  expect_sums_as_interpreted(module, *o2.code);

  const Compiled o1 = compile_dumped(module, 1);
  EXPECT_EQ(o1.blocks, 1u);
  EXPECT_GE(occurrences(o1.optimized, kLabel), 4u);
  expect_sums_as_interpreted(module, *o1.code);
}

TEST(ScheduleRegions, ShortBlocksAndO0AreLeftAlone) {
  const ir::Module short_block = arithmetic(100);
  const Compiled o2 = compile_dumped(short_block, 2);
  EXPECT_EQ(o2.blocks, 0u);
  EXPECT_EQ(occurrences(o2.optimized, kLabel), 0u);
  expect_sums_as_interpreted(short_block, *o2.code);

  const ir::Module long_block = arithmetic(1'500);
  const Compiled o0 = compile_dumped(long_block, 0);
  EXPECT_EQ(o0.blocks, 0u);
  EXPECT_EQ(occurrences(o0.optimized, kLabel), 0u);
  expect_sums_as_interpreted(long_block, *o0.code);
}

// p[j % 16] = p[(k + j) & 15] * 3 + j, `statements` times: each load may
// read any earlier store (k is known only at run time), so every load and
// store stays, in its order.
ir::Module tape(int statements) {
  std::string text = "fn tape(p: i64*, k: u64) -> i64 {\n";
  for (int j = 0; j < statements; ++j) {
    const std::string u = std::to_string(j) + "u64";
    text += "  p[" + std::to_string(j % 16) + "u64] = p[(k + " + u + ") & 15u64] * 3i64 + " +
            std::to_string(j) + "i64;\n";
  }
  text += "  return p[k & 15u64];\n}\n";
  return ir::parse_module(text);
}

TEST(ScheduleRegions, LoadsAndStoresThatMayAliasKeepTheirOrder) {
  const ir::Module module = tape(1'200);
  const Compiled o2 = compile_dumped(module, 2);
  EXPECT_EQ(o2.blocks, 1u);
  EXPECT_GE(occurrences(o2.optimized, kLabel), 4u);
  const ir::Interpreter interpreter(module, "tape");
  std::mt19937_64 rng(9);
  for (int run = 0; run < 20; ++run) {
    std::array<std::int64_t, 16> compiled{};
    for (std::int64_t& v : compiled) v = static_cast<std::int64_t>(rng() % 1'000);
    std::array<std::int64_t, 16> interpreted = compiled;
    const std::uint64_t k = rng();
    EXPECT_EQ(call_native<std::int64_t>(*o2.code, "tape", compiled.data(), k),
              interpreter.call<std::int64_t>(interpreted.data(), k));
    EXPECT_EQ(compiled, interpreted) << "k = " << k;
  }
}

}  // namespace
}  // namespace augur::cpu::test
