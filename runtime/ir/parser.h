// Reads the text form of the IR (grammar in docs/ir.md).
#pragma once

#include <string_view>

#include "runtime/ir/ir.h"

namespace augur::ir {

// Parses a whole module. Syntax errors, unknown or out-of-scope names, bad
// literals and bytes, and nesting past the bounds of docs/ir.md throw
// jit::parse_error; ill-typed expressions (rejected by the builder's factories)
// jit::verify_error; both with the line and column in where(). `file` only
// labels the messages. Variables are numbered in textual order, parameters
// first. The result is not yet verified: statement-level rules are the
// verifier's.
Module parse_module(std::string_view text, std::string_view file = "<input>");

}  // namespace augur::ir
