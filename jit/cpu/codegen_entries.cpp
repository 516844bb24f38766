#include "jit/cpu/codegen_entries.h"

#include <functional>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>

#include "jit/cpu/abi.h"
#include "jit/cpu/codegen_function.h"
#include "jit/cpu/codegen_types.h"

namespace augur::cpu {

namespace {

std::vector<ir::Type> param_types(const ir::Function& function) {
  std::vector<ir::Type> types;
  for (const ir::Variable& p : function.params()) types.push_back(p.type);
  return types;
}

std::vector<llvm::Value*> arguments_of(llvm::Function& function, unsigned skip = 0) {
  std::vector<llvm::Value*> args;
  for (llvm::Argument& arg : function.args()) {
    if (arg.getArgNo() >= skip) args.push_back(&arg);
  }
  return args;
}

// Loads the canonical bits args[i] of each parameter and converts them.
std::vector<llvm::Value*> unpack_arguments(llvm::IRBuilder<>& b, llvm::Value* args,
                                           std::span<const ir::Type> types) {
  std::vector<llvm::Value*> values;
  for (std::size_t i = 0; i < types.size(); ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), args, i);
    values.push_back(from_value_bits(b, b.CreateLoad(b.getInt64Ty(), slot), types[i]));
  }
  return values;
}

// void invoker(const uint64_t* args, uint64_t* result): calls `callee` with the
// unpacked arguments. The call is not inlined, to keep compile time down; the
// invoker is the slow generic path anyway.
void emit_invoker(ModuleEmitter& module, const ir::Function& function, llvm::Function* callee) {
  llvm::LLVMContext& context = module.context();
  llvm::Type* ptr = llvm::PointerType::get(context, 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr, ptr}, false);
  llvm::Function* invoker = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                                   invoker_symbol(function.name), module.module());
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", invoker));
  const std::vector<ir::Type> types = param_types(function);
  llvm::CallInst* call = b.CreateCall(callee, unpack_arguments(b, invoker->getArg(0), types));
  call->setAttributes(callee->getAttributes());
  call->setIsNoInline();
  if (!function.ret.is_void())
    b.CreateStore(to_value_bits(b, call, function.ret), invoker->getArg(1));
  b.CreateRetVoid();
}

// for (i = 0; i < count; ++i) body(i), with an unsigned i32 counter.
void counted_loop(llvm::IRBuilder<>& b, llvm::Value* count, const char* name,
                  const std::function<void(llvm::Value*)>& body) {
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& context = b.getContext();
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(context, name, function);
  llvm::BasicBlock* inside =
      llvm::BasicBlock::Create(context, std::string(name) + ".body", function);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context, std::string(name) + ".end", function);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(b.getInt32Ty(), 2, name);
  i->addIncoming(b.getInt32(0), before);
  b.CreateCondBr(b.CreateICmpULT(i, count), inside, exit);
  b.SetInsertPoint(inside);
  body(i);
  i->addIncoming(b.CreateAdd(i, b.getInt32(1)), b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
}

}  // namespace

void emit_function(ModuleEmitter& module, const ir::Function& function, bool invoker,
                   const FunctionPlan* plan) {
  const std::vector<ir::Type> types = param_types(function);
  llvm::LLVMContext& context = module.context();
  llvm::Function* target = llvm::Function::Create(c_function_type(context, function.ret, types),
                                                  llvm::Function::ExternalLinkage,
                                                  function_symbol(function.name), module.module());
  target->setAttributes(c_abi_attributes(context, function.ret, types));
  const std::vector<llvm::Value*> params = arguments_of(*target);
  FunctionEmitter(module, function, *target, params, nullptr, plan).emit_body();
  if (invoker) emit_invoker(module, function, target);
}

// A kernel becomes an internal thread function
//   void thread(const BlockContext*, i32 tx, i32 ty, i32 tz, ptr shared, params...)
// and the BlockFn that zeroes shared memory and runs the block's threads in
// order, x fastest. Each thread gets its own copy of the parameters.
void emit_kernel(ModuleEmitter& module, const ir::Function& kernel) {
  llvm::LLVMContext& context = module.context();
  llvm::Type* ptr = llvm::PointerType::get(context, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  const std::vector<ir::Type> types = param_types(kernel);

  std::vector<llvm::Type*> thread_params = {ptr, i32, i32, i32, ptr};
  for (ir::Type t : types) thread_params.push_back(register_type(context, t));
  llvm::Function* thread = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), thread_params, false),
      llvm::Function::InternalLinkage, "augur.thread." + kernel.name, module.module());
  KernelFrame frame;
  frame.context = thread->getArg(0);
  frame.thread_idx = {thread->getArg(1), thread->getArg(2), thread->getArg(3)};
  frame.shared = thread->getArg(4);
  frame.layout = shared_layout(kernel);
  const std::vector<llvm::Value*> params = arguments_of(*thread, 5);
  FunctionEmitter(module, kernel, *thread, params, &frame).emit_body();

  auto* block_type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr, ptr, ptr}, false);
  llvm::Function* block = llvm::Function::Create(block_type, llvm::Function::ExternalLinkage,
                                                 block_symbol(kernel.name), module.module());
  llvm::Value* block_context = block->getArg(0);
  llvm::Value* shared = block->getArg(2);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", block));
  if (frame.layout.bytes > 0) {
    b.CreateMemSet(shared, b.getInt8(0), frame.layout.bytes, llvm::MaybeAlign(kSharedAlignment));
  }
  const std::vector<llvm::Value*> values = unpack_arguments(b, block->getArg(1), types);
  std::array<llvm::Value*, 3> block_dim{};
  for (unsigned axis = 0; axis < 3; ++axis) {
    llvm::Value* field = b.CreateConstInBoundsGEP1_32(i32, block_context, 3 + axis);
    block_dim[axis] = b.CreateLoad(i32, field, "block_dim");
  }
  counted_loop(b, block_dim[2], "tz", [&](llvm::Value* tz) {
    counted_loop(b, block_dim[1], "ty", [&](llvm::Value* ty) {
      counted_loop(b, block_dim[0], "tx", [&](llvm::Value* tx) {
        std::vector<llvm::Value*> args = {block_context, tx, ty, tz, shared};
        args.insert(args.end(), values.begin(), values.end());
        b.CreateCall(thread, args);
      });
    });
  });
  b.CreateRetVoid();
}

}  // namespace augur::cpu
