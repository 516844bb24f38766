#include "support.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "runtime/stage/externs.h"

namespace augur::stage::testing {

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

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
  const std::string path = std::string(AUGUR_TEST_DATA) + "/golden/" + name + ".ir";
  if (const char* update = std::getenv("AUGUR_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path, std::ios::binary) << text;
    return ::testing::AssertionSuccess() << "wrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return ::testing::AssertionFailure()
           << "no golden file " << path << " (run with AUGUR_UPDATE_GOLDEN=1 to write it); got:\n"
           << text;
  }
  std::stringstream expected;
  expected << in.rdbuf();
  if (expected.str() == text) return ::testing::AssertionSuccess();
  const std::vector<std::string> want = lines(expected.str());
  const std::vector<std::string> got = lines(text);
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  auto line_or_end = [](const std::vector<std::string>& v, std::size_t k) {
    return k < v.size() ? v[k] : std::string("<end of text>");
  };
  return ::testing::AssertionFailure()
         << path << " differs at line " << i + 1 << ":\n  golden: " << line_or_end(want, i)
         << "\n  actual: " << line_or_end(got, i)
         << "\n(if the change is intended, regenerate with AUGUR_UPDATE_GOLDEN=1)\nactual text:\n"
         << text;
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
