// Emulating a kernel launch: blocks one after another, threads of a block
// interleaved only at barriers.
#pragma once

#include <span>

#include "runtime/ir/interp.h"
#include "runtime/ir/interp_code.h"

namespace augur::ir::interp {

// Runs `program` (a kernel) over the grid; `args` are already checked against
// its parameters. Traps throw jit::trap_error.
void run_grid(const Program& program, Dim3 grid, Dim3 block, std::span<const Value> args);

}  // namespace augur::ir::interp
