// The rule for names of variables, functions and externs in the IR (docs/ir.md):
// [A-Za-z_][A-Za-z0-9_.]*, and not a word the text form gives a meaning to.
#pragma once

#include <string>
#include <string_view>

namespace augur::ir {

// Why `name` cannot be used as a name, e.g. "is a keyword"; empty when it can.
std::string name_error(std::string_view name);

}  // namespace augur::ir
