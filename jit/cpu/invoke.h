// Calling compiled code with IR values: the generic path used by differential
// tests and by tiers that do not know a function's C++ type.
#pragma once

#include <span>
#include <string_view>

#include "jit/cpu/compiled_code.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/value.h"

namespace augur::cpu {

// Calls non-kernel `function` through its invoker. Throws jit::error if there
// is no such function, it is a kernel, it has no invoker, or the argument
// count differs.
ir::Value invoke(const CompiledCode& code, std::string_view function,
                 std::span<const ir::Value> args);

// Runs kernel `kernel` over `grid` blocks of `block` threads: blocks in
// parallel on TBB, the threads of a block one after another. Throws jit::error
// if there is no such kernel, the argument count differs, or a dimension is 0
// or does not fit in i32.
void run_kernel(const CompiledCode& code, std::string_view kernel, ir::Dim3 grid, ir::Dim3 block,
                std::span<const ir::Value> args);

}  // namespace augur::cpu
