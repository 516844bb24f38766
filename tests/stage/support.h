// Helpers for the staging tests: golden IR files and running extracted
// programs in the IR interpreter.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "jit/jit.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/ir.h"
#include "runtime/stage/extract.h"

namespace augur::stage::testing {

// Compares `text` with tests/stage/golden/<name>.ir byte for byte. Run the
// test with AUGUR_UPDATE_GOLDEN=1 in the environment to write the file instead.
::testing::AssertionResult matches_golden(const std::string& name, const std::string& text);

const ir::Module& module_of(const jit::extraction& e);
const ir::Function& function_of(const jit::extraction& e);

// An interpreter for the extracted function, with every registered external.
ir::Interpreter interpreter(const jit::extraction& e);

// Runs the extracted function on typed arguments.
template <class R, class... A>
R run(const ir::Interpreter& interp, A... args) {
  const ir::Value values[] = {ir::Value::of(args)..., ir::Value{}};
  const ir::Value result = interp.run(std::span<const ir::Value>(values, sizeof...(A)));
  if constexpr (!std::is_void_v<R>) return result.template as<R>();
}

// The number of statements of `kind` in `block`, nested ones included.
int count_statements(const ir::Block& block, ir::StmtKind kind);

// The number of calls to `callee` in `fn` whose first argument is the constant
// `arg`, or any first argument when arg < 0.
int count_calls(const ir::Function& fn, const std::string& callee, long long arg = -1);

}  // namespace augur::stage::testing
