// Module-level state of code generation: the LLVM module, extern declarations
// and intrinsics, shared by the emitters of its functions.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

#include "jit/cpu/split_plan.h"
#include "runtime/ir/ir.h"

namespace augur::cpu {

// An empty module named `label` for the JIT's target.
std::unique_ptr<llvm::Module> empty_module(llvm::LLVMContext& context,
                                           const llvm::DataLayout& layout,
                                           const llvm::Triple& triple, std::string_view label);

class ModuleEmitter {
 public:
  explicit ModuleEmitter(llvm::Module& module) : module_(module) {}

  llvm::Module& module() { return module_; }
  llvm::LLVMContext& context() { return module_.getContext(); }

  // The declaration of an extern, with the C ABI's attributes and what its
  // effect promises (pure: no memory access; readonly: reads only).
  llvm::Function* extern_function(const ir::ExternFn& decl);
  // The function of a part of a split function (declared, if this module
  // does not define it): i32 status (PartExit) of its inputs by value, its
  // in-out variables by pointer and, if it returns a value, where to put it.
  llvm::Function* part_function(const FunctionPlan& plan, const Part& part);
  // A table's constant global (private to the module, one per distinct
  // table), holding its elements in their memory layout.
  llvm::GlobalVariable* table_global(const ir::TableRef& table);

 private:
  llvm::Module& module_;
  std::unordered_map<std::string, llvm::Function*> externs_;
  std::unordered_map<const ir::TableData*, llvm::GlobalVariable*> tables_;
};

}  // namespace augur::cpu
