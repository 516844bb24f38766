// The arithmetic language of egg's tests/math.rs, for the driver, the
// arithmetic suite and the benchmarks: symbols and double constants
// (SymbolLanguage), constant folding of + - * / like egg's ConstantFold
// (no division by zero, no fold to NaN or infinity), and egg's guards by name:
//   (not-zero ?x)            unless ?x is the constant 0
//   (is-const ?x)            ?x is a known constant
//   (is-sym ?x)              ?x's class holds a symbol
//   (const-or-distinct ?c ?x) ?c is a constant or a symbol, in another class than ?x
#pragma once

#include <optional>
#include <span>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/rule_file.h"

namespace augur::eqsat::math {

// Adds the constant-folding analysis for `language`'s + - * / to an empty
// e-graph.
void add_constant_folding(EGraph& egraph, SymbolLanguage& language);
GuardFactory guards(const SymbolLanguage& language);

}  // namespace augur::eqsat::math
