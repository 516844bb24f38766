// The parts of a split function (split_plan.h): their functions, and the
// calls that stand for them in the code around them.
//
// A part's variables live in its own allocas, so that they are promoted to
// registers inside it. The caller passes the variables the part reads by
// value, and those it assigns through an in-out slot of its own (one per
// variable, reused by every call): its variables' allocas never escape, and
// stay promotable too.
#include <llvm/IR/Constants.h>

#include "jit/cpu/abi.h"
#include "jit/cpu/codegen.h"
#include "jit/cpu/codegen_function.h"
#include "jit/cpu/codegen_types.h"

namespace augur::cpu {

llvm::Function* ModuleEmitter::part_function(const FunctionPlan& plan, const Part& part) {
  const std::string name = part_symbol(plan.function->name, part.index);
  if (llvm::Function* existing = module_.getFunction(name)) return existing;
  llvm::LLVMContext& context = module_.getContext();
  llvm::Type* ptr = llvm::PointerType::get(context, 0);
  std::vector<llvm::Type*> params;
  for (ir::VarId var : part.inputs) {
    params.push_back(register_type(context, plan.function->var(var).type));
  }
  params.insert(params.end(), part.inouts.size(), ptr);
  if (part.returns && !plan.function->ret.is_void()) params.push_back(ptr);
  llvm::Function* function = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getInt32Ty(context), params, false),
      llvm::Function::ExternalLinkage, name, module_);
  // Parts in one module stay apart: the bound on function size is the point.
  function->addFnAttr(llvm::Attribute::NoInline);
  return function;
}

FunctionEmitter::FunctionEmitter(ModuleEmitter& module, const FunctionPlan& plan, const Part& part,
                                 llvm::Function& target)
    : module_(module),
      function_(*plan.function),
      context_(module.context()),
      target_(target),
      kernel_(nullptr),
      b_(llvm::BasicBlock::Create(context_, "entry", &target)),
      entry_(b_.GetInsertBlock()),
      plan_(&plan),
      part_(&part) {
  slots_.resize(function_.vars.size(), nullptr);
  auto slot = [&](ir::VarId id) {
    const ir::Variable& var = function_.var(id);
    slots_[id.index] = b_.CreateAlloca(register_type(context_, var.type), nullptr, var.name);
    return slots_[id.index];
  };
  unsigned arg = 0;
  for (ir::VarId var : part.inputs) b_.CreateStore(target.getArg(arg++), slot(var));
  for (ir::VarId var : part.inouts) {
    llvm::Type* type = register_type(context_, function_.var(var).type);
    b_.CreateStore(b_.CreateLoad(type, target.getArg(arg++)), slot(var));
  }
  for (ir::VarId var : part.locals) slot(var);
  if (part.returns && !function_.ret.is_void()) part_result_ = target.getArg(arg);
  part_exit_ = new_block("part.exit");
  llvm::IRBuilder<> at_exit(part_exit_);
  part_status_ = at_exit.CreatePHI(b_.getInt32Ty(), 4, "status");
}

void FunctionEmitter::emit_part_body() {
  // The part's own statements, its nested parts as calls (emit_block skips
  // the part being emitted, which starts the range).
  const ir::Block& block = *part_->block;
  for (std::size_t i = part_->begin; i < part_->end && !terminated(); ++i) {
    path_.push_back({"part", i});
    const Part* nested = plan_->part_at(block[i]);
    if (nested && nested != part_) {
      emit_part_call(*nested);
      i = nested->end - 1;
    } else {
      emit_stmt(block[i]);
    }
    path_.pop_back();
  }
  if (!terminated()) leave_part(PartExit::FallThrough);
  b_.SetInsertPoint(part_exit_);
  unsigned arg = static_cast<unsigned>(part_->inputs.size());
  for (ir::VarId var : part_->inouts) {
    b_.CreateStore(read(var), target_.getArg(arg++));
  }
  b_.CreateRet(part_status_);
}

void FunctionEmitter::leave_part(PartExit exit, std::uint32_t levels) {
  if (!part_) fail("break or continue outside a loop");
  part_status_->addIncoming(b_.getInt32(exit_status(exit, levels)), b_.GetInsertBlock());
  b_.CreateBr(part_exit_);
}

void FunctionEmitter::emit_part_call(const Part& part) {
  llvm::Function* callee = module_.part_function(*plan_, part);
  std::vector<llvm::Value*> args;
  for (ir::VarId var : part.inputs) args.push_back(read(var));
  if (in_out_slots_.empty()) in_out_slots_.resize(function_.vars.size(), nullptr);
  for (ir::VarId var : part.inouts) {
    llvm::AllocaInst*& slot = in_out_slots_[var.index];
    const ir::Variable& variable = function_.var(var);
    if (!slot) slot = entry_alloca(register_type(context_, variable.type), variable.name + ".io");
    b_.CreateStore(read(var), slot);
    args.push_back(slot);
  }
  llvm::Type* ret = function_.ret.is_void() ? nullptr : register_type(context_, function_.ret);
  if (part.returns && ret) {
    if (!result_slot_) result_slot_ = entry_alloca(ret, "part.result");
    args.push_back(result_slot_);
  }
  llvm::Value* status = b_.CreateCall(callee, args);
  for (ir::VarId var : part.inouts) {
    const ir::Variable& variable = function_.var(var);
    b_.CreateStore(b_.CreateLoad(register_type(context_, variable.type), in_out_slots_[var.index]),
                   variable_slot(var));
  }
  if (!part.breaks && !part.continues && !part.returns && part.far_exits.empty()) return;
  llvm::BasicBlock* next = new_block("part.next");
  llvm::SwitchInst* exits =
      b_.CreateSwitch(status, next, 3 + static_cast<unsigned>(part.far_exits.size()));
  auto on = [&](PartExit exit, const char* name, std::uint32_t levels = 1) {
    llvm::BasicBlock* block = new_block(name);
    exits->addCase(b_.getInt32(exit_status(exit, levels)), block);
    b_.SetInsertPoint(block);
  };
  for (const FarExit& far : part.far_exits) {
    on(far.kind, far.kind == PartExit::Break ? "part.break.far" : "part.continue.far", far.levels);
    emit_loop_exit(far.kind, far.levels);
  }
  if (part.breaks) {
    on(PartExit::Break, "part.break");
    emit_loop_exit(PartExit::Break);
  }
  if (part.continues) {
    on(PartExit::Continue, "part.continue");
    emit_loop_exit(PartExit::Continue);
  }
  if (part.returns) {
    on(PartExit::Return, "part.return");
    return_value(ret ? b_.CreateLoad(ret, result_slot_) : nullptr);
  }
  b_.SetInsertPoint(next);
}

std::unique_ptr<llvm::Module> generate_parts(std::span<const PartRef> parts,
                                             llvm::LLVMContext& context,
                                             const llvm::DataLayout& layout,
                                             const llvm::Triple& triple, std::string_view label) {
  std::unique_ptr<llvm::Module> result = empty_module(context, layout, triple, label);
  ModuleEmitter emitter(*result);
  for (const PartRef& ref : parts) {
    llvm::Function* function = emitter.part_function(*ref.plan, *ref.part);
    FunctionEmitter(emitter, *ref.plan, *ref.part, *function).emit_part_body();
  }
  return result;
}

}  // namespace augur::cpu
