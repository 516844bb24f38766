// Chains of squarings, later of multiplies and of reduction links
// (jit/cpu/chain_cuts.h): cut for the optimizer at O1 and above, joined
// before machine code, so the optimized LLVM IR holds the plain chains and no
// cut; the later cuts leave loops alone; the code computes what the
// interpreter does, for every integer width the cuts take and for a chain in
// a loop.
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

constexpr int kSquares = 40;

// r = x^(2^kSquares - 1) by square-and-multiply, in `type`: y squared
// kSquares times in a row.
ir::Module power_chain(const std::string& type) {
  std::string text = "fn chain(x: " + type + ") -> " + type + " {\n  var r: " + type + " = 1" +
                     type + ";\n  var y: " + type + " = x;\n";
  for (int k = 0; k < kSquares; ++k) text += "  r = r * y;\n  y = y * y;\n";
  text += "  return r + y;\n}\n";
  return ir::parse_module(text);
}

struct Compiled {
  std::shared_ptr<CompiledCode> code;
  std::string optimized;        // the optimized LLVM IR
  std::uint64_t cuts = 0;       // of squarings, before Reassociate
  std::uint64_t late_cuts = 0;  // of multiplies, after it
  std::uint64_t reduction_cuts = 0;
};

Compiled compile_dumped(const ir::Module& module, int opt_level) {
  Options options;
  options.opt_level = opt_level;
  CompiledWithIr compiled = compile_keeping_ir(module, options);
  const Statistics& before = compiled.before;
  const Statistics& after = compiled.after;
  return {std::move(compiled.code), std::move(compiled.optimized),
          after.square_chains_cut - before.square_chains_cut,
          after.multiply_chains_cut - before.multiply_chains_cut,
          after.reduction_chains_cut - before.reduction_chains_cut};
}

template <class T>
void expect_interpreter_results(const ir::Module& module, const CompiledCode& code) {
  expect_as_interpreted<T>(module, code, "chain", 50,
                           [](std::mt19937_64& rng) { return std::tuple{static_cast<T>(rng())}; });
}

TEST(ChainCuts, ACutEveryFourSquaresIsGoneFromTheOptimizedCode) {
  const ir::Module module = power_chain("i64");
  const Compiled o2 = compile_dumped(module, 2);
  EXPECT_EQ(o2.cuts, kSquares / 4);
  EXPECT_GT(o2.late_cuts, 0u);
  ASSERT_NE(o2.optimized.find("define"), std::string::npos);
  EXPECT_EQ(occurrences(o2.optimized, "augur.chain_cut."), 0u) << o2.optimized;
  EXPECT_GE(occurrences(o2.optimized, " mul "), std::size_t{kSquares}) << o2.optimized;
  expect_interpreter_results<std::int64_t>(module, *o2.code);
}

TEST(ChainCuts, OnlyTheOptimizingLevelsCut) {
  const ir::Module module = power_chain("i64");
  const Compiled o0 = compile_dumped(module, 0);
  EXPECT_EQ(o0.cuts, 0u);
  EXPECT_EQ(o0.late_cuts, 0u);
  expect_interpreter_results<std::int64_t>(module, *o0.code);
  const Compiled o1 = compile_dumped(module, 1);
  EXPECT_EQ(o1.cuts, kSquares / 4);
  EXPECT_GT(o1.late_cuts, 0u);
  expect_interpreter_results<std::int64_t>(module, *o1.code);
}

TEST(ChainCuts, EveryIntegerWidthComputesWhatTheInterpreterDoes) {
  for (const char* type : {"i8", "i16", "i32", "u32", "u64"}) {
    SCOPED_TRACE(type);
    const ir::Module module = power_chain(type);
    const Compiled o2 = compile_dumped(module, 2);
    EXPECT_EQ(o2.cuts, kSquares / 4);
    EXPECT_EQ(occurrences(o2.optimized, "augur.chain_cut."), 0u);
    const std::string t = type;
    if (t == "i8") expect_interpreter_results<std::int8_t>(module, *o2.code);
    if (t == "i16") expect_interpreter_results<std::int16_t>(module, *o2.code);
    if (t == "i32") expect_interpreter_results<std::int32_t>(module, *o2.code);
    if (t == "u32") expect_interpreter_results<std::uint32_t>(module, *o2.code);
    if (t == "u64") expect_interpreter_results<std::uint64_t>(module, *o2.code);
  }
}

// Squares in a loop body meet the loop's φ, where a run starts over; a
// chain after the loop is cut as one in straight-line code.
TEST(ChainCuts, ASquareChainInALoopComputesWhatTheInterpreterDoes) {
  std::string text =
      "fn chain(x: i64) -> i64 {\n  var y: i64 = x;\n  var i: i64 = 0i64;\n"
      "  while (i < (x & 7i64)) {\n";
  for (int k = 0; k < 9; ++k) text += "    y = y * y;\n";
  text += "    y = y + i;\n    i = i + 1i64;\n  }\n";
  for (int k = 0; k < 8; ++k) text += "  y = y * y;\n";
  text += "  return y;\n}\n";
  const ir::Module module = ir::parse_module(text);
  const Compiled o2 = compile_dumped(module, 2);
  EXPECT_GE(o2.cuts, 2u);
  EXPECT_EQ(occurrences(o2.optimized, "augur.chain_cut."), 0u) << o2.optimized;
  expect_interpreter_results<std::int64_t>(module, *o2.code);
}

// `body` as the function's straight-line code, or as the body of a loop
// that runs `n` times (a variable of the function).
std::string straight_or_looped(const std::string& body, bool in_loop) {
  if (!in_loop) return body;
  return "  var i: i64 = 0i64;\n  while (i < n) {\n" + body + "    i = i + 1i64;\n  }\n";
}

// Square-and-multiply steps, `kSteps` in a row, either in straight-line code
// or in the body of a loop that runs `n` times.
ir::Module products(bool in_loop) {
  constexpr int kSteps = 12;
  std::string body;
  for (int k = 0; k < kSteps; ++k) body += "    r = r * y;\n    y = y * y;\n";
  std::string text =
      "fn chain(a: i64, b: i64, n: i64) -> i64 {\n  var r: i64 = a;\n"
      "  var y: i64 = b;\n";
  text += straight_or_looped(body, in_loop);
  text += "  return r + y;\n}\n";
  return ir::parse_module(text);
}

void expect_products_as_interpreted(const ir::Module& module, const CompiledCode& code) {
  expect_as_interpreted<std::int64_t>(module, code, "chain", 50, [](std::mt19937_64& rng) {
    return std::tuple{static_cast<std::int64_t>(rng()), static_cast<std::int64_t>(rng()),
                      static_cast<std::int64_t>(rng() % 5)};
  });
}

// A loop keeps its multiplies uncut: a call in its body would change what
// the unroller and the vectorizer decide.
TEST(ChainCuts, LaterCutsTakeProductsOutsideLoopsOnly) {
  const ir::Module straight = products(false);
  const Compiled outside = compile_dumped(straight, 2);
  EXPECT_GT(outside.late_cuts, 0u);
  EXPECT_EQ(occurrences(outside.optimized, "augur.chain_cut."), 0u) << outside.optimized;
  expect_products_as_interpreted(straight, *outside.code);

  const ir::Module looped = products(true);
  const Compiled inside = compile_dumped(looped, 2);
  EXPECT_EQ(inside.late_cuts, 0u) << inside.optimized;
  expect_products_as_interpreted(looped, *inside.code);
}

// s = s ^ x[j % 8] * (j + 3), `links` times, in straight-line code or in
// the body of a loop that runs `n` times.
ir::Module reduction(bool in_loop, int links) {
  std::string body;
  for (int j = 0; j < links; ++j)
    body += "    s = s ^ x[" + std::to_string(j % 8) + "u64] * " + std::to_string(j + 3) + "i64;\n";
  std::string text = "fn chain(x: i64*, n: i64) -> i64 {\n  var s: i64 = n;\n";
  text += straight_or_looped(body, in_loop);
  text += "  return s;\n}\n";
  return ir::parse_module(text);
}

void expect_reductions_as_interpreted(const ir::Module& module, const CompiledCode& code) {
  std::array<std::int64_t, 8> x{};
  expect_as_interpreted<std::int64_t>(module, code, "chain", 20, [&x](std::mt19937_64& rng) {
    std::int64_t* words = random_words(x, rng);
    return std::tuple{words, static_cast<std::int64_t>(rng() % 4)};
  });
}

// A chain of 200 xors is cut into chains of at most kLinksPerReductionCut
// (64) for the SLP vectorizer; a loop's is left alone, as its multiplies are.
TEST(ChainCuts, LongReductionsAreCutOutsideLoopsOnly) {
  const ir::Module straight = reduction(false, 200);
  const Compiled outside = compile_dumped(straight, 2);
  EXPECT_GE(outside.reduction_cuts, 2u);
  EXPECT_LE(outside.reduction_cuts, 3u);
  EXPECT_EQ(occurrences(outside.optimized, "augur.chain_cut."), 0u) << outside.optimized;
  expect_reductions_as_interpreted(straight, *outside.code);

  const ir::Module short_chain = reduction(false, 40);
  EXPECT_EQ(compile_dumped(short_chain, 2).reduction_cuts, 0u);

  const ir::Module looped = reduction(true, 200);
  const Compiled inside = compile_dumped(looped, 2);
  EXPECT_EQ(inside.reduction_cuts, 0u);
  expect_reductions_as_interpreted(looped, *inside.code);
}

}  // namespace
}  // namespace augur::cpu::test
