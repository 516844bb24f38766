// Stores that loops folded away at compile time leave dead (jit/cpu/pipeline.cpp):
// a BF-like program builds each output byte in a tape cell with a
// multiplication loop, which LLVM evaluates, leaving two stores to the tape
// per byte that the next byte's overwrite; at O2 only the last ones stay,
// and the code writes what the interpreter does to the tape and the output.
#include <array>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>

#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

constexpr int kBytes = 24;

// Per output byte k: clear t[0], t[1] = k % 5 + 3, t[0] += 9 while t[1]
// counts down, out[k] = t[0] + k.
ir::Module bytes_built_on_a_tape() {
  std::ostringstream text;
  text << "fn bytes(t: u8*, out: u8*) -> void {\n";
  for (int k = 0; k < kBytes; ++k) {
    text << "  while (t[0i64] != 0u8) {\n    t[0i64] = t[0i64] - 1u8;\n  }\n"
         << "  t[1i64] = " << k % 5 + 3 << "u8;\n"
         << "  while (t[1i64] != 0u8) {\n    t[0i64] = t[0i64] + 9u8;\n"
         << "    t[1i64] = t[1i64] - 1u8;\n  }\n"
         << "  t[0i64] = t[0i64] + " << k << "u8;\n"
         << "  out[" << k << "i64] = t[0i64];\n";
  }
  text << "}\n";
  return ir::parse_module(text.str());
}

TEST(DeadStores, OverwrittenTapeStoresAreRemovedAtO2) {
  const ir::Module module = bytes_built_on_a_tape();
  Options options;
  options.opt_level = 2;
  const CompiledWithIr compiled = compile_keeping_ir(module, options);
  // One store per output byte at most (the vectorizer may merge them) and
  // the tape's last two: the 2 × 24 earlier tape stores are gone.
  EXPECT_LE(occurrences(compiled.optimized, "store "), std::size_t{kBytes + 2})
      << compiled.optimized;

  const ir::Interpreter interpreter(module, "bytes");
  std::mt19937 rng(13);
  for (int run = 0; run < 10; ++run) {
    std::array<std::uint8_t, 2> tape{static_cast<std::uint8_t>(rng()),
                                     static_cast<std::uint8_t>(rng())};
    std::array<std::uint8_t, kBytes> out{};
    std::array<std::uint8_t, 2> expected_tape = tape;
    std::array<std::uint8_t, kBytes> expected_out{};
    interpreter.call<void>(expected_tape.data(), expected_out.data());
    call_native<void>(*compiled.code, "bytes", tape.data(), out.data());
    EXPECT_EQ(tape, expected_tape);
    EXPECT_EQ(out, expected_out);
  }
}

}  // namespace
}  // namespace augur::cpu::test
