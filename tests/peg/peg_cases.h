// Support for the PEG optimizer's case tests (the 22 cases of Tate's
// dissertation, tests/peg/cases_test.cpp): the externs the cases call, the
// shape of the optimized IR, and agreement with the interpreter.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "runtime/ir/externs.h"
#include "runtime/ir/ir.h"
#include "runtime/peg/optimize.h"

namespace augur::peg::test {

// Externs of the cases, all logging what they do (case_log()):
//   more() -> bool effect            true for the first case_budget() calls
//   coin() -> bool effect            a pseudo-random bit
//   use(i32) -> void effect          logs its argument
//   find(u8*, i32) -> u8* readonly   strchr
//   has(i64, i32) -> bool pure       bit e of the set l
//   position(i64, i32) -> i32 pure   the index of e among the bits of l, or -1
std::string case_externs_text();
const ir::ExternTable& case_externs();
std::vector<std::int64_t>& case_log();
// Resets the externs' state: `more` answers true `budget` times, `coin` starts from `seed`.
void reset_case_externs(int budget, std::uint64_t seed);

// The text of tests/peg/cases/<name>.ir, a case's program (externs above not included).
std::string case_program(const std::string& name);

ir::Module parse_case(const std::string& text);

// Counts the expressions of `f` that `pred` accepts; `in_loops`: only inside
// loop conditions and bodies.
int count_exprs(const ir::Function& f, const std::function<bool(const ir::Expr&)>& pred,
                bool in_loops = false);
int count_loops(const ir::Function& f);
int count_stmts(const ir::Function& f, ir::StmtKind kind);
bool is_binary(const ir::Expr& e, ir::BinaryOp op);
bool calls(const ir::Expr& e, const std::string& name);

// Runs `function` of both modules on `count` inputs; `arguments` makes the
// k-th argument list (pointers point at arrays of 16 zeroed-then-filled
// elements it is given). Empty when results, memory and the case log agree
// on every input where the original does not trap.
std::string agree(
    const ir::Module& original, const ir::Module& optimized, const std::string& function, int count,
    const std::function<std::vector<ir::Value>(int k, std::span<std::int32_t> memory)>& arguments);

}  // namespace augur::peg::test
