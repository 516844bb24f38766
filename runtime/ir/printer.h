// The canonical text form of the IR (grammar in docs/ir.md).
// print → parse → print is the identity. IR that does not verify still prints,
// with <...> placeholders where the text form has no spelling (a null
// expression, an unknown variable), so that it can be shown in diagnostics.
#pragma once

#include <string>

#include "runtime/ir/ir.h"

namespace augur::ir {

std::string print(const Module& module);
std::string print(const Function& function);
// One expression as it appears inside `function` (variable names come from it).
std::string print(const Expr& expr, const Function& function);

}  // namespace augur::ir
