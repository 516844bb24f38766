// Checks the IR invariants of ir.h and docs/ir.md.
#pragma once

#include <vector>

#include "jit/error.h"
#include "runtime/ir/ir.h"

namespace augur::ir {

// Every problem found, in program order; empty when the module is valid. Each
// error's where() names the function and statement path.
std::vector<jit::verify_error> check(const Module& module);

// Throws the first problem check() finds.
void verify(const Module& module);
}  // namespace augur::ir
