#include "jit/cpu/codegen_module.h"

#include "jit/cpu/abi.h"
#include "jit/cpu/codegen.h"
#include "jit/cpu/codegen_entries.h"
#include "jit/cpu/codegen_types.h"

#include <llvm/IR/Constants.h>

namespace augur::cpu {

llvm::GlobalVariable* ModuleEmitter::table_global(const ir::TableRef& table) {
  if (auto it = tables_.find(table.get()); it != tables_.end()) return it->second;
  llvm::Type* element = memory_type(context(), table->element);
  const llvm::StringRef bytes(reinterpret_cast<const char*>(table->bytes.data()),
                              table->bytes.size());
  llvm::Constant* data = llvm::ConstantDataArray::getRaw(bytes, table->size(), element);
  auto* global = new llvm::GlobalVariable(module_, data->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::PrivateLinkage, data, "augur.table");
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  global->setAlignment(llvm::Align(table->element.size()));
  tables_.emplace(table.get(), global);
  return global;
}

llvm::Function* ModuleEmitter::extern_function(const ir::ExternFn& decl) {
  auto [it, inserted] = externs_.try_emplace(decl.name, nullptr);
  if (!inserted) return it->second;
  llvm::LLVMContext& context = module_.getContext();
  llvm::Function* function =
      llvm::Function::Create(c_function_type(context, decl.ret, decl.params),
                             llvm::Function::ExternalLinkage, extern_symbol(decl.name), module_);
  function->setAttributes(c_abi_attributes(context, decl.ret, decl.params));
  if (decl.effect != ir::Effect::Effectful) {
    function->setMemoryEffects(decl.effect == ir::Effect::Pure ? llvm::MemoryEffects::none()
                                                               : llvm::MemoryEffects::readOnly());
    function->setDoesNotThrow();
    function->setWillReturn();
  }
  it->second = function;
  return function;
}

std::unique_ptr<llvm::Module> empty_module(llvm::LLVMContext& context,
                                           const llvm::DataLayout& layout,
                                           const llvm::Triple& triple, std::string_view label) {
  auto result = std::make_unique<llvm::Module>(label, context);
  // The object's file symbol: not the label, so that one module always makes
  // the same object file.
  result->setSourceFileName("augur");
  result->setDataLayout(layout);
  result->setTargetTriple(triple.str());
  return result;
}

std::unique_ptr<llvm::Module> generate_llvm(const ir::Module& module, llvm::LLVMContext& context,
                                            const llvm::DataLayout& layout,
                                            const llvm::Triple& triple, std::string_view label,
                                            bool invokers, std::span<const FunctionPlan> plans) {
  std::unique_ptr<llvm::Module> result = empty_module(context, layout, triple, label);
  ModuleEmitter emitter(*result);
  for (std::size_t i = 0; i < module.functions.size(); ++i) {
    const ir::Function& function = module.functions[i];
    if (function.kernel) {
      emit_kernel(emitter, function);
    } else {
      emit_function(emitter, function, invokers, plans.empty() ? nullptr : &plans[i]);
    }
  }
  return result;
}

}  // namespace augur::cpu
