#include "tests/peg/peg_cases.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <sstream>

#include "jit/error.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"

namespace augur::peg::test {

namespace {

thread_local std::vector<std::int64_t> g_log;
thread_local int g_budget = 0;
thread_local std::uint64_t g_coin = 0;

bool more() {
  g_log.push_back(-1);
  return g_budget-- > 0;
}
bool coin() {
  g_coin = g_coin * 6364136223846793005ull + 1442695040888963407ull;
  const bool bit = ((g_coin >> 33) & 1) != 0;
  g_log.push_back(bit ? -2 : -3);
  return bit;
}
void use(std::int32_t v) {
  g_log.push_back(v);
}
std::uint8_t* find(std::uint8_t* s, std::int32_t c) {
  while (*s != 0 && *s != static_cast<std::uint8_t>(c)) ++s;
  return s;
}
bool has(std::int64_t l, std::int32_t e) {
  return e >= 0 && e < 64 && ((static_cast<std::uint64_t>(l) >> e) & 1) != 0;
}
std::int32_t position(std::int64_t l, std::int32_t e) {
  if (!has(l, e)) return -1;
  return std::popcount(static_cast<std::uint64_t>(l) & ((std::uint64_t{1} << e) - 1));
}

}  // namespace

std::string case_externs_text() {
  return "extern fn more() -> bool effect;\n"
         "extern fn coin() -> bool effect;\n"
         "extern fn use(i32) -> void effect;\n"
         "extern fn find(u8*, i32) -> u8* readonly;\n"
         "extern fn has(i64, i32) -> bool pure;\n"
         "extern fn position(i64, i32) -> i32 pure;\n";
}

const ir::ExternTable& case_externs() {
  static const ir::ExternTable* table = [] {
    auto* t = new ir::ExternTable;
    t->add("more", &more, ir::Effect::Effectful);
    t->add("coin", &coin, ir::Effect::Effectful);
    t->add("use", &use, ir::Effect::Effectful);
    t->add("find", &find, ir::Effect::ReadOnly);
    t->add("has", &has, ir::Effect::Pure);
    t->add("position", &position, ir::Effect::Pure);
    return t;
  }();
  return *table;
}

std::vector<std::int64_t>& case_log() {
  return g_log;
}

void reset_case_externs(int budget, std::uint64_t seed) {
  g_log.clear();
  g_budget = budget;
  g_coin = seed;
}

std::string case_program(const std::string& name) {
  const std::string path = std::string(AUGUR_PEG_CASES_DIR) + "/" + name + ".ir";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw jit::error("no PEG case program " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ir::Module parse_case(const std::string& text) {
  return ir::parse_module(case_externs_text() + text);
}

namespace {

void visit(const ir::ExprPtr& e, const std::function<bool(const ir::Expr&)>& pred, int& n) {
  if (!e) return;
  if (pred(*e)) ++n;
  for (const ir::ExprPtr& a : e->args) visit(a, pred, n);
}

void visit(const ir::Block& b, const std::function<bool(const ir::Expr&)>& pred, bool in_loops,
           bool inside, int& n) {
  for (const ir::Stmt& s : b) {
    const bool loop = s.kind == ir::StmtKind::While || s.kind == ir::StmtKind::For;
    const bool counts = !in_loops || inside;
    if (loop || counts) visit(s.expr, pred, n);  // a loop's condition is in the loop
    if (counts) {
      visit(s.ptr, pred, n);
      visit(s.index, pred, n);
    }
    visit(s.init, pred, in_loops, inside, n);
    visit(s.body, pred, in_loops, inside || loop, n);
    visit(s.step, pred, in_loops, inside || loop, n);
    visit(s.orelse, pred, in_loops, inside, n);
  }
}

int count_stmts_in(const ir::Block& b, ir::StmtKind kind) {
  int n = 0;
  for (const ir::Stmt& s : b) {
    if (s.kind == kind) ++n;
    n += count_stmts_in(s.body, kind) + count_stmts_in(s.orelse, kind) +
         count_stmts_in(s.init, kind) + count_stmts_in(s.step, kind);
  }
  return n;
}

}  // namespace

int count_exprs(const ir::Function& f, const std::function<bool(const ir::Expr&)>& pred,
                bool in_loops) {
  int n = 0;
  visit(f.body, pred, in_loops, false, n);
  return n;
}

int count_loops(const ir::Function& f) {
  return count_stmts_in(f.body, ir::StmtKind::While) + count_stmts_in(f.body, ir::StmtKind::For);
}

int count_stmts(const ir::Function& f, ir::StmtKind kind) {
  return count_stmts_in(f.body, kind);
}

bool is_binary(const ir::Expr& e, ir::BinaryOp op) {
  return e.kind == ir::ExprKind::Binary && e.binary_op() == op;
}

bool calls(const ir::Expr& e, const std::string& name) {
  return e.kind == ir::ExprKind::Call && e.callee->name == name;
}

std::string agree(
    const ir::Module& original, const ir::Module& optimized, const std::string& function, int count,
    const std::function<std::vector<ir::Value>(int k, std::span<std::int32_t> memory)>& arguments) {
  struct Outcome {
    ir::Value result;
    std::vector<std::int32_t> memory;
    std::vector<std::int64_t> log;
  };
  const auto run = [&](const ir::Module& m, int k) {
    Outcome out;
    out.memory.assign(64, 0);
    const std::vector<ir::Value> args = arguments(k, out.memory);
    ir::InterpOptions options;
    options.externs = &case_externs();
    options.step_limit = 50'000'000;
    const ir::Interpreter interpreter(m, function, options);
    reset_case_externs(k % 7, static_cast<std::uint64_t>(k));
    out.result = interpreter.run(args);
    out.log = case_log();
    return out;
  };
  const ir::Type ret = original.find_function(function)->ret;
  for (int k = 0; k < count; ++k) {
    Outcome expected;
    try {
      expected = run(original, k);
    } catch (const jit::trap_error&) {
      continue;
    }
    Outcome actual;
    try {
      actual = run(optimized, k);
    } catch (const jit::trap_error& e) {
      return "input " + std::to_string(k) + ": the optimized function traps: " + e.what();
    }
    if (!ret.is_void() && expected.result.bits != actual.result.bits)
      return "input " + std::to_string(k) + ": result " + std::to_string(actual.result.bits) +
             ", original " + std::to_string(expected.result.bits);
    if (expected.memory != actual.memory) return "input " + std::to_string(k) + ": memory differs";
    if (expected.log != actual.log)
      return "input " + std::to_string(k) + ": the extern calls differ";
  }
  return {};
}

}  // namespace augur::peg::test
