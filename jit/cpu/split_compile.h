// Compiling a module whose large functions are split (split_plan.h): the
// module itself, its functions calling their parts, and the parts grouped
// into modules of about Options::split_nodes IR nodes each, every module
// generated, optimized and emitted in a context of its own, concurrently on
// TBB. The objects are linked into one JITDylib, or bundled into one file
// for the disk cache (object_bundle.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <llvm/Support/MemoryBuffer.h>

#include "jit/cpu/options.h"
#include "jit/cpu/split_plan.h"
#include "runtime/ir/ir.h"

namespace augur::cpu {

// The plan of each function of `module`, in order; split_any() tells whether
// any function is split.
std::vector<FunctionPlan> plan_module(const ir::Module& module, const Options& options);
bool split_any(const std::vector<FunctionPlan>& plans);

// The object files of the split module `module` (verified IR), named after
// `label`: the first defines the module's entry points. The caller waits
// while it takes part in the work, so it never depends on a free TBB worker.
// Throws jit::compile_error if LLVM fails.
std::vector<std::unique_ptr<llvm::MemoryBuffer>> compile_split(
    const ir::Module& module, const std::vector<FunctionPlan>& plans, const Options& options,
    const std::string& label);

}  // namespace augur::cpu
