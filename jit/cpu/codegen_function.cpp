#include "jit/cpu/codegen_function.h"

#include <llvm/IR/Constants.h>

#include "jit/cpu/codegen_types.h"
#include "jit/error.h"

namespace augur::cpu {

FunctionEmitter::FunctionEmitter(ModuleEmitter& module, const ir::Function& function,
                                 llvm::Function& target, std::span<llvm::Value* const> params,
                                 const KernelFrame* kernel, const FunctionPlan* plan)
    : module_(module),
      function_(function),
      context_(module.context()),
      target_(target),
      kernel_(kernel),
      b_(llvm::BasicBlock::Create(context_, "entry", &target)),
      entry_(b_.GetInsertBlock()),
      plan_(plan && plan->split() ? plan : nullptr) {
  if (params.size() != function.num_params) fail("parameter count mismatch");
  slots_.resize(function.vars.size(), nullptr);
  for (std::size_t i = 0; i < function.vars.size(); ++i) {
    const ir::Variable& var = function.vars[i];
    if (var.kind == ir::VarKind::Shared) {
      if (!kernel_) fail("shared array '" + var.name + "' outside a kernel");
      slots_[i] = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), kernel_->shared,
                                                kernel_->layout.offsets[i], var.name);
      continue;
    }
    if (!var.type.is_value()) fail("variable '" + var.name + "' has type void");
    slots_[i] = b_.CreateAlloca(register_type(context_, var.type), nullptr, var.name);
  }
  for (std::size_t i = 0; i < params.size(); ++i) b_.CreateStore(params[i], slots_[i]);
}

void FunctionEmitter::emit_body() {
  emit_block(function_.body, "body");
  if (terminated()) return;
  if (function_.ret.is_void()) {
    b_.CreateRetVoid();
  } else {
    // The verifier guarantees a return on every path, so this point is unreachable.
    b_.CreateUnreachable();
  }
}

void FunctionEmitter::emit_block(const ir::Block& block, std::string_view segment) {
  for (std::size_t i = 0; i < block.size(); ++i) {
    if (terminated()) return;  // the rest of the block is dead
    path_.push_back({segment, i});
    const Part* part = plan_ ? plan_->part_at(block[i]) : nullptr;
    if (part && part != part_) {
      emit_part_call(*part);
      i = part->end - 1;
    } else {
      emit_stmt(block[i]);
    }
    path_.pop_back();
  }
}

void FunctionEmitter::emit_stmt(const ir::Stmt& stmt) {
  switch (stmt.kind) {
    case ir::StmtKind::Decl: {
      const ir::Variable& var = function_.var(stmt.var);
      if (var.kind == ir::VarKind::Shared) return;  // zeroed at block start
      llvm::Value* init = stmt.expr
                              ? emit(*stmt.expr)
                              : llvm::Constant::getNullValue(register_type(context_, var.type));
      b_.CreateStore(init, variable_slot(stmt.var));
      return;
    }
    case ir::StmtKind::Assign: {
      llvm::Value* value = emit(*stmt.expr);
      b_.CreateStore(value, variable_slot(stmt.var));
      return;
    }
    case ir::StmtKind::Store: {
      llvm::Value* address = element_address(*stmt.ptr, *stmt.index);
      llvm::Value* value = emit(*stmt.expr);
      if (stmt.expr->type.is_bool()) value = b_.CreateZExt(value, b_.getInt8Ty());
      b_.CreateAlignedStore(value, address, llvm::Align(1));
      return;
    }
    case ir::StmtKind::Eval:
      emit(*stmt.expr);
      return;
    case ir::StmtKind::If:
      emit_if(stmt);
      return;
    case ir::StmtKind::While:
    case ir::StmtKind::For:
      emit_loop(stmt);
      return;
    case ir::StmtKind::Break:
    case ir::StmtKind::Continue:
      if (loops_.empty() && !part_) fail(std::string(ir::name_of(stmt.kind)) + " outside a loop");
      if (stmt.levels == 0 || (stmt.levels > loops_.size() && !part_)) {
        fail(std::string(ir::name_of(stmt.kind)) + " " + std::to_string(stmt.levels) +
             " leaves more loops than enclose it");
      }
      emit_loop_exit(stmt.kind == ir::StmtKind::Break ? PartExit::Break : PartExit::Continue,
                     stmt.levels);
      return;
    case ir::StmtKind::Return:
      emit_return(stmt);
      return;
    case ir::StmtKind::Barrier:
      fail("the CPU backend does not support barrier yet");
  }
  fail("unknown statement kind");
}

void FunctionEmitter::emit_if(const ir::Stmt& stmt) {
  if (!not_switches_.contains(&stmt)) {
    ir::RangeSwitchMatch tree = ir::match_range_switch(stmt, [this](const ir::Stmt& s) {
      const Part* part = plan_ ? plan_->part_at(s) : nullptr;
      return part && part != part_;
    });
    if (tree.found) {
      emit_range_switch(*tree.found);
      return;
    }
    not_switches_.insert(tree.inner.begin(), tree.inner.end());
  }
  llvm::Value* cond = emit(*stmt.expr);
  llvm::BasicBlock* then_block = new_block("then");
  llvm::BasicBlock* else_block = stmt.orelse.empty() ? nullptr : new_block("else");
  llvm::BasicBlock* merge = new_block("endif");
  b_.CreateCondBr(cond, then_block, else_block ? else_block : merge);

  b_.SetInsertPoint(then_block);
  emit_block(stmt.body, "then");
  if (!terminated()) b_.CreateBr(merge);
  if (else_block) {
    b_.SetInsertPoint(else_block);
    emit_block(stmt.orelse, "else");
    if (!terminated()) b_.CreateBr(merge);
  }
  if (merge->hasNPredecessors(0)) {
    // Both branches left: what follows the `if` in this block is dead, and the
    // insertion point stays in a terminated block so that emit_block stops.
    merge->eraseFromParent();
    return;
  }
  b_.SetInsertPoint(merge);
}

void FunctionEmitter::emit_range_switch(const ir::RangeSwitch& tree) {
  llvm::Value* value = read(tree.var);
  llvm::IntegerType* type = llvm::cast<llvm::IntegerType>(value->getType());
  std::vector<llvm::BasicBlock*> cases;
  cases.reserve(tree.leaves.size());
  for (std::size_t i = 0; i < tree.leaves.size(); ++i) cases.push_back(new_block("case"));
  llvm::BasicBlock* merge = new_block("endswitch");
  if (tree.below) {
    llvm::BasicBlock* rest = new_block("switch");
    llvm::Value* low = llvm::ConstantInt::get(type, tree.low_bound);
    b_.CreateCondBr(
        tree.type.is_signed() ? b_.CreateICmpSLT(value, low) : b_.CreateICmpULT(value, low),
        cases[*tree.below], rest);
    b_.SetInsertPoint(rest);
  }
  llvm::SwitchInst* dispatch =
      b_.CreateSwitch(value, cases[tree.default_leaf], static_cast<unsigned>(tree.cases.size()));
  for (const ir::RangeSwitch::Case& c : tree.cases) {
    dispatch->addCase(llvm::ConstantInt::get(type, c.value), cases[c.leaf]);
  }
  for (std::size_t i = 0; i < tree.leaves.size(); ++i) {
    const ir::RangeLeaf& leaf = tree.leaves[i];
    b_.SetInsertPoint(cases[i]);
    // The path the if tree would give it: each inner if is its branch's first statement.
    const std::size_t levels = leaf.path.size() - 1;
    for (std::size_t level = 0; level < levels; ++level) {
      path_.push_back({leaf.path[level] ? "else" : "then", 0});
    }
    emit_block(*leaf.block, leaf.path.back() ? "else" : "then");
    path_.resize(path_.size() - levels);
    if (!terminated()) b_.CreateBr(merge);
  }
  if (merge->hasNPredecessors(0)) {
    merge->eraseFromParent();  // every leaf left: as in emit_if
    return;
  }
  b_.SetInsertPoint(merge);
}

void FunctionEmitter::emit_loop(const ir::Stmt& stmt) {
  const bool is_for = stmt.kind == ir::StmtKind::For;
  if (is_for) emit_block(stmt.init, "init");
  llvm::BasicBlock* header = new_block(is_for ? "for.cond" : "while.cond");
  llvm::BasicBlock* body = new_block(is_for ? "for.body" : "while.body");
  llvm::BasicBlock* step = is_for ? new_block("for.step") : header;
  llvm::BasicBlock* exit = new_block(is_for ? "for.end" : "while.end");
  b_.CreateBr(header);

  b_.SetInsertPoint(header);
  b_.CreateCondBr(emit(*stmt.expr), body, exit);

  b_.SetInsertPoint(body);
  loops_.push_back({exit, step});
  emit_block(stmt.body, "body");
  loops_.pop_back();
  if (!terminated()) b_.CreateBr(step);

  if (is_for) {
    b_.SetInsertPoint(step);
    emit_block(stmt.step, "step");
    if (!terminated()) b_.CreateBr(header);
  }
  b_.SetInsertPoint(exit);
}

void FunctionEmitter::emit_return(const ir::Stmt& stmt) {
  if (!stmt.expr) {
    if (!function_.ret.is_void()) fail("return without a value in a non-void function");
    return_value(nullptr);
    return;
  }
  if (function_.ret.is_void()) fail("return with a value in a void function");
  return_value(emit(*stmt.expr));
}

// Jumps to the exit or next iteration of the loop `levels` out; in a part, a
// loop around the part is its caller's to take.
void FunctionEmitter::emit_loop_exit(PartExit exit, std::uint32_t levels) {
  if (levels > loops_.size()) {
    leave_part(exit, levels - static_cast<std::uint32_t>(loops_.size()));
    return;
  }
  const Loop& target = loops_[loops_.size() - levels];
  b_.CreateBr(exit == PartExit::Break ? target.exit : target.next);
}

// `value` is null in a void function.
void FunctionEmitter::return_value(llvm::Value* value) {
  if (part_) {
    if (value) b_.CreateStore(value, part_result_);
    leave_part(PartExit::Return);
  } else if (value) {
    b_.CreateRet(value);
  } else {
    b_.CreateRetVoid();
  }
}

llvm::AllocaInst* FunctionEmitter::entry_alloca(llvm::Type* type, const llvm::Twine& name) {
  llvm::IRBuilder<> at_entry(entry_, entry_->getFirstInsertionPt());
  return at_entry.CreateAlloca(type, nullptr, name);
}

bool FunctionEmitter::terminated() {
  return b_.GetInsertBlock()->getTerminator() != nullptr;
}

llvm::BasicBlock* FunctionEmitter::new_block(const char* name) {
  return llvm::BasicBlock::Create(context_, name, &target_);
}

llvm::Value* FunctionEmitter::variable_slot(ir::VarId var) const {
  if (var.index >= slots_.size()) fail("variable id out of range");
  if (!slots_[var.index]) fail("variable '" + function_.var(var).name + "' is not in this part");
  return slots_[var.index];
}

void FunctionEmitter::fail(const std::string& message) const {
  std::string path;
  for (const PathSegment& segment : path_) {
    if (!path.empty()) path += '.';
    path += std::string(segment.name) + "[" + std::to_string(segment.index) + "]";
  }
  throw jit::compile_error(message, jit::location::in_function(function_.name, path));
}

}  // namespace augur::cpu
