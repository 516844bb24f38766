// The LLVM options the CPU backend sets (jit/cpu/llvm_options.h): all of them
// known to this LLVM and in effect (the others change compile time only), and
// the promotion cap seen in the code LLVM makes: a loop that updates 200
// memory cells at fixed addresses (402 accesses, past LLVM's default cap of
// 250 for promotion) keeps them in registers, so no store is left inside a
// loop, and it computes what the interpreter does.
#include <array>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "jit/cpu/llvm_options.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

constexpr int kCells = 200;

ir::Module cells_loop() {
  std::ostringstream text;
  text << "fn cells(t: u8*) -> void {\n  while (t[0i64] != 0u8) {\n"
       << "    t[0i64] = t[0i64] - 1u8;\n";
  for (int i = 1; i <= kCells; ++i) {
    text << "    t[" << i << "i64] = t[" << i << "i64] + " << (i % 7 + 1) << "u8;\n";
  }
  text << "  }\n}\n";
  return ir::parse_module(text.str());
}

// The stores in basic blocks that branch to themselves (a rotated loop's body).
int stores_in_loops(const std::string& llvm) {
  int stores = 0;
  std::istringstream in(llvm);
  std::string line, label, block;
  const auto flush = [&] {
    if (!label.empty() && block.find("label %" + label + ",") != std::string::npos) {
      for (std::size_t at = block.find("store "); at != std::string::npos;
           at = block.find("store ", at + 1)) {
        ++stores;
      }
    }
    block.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != ' ' && line.find(':') != std::string::npos && line[0] != ';' &&
        line.rfind("define", 0) != 0) {
      flush();
      label = line.substr(0, line.find(':'));
    } else {
      // A comma after every branch target, so that "label %x," finds the last one too.
      block += line + (line.find(" br ") != std::string::npos ? ",\n" : "\n");
    }
  }
  flush();
  return stores;
}

TEST(LlvmOptions, AllInEffect) {
  set_llvm_options();
  EXPECT_EQ(llvm_options_not_in_effect(), std::vector<std::string>{});
}

TEST(LlvmOptions, CellsOfALongLoopStayInRegisters) {
  const ir::Module module = cells_loop();
  Options options;
  options.opt_level = 2;
  options.dump_llvm = true;
  options.invokers = false;
  std::string optimized;
  options.dump_sink = [&](DumpKind kind, std::string_view, std::string_view text) {
    if (kind == DumpKind::OptimizedLlvmIr) optimized += text;
  };
  const auto code = compile(module, {}, options);
  ASSERT_NE(optimized.find("define"), std::string::npos);
  EXPECT_EQ(stores_in_loops(optimized), 0) << optimized;

  const ir::Interpreter interpreter(module, "cells");
  std::mt19937 rng(5);
  for (int run = 0; run < 20; ++run) {
    std::array<std::uint8_t, kCells + 1> expected{}, actual{};
    for (std::uint8_t& cell : expected) cell = static_cast<std::uint8_t>(rng());
    actual = expected;
    interpreter.call<void>(expected.data());
    call_native<void>(*code, "cells", actual.data());
    EXPECT_EQ(actual, expected);
  }
}

}  // namespace
}  // namespace augur::cpu::test
