#include "support.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "runtime/stage/externs.h"
#include "tests/support/golden.h"

namespace augur::stage::testing {

namespace {

int count_in(const ir::Expr& e, const std::string& callee, long long arg) {
  int n = 0;
  if (e.kind == ir::ExprKind::Call && e.callee->name == callee) {
    if (arg < 0 || (!e.args.empty() && e.args[0]->kind == ir::ExprKind::Const &&
                    e.args[0]->int_value() == arg)) {
      ++n;
    }
  }
  for (const ir::ExprPtr& a : e.args) n += count_in(*a, callee, arg);
  return n;
}

int count_in(const ir::Block& b, const std::string& callee, long long arg) {
  int n = 0;
  for (const ir::Stmt& s : b) {
    for (const ir::ExprPtr* e : {&s.expr, &s.ptr, &s.index}) {
      if (*e) n += count_in(**e, callee, arg);
    }
    n += count_in(s.init, callee, arg) + count_in(s.body, callee, arg) +
         count_in(s.orelse, callee, arg) + count_in(s.step, callee, arg);
  }
  return n;
}

}  // namespace

::testing::AssertionResult matches_golden(const std::string& name, const std::string& text) {
  return augur::testing::matches_golden_file(
      std::string(AUGUR_TEST_DATA) + "/golden/" + name + ".ir", text);
}

const ir::Module& module_of(const jit::extraction& e) {
  return e.result().extracted.module;
}

const ir::Function& function_of(const jit::extraction& e) {
  return module_of(e).functions.front();
}

ir::Interpreter interpreter(const jit::extraction& e) {
  const ir::ExternTable externs = registered_externs();
  ir::InterpOptions options;
  options.externs = &externs;
  return ir::Interpreter(module_of(e), e.name(), options);
}

int count_statements(const ir::Block& block, ir::StmtKind kind) {
  int n = 0;
  for (const ir::Stmt& s : block) {
    n += (s.kind == kind ? 1 : 0) + count_statements(s.init, kind) +
         count_statements(s.body, kind) + count_statements(s.orelse, kind) +
         count_statements(s.step, kind);
  }
  return n;
}

int count_calls(const ir::Function& fn, const std::string& callee, long long arg) {
  return count_in(fn.body, callee, arg);
}

}  // namespace augur::stage::testing
