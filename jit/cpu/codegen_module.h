// Module-level state of code generation: the LLVM module, extern declarations
// and intrinsics, shared by the emitters of its functions.
#pragma once

#include <string>
#include <unordered_map>

#include <llvm/IR/Module.h>

#include "runtime/ir/ir.h"

namespace augur::cpu {

class ModuleEmitter {
 public:
  explicit ModuleEmitter(llvm::Module& module) : module_(module) {}

  llvm::Module& module() { return module_; }
  llvm::LLVMContext& context() { return module_.getContext(); }

  // The declaration of an extern, with the C ABI's attributes and what its
  // effect promises (pure: no memory access; readonly: reads only).
  llvm::Function* extern_function(const ir::ExternFn& decl);

 private:
  llvm::Module& module_;
  std::unordered_map<std::string, llvm::Function*> externs_;
};

}  // namespace augur::cpu
