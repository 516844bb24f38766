// Helpers of the CPU backend's tests: building small modules and calling
// compiled functions with C++ values.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "jit/cpu/compile.h"
#include "jit/cpu/invoke.h"
#include "jit/cpu/statistics.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/interp.h"

namespace augur::cpu::test {

inline ir::Module module_of(std::vector<ir::Function> functions,
                            std::vector<ir::ExternRef> externs = {}) {
  ir::Module module;
  module.functions = std::move(functions);
  module.externs = std::move(externs);
  return module;
}

inline std::shared_ptr<CompiledCode> compile_at(int opt_level, const ir::Module& module,
                                                const ir::ExternTable& externs = {}) {
  Options options;
  options.opt_level = opt_level;
  options.verify = true;
  return compile(module, externs, options);
}

// A compile with its optimized LLVM IR kept, and the backend's counters
// around it.
struct CompiledWithIr {
  std::shared_ptr<CompiledCode> code;
  std::string optimized;
  Statistics before;
  Statistics after;
};

inline CompiledWithIr compile_keeping_ir(const ir::Module& module, Options options) {
  options.verify = true;
  options.dump_llvm = true;
  options.invokers = false;
  CompiledWithIr out;
  options.dump_sink = [&out](DumpKind kind, std::string_view, std::string_view text) {
    if (kind == DumpKind::OptimizedLlvmIr) out.optimized += text;
  };
  out.before = statistics();
  out.code = compile(module, {}, options);
  out.after = statistics();
  return out;
}

inline std::size_t occurrences(std::string_view text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// Calls `function` through its generic invoker.
template <class R, class... A>
R invoke_as(const CompiledCode& code, std::string_view function, A... args) {
  const ir::Value values[] = {ir::Value::of(args)..., ir::Value{}};
  const ir::Value result = invoke(code, function, std::span<const ir::Value>(values, sizeof...(A)));
  if constexpr (!std::is_void_v<R>) return result.as<R>();
}

// Calls `function` directly through its C ABI entry.
template <class R, class... A>
R call_native(const CompiledCode& code, std::string_view function, A... args) {
  return reinterpret_cast<R (*)(A...)>(code.address(function))(args...);
}

// Fills `words` with random values and returns them, for a pointer argument
// of expect_as_interpreted's draw.
template <std::size_t N>
std::int64_t* random_words(std::array<std::int64_t, N>& words, std::mt19937_64& rng) {
  for (std::int64_t& w : words) w = static_cast<std::int64_t>(rng());
  return words.data();
}

// Calls `function` `runs` times with the arguments `draw(rng)` returns (a
// tuple) and expects the compiled code to return what the interpreter does.
template <class R, class Draw>
void expect_as_interpreted(const ir::Module& module, const CompiledCode& code,
                           const std::string& function, int runs, Draw draw) {
  const ir::Interpreter interpreter(module, function);
  std::mt19937_64 rng(static_cast<std::uint64_t>(runs));
  for (int run = 0; run < runs; ++run) {
    std::apply(
        [&](auto... args) {
          EXPECT_EQ(call_native<R>(code, function, args...), interpreter.call<R>(args...))
              << "run " << run;
        },
        draw(rng));
  }
}

// The opt levels every backend test runs at.
class AtOptLevel : public ::testing::TestWithParam<int> {
 protected:
  int opt() const { return GetParam(); }
};

}  // namespace augur::cpu::test
