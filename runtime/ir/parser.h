// Reads the text form of the IR (grammar in docs/ir.md).
#pragma once

#include <string_view>

#include "runtime/ir/ir.h"

namespace augur::ir {

// Parses a whole module. Syntax errors and unknown names throw jit::parse_error,
// ill-typed expressions jit::verify_error, both with the line and column in
// where(). `file` only labels the messages. The result is not yet verified.
Module parse_module(std::string_view text, std::string_view file = "<input>");

}  // namespace augur::ir
