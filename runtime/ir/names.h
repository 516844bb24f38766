// The rules for names in the IR (docs/ir.md, "Text form"): [A-Za-z_][A-Za-z0-9_.]*,
// minus the reserved words of the lexer (lexer.h).
#pragma once

#include <string>
#include <string_view>

namespace augur::ir {

// Why `name` cannot name a variable, e.g. "is a keyword"; empty when it can.
// Variables appear bare in expressions, so every reserved word is excluded:
// statement keywords, type names, literals, intrinsics, and GPU index names
// with any ".suffix" (`thread_idx.x` lexes as one name).
std::string variable_name_error(std::string_view name);

// The same for functions and externs. Nothing refers to a function by name and
// calls mark externs with '@', so only statement keywords are excluded: an
// extern may be called `exp`.
std::string global_name_error(std::string_view name);

}  // namespace augur::ir
