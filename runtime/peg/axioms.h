// The built-in rewrite rules of the PEG optimizer (Tate, §6.3 and appendix A),
// one file per family: loops (axioms_loop.cpp, peeling in axioms_peel.cpp), φ (axioms_phi.cpp),
// arithmetic (axioms_arith.cpp), heap and calls (axioms_heap.cpp). Every rule
// holds for the IR's semantics: wrapping integers, IEEE floats, σ.
#pragma once

#include <span>
#include <vector>

#include "runtime/eqsat/rewrite.h"
#include "runtime/eqsat/rule_index.h"
#include "runtime/peg/peg_language.h"

namespace augur::peg {

// All of them, built once per process. The rules find their analyses in the
// e-graph they run on, so one set serves every compile.
std::span<const eqsat::Rewrite> builtin_rules();
// The same indexed for the runner, once per process.
const eqsat::RuleIndex& builtin_rule_index();

// The families, for tests and benchmarks.
void add_loop_axioms(std::vector<eqsat::Rewrite>& rules, PegLanguage& language);
void add_peel_axioms(std::vector<eqsat::Rewrite>& rules, PegLanguage& language);
void add_phi_axioms(std::vector<eqsat::Rewrite>& rules, PegLanguage& language);
void add_arith_axioms(std::vector<eqsat::Rewrite>& rules, PegLanguage& language);
void add_heap_axioms(std::vector<eqsat::Rewrite>& rules, PegLanguage& language);

}  // namespace augur::peg
