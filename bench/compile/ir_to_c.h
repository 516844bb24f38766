// Prints an IR module as C, for the benchmarks that compare Augur with the
// route BuildIt takes (C source, the system compiler, dlopen). It covers the
// scalar subset the benchmark programs use: every statement but barriers, and
// every expression but calls, atomics and GPU intrinsics. Integer results are
// cast back to their IR type, and the source must be compiled with -fwrapv,
// so arithmetic wraps as docs/ir.md says; the traps of the IR (division by
// zero) and float → integer saturation are not reproduced.
#pragma once

#include <string>

#include "runtime/ir/ir.h"

namespace augur::bench {

// The module's functions as one C translation unit, each under its IR name.
// Throws std::invalid_argument for a construct outside the subset.
std::string ir_to_c(const ir::Module& module);

// The C type of an IR type ("int32_t", "double*", "_Bool"), as ir_to_c writes it.
std::string c_type(ir::Type type);

}  // namespace augur::bench
