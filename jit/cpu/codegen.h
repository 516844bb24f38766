// Augur IR → LLVM IR. For each IR function the module defines:
//  - non-kernels: the function with the C ABI under function_symbol(name), and
//    (if asked for) an InvokerFn under invoker_symbol(name);
//  - kernels: a BlockFn under block_symbol(name) that runs a block's threads.
// Calls to externs go to extern_symbol(name), defined when the code is loaded.
//
// Functions with a split plan (split_plan.h, one per IR function in order, or
// none) call their parts, which generate_parts() puts in modules of their own.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

#include "jit/cpu/split_plan.h"
#include "runtime/ir/ir.h"

namespace augur::cpu {

// Throws jit::compile_error for what the backend cannot compile (barriers in
// kernels), naming the function and the statement path.
std::unique_ptr<llvm::Module> generate_llvm(const ir::Module& module, llvm::LLVMContext& context,
                                            const llvm::DataLayout& layout,
                                            const llvm::Triple& triple, std::string_view label,
                                            bool invokers,
                                            std::span<const FunctionPlan> plans = {});

struct PartRef {
  const FunctionPlan* plan;
  const Part* part;
};

// A module defining the functions of `parts`.
std::unique_ptr<llvm::Module> generate_parts(std::span<const PartRef> parts,
                                             llvm::LLVMContext& context,
                                             const llvm::DataLayout& layout,
                                             const llvm::Triple& triple, std::string_view label);

}  // namespace augur::cpu
