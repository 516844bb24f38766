// The last steps of an extraction's function:
//  - declarations that structuring duplicated, or that a use escapes (static
//    state merged paths across C++ scopes), move to the top of the function
//    (`var v: T;`); each former declaration becomes an assignment;
//  - variables are renumbered in order of declaration, parameters first, and
//    named: the user's name if it is a valid IR name (made unique), else
//    var0, var1, ... (parameters: the given names, else arg0, arg1, ...).
#pragma once

#include <string>
#include <vector>

#include "runtime/ir/ir.h"

namespace augur::stage {

void finalize(ir::Function& fn, const std::vector<std::string>& param_names);

// The externs `fn` calls, each once, in order of first call.
std::vector<ir::ExternRef> callees(const ir::Function& fn);

// Statements in `block`, nested ones included.
std::uint64_t count_statements(const ir::Block& block);

}  // namespace augur::stage
