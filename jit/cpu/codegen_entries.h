// The LLVM functions made for each IR function (see codegen.h): the function
// and its invoker, or a kernel's thread function and block function.
#pragma once

#include "jit/cpu/codegen_module.h"
#include "jit/cpu/split_plan.h"
#include "runtime/ir/ir.h"

namespace augur::cpu {

// With a plan, the function calls its parts instead of holding them.
void emit_function(ModuleEmitter& module, const ir::Function& function, bool invoker,
                   const FunctionPlan* plan = nullptr);
void emit_kernel(ModuleEmitter& module, const ir::Function& kernel);

}  // namespace augur::cpu
