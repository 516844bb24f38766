// Helpers of the CPU backend's tests: building small modules and calling
// compiled functions with C++ values.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "jit/cpu/compile.h"
#include "jit/cpu/invoke.h"
#include "runtime/ir/builder.h"

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

// The opt levels every backend test runs at.
class AtOptLevel : public ::testing::TestWithParam<int> {
 protected:
  int opt() const { return GetParam(); }
};

}  // namespace augur::cpu::test
