// Versions for the handle tests: small IR modules compiled by the CPU
// backend, each computing 3x + k for its own k, in one of two shapes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "jit/cpu/compile.h"
#include "jit/handle.h"
#include "runtime/ir/parser.h"

namespace augur::swap::test {

using counter_fn = std::int64_t (*)(std::int64_t);

// Version k: 3x + k for x >= 0. Even k loop x times (so a call takes a while),
// odd k multiply: two specializations with different code, one checkable result.
inline std::string version_text(std::int64_t k) {
  const std::string K = std::to_string(k) + "i64";
  if (k % 2 == 0) {
    return "fn f(x: i64) -> i64 {\n"
           "  var s: i64 = 0i64;\n"
           "  var i: i64 = 0i64;\n"
           "  while (i < x) {\n"
           "    s = s + 3i64;\n"
           "    i = i + 1i64;\n"
           "  }\n"
           "  return s + " +
           K +
           ";\n"
           "}\n";
  }
  return "fn f(x: i64) -> i64 {\n  return x * 3i64 + " + K + ";\n}\n";
}

inline std::shared_ptr<cpu::CompiledCode> compile_version(std::int64_t k,
                                                          const ir::ExternTable& externs = {},
                                                          const std::string& text = {}) {
  cpu::Options options;
  options.opt_level = 0;
  options.invokers = false;
  return cpu::compile(ir::parse_module(text.empty() ? version_text(k) : text), externs, options);
}

inline void publish_version(jit::handle<std::int64_t(std::int64_t)>& h,
                            const std::shared_ptr<cpu::CompiledCode>& code) {
  h.publish(reinterpret_cast<counter_fn>(code->address("f")), code);
}

}  // namespace augur::swap::test
