// Emits the body of one IR function into an LLVM function: statements in
// codegen_function.cpp, expressions in codegen_expr.cpp.
//
// Variables (parameters and locals) live in allocas of the entry block, which
// mem2reg/SROA promote at O1 and above. Control flow is structured, so the
// statements after a break, continue or return in a block are dead and are not
// emitted.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "jit/cpu/abi.h"
#include "jit/cpu/codegen_module.h"
#include "runtime/ir/ir.h"

namespace augur::cpu {

// Where a kernel's thread function finds its GPU indices and shared arrays.
struct KernelFrame {
  llvm::Value* context = nullptr;  // const BlockContext*
  std::array<llvm::Value*, 3> thread_idx{};
  llvm::Value* shared = nullptr;  // the block's shared memory
  SharedLayout layout;
};

class FunctionEmitter {
 public:
  // `params` are the LLVM values bound to the IR parameters, in order; `kernel`
  // is set for the thread function of a kernel.
  FunctionEmitter(ModuleEmitter& module, const ir::Function& function, llvm::Function& target,
                  std::span<llvm::Value* const> params, const KernelFrame* kernel);

  void emit_body();

 private:
  // ------------------------------------------------------------ statements
  void emit_block(const ir::Block& block, std::string_view segment);
  void emit_stmt(const ir::Stmt& stmt);
  void emit_if(const ir::Stmt& stmt);
  void emit_loop(const ir::Stmt& stmt);
  void emit_return(const ir::Stmt& stmt);
  bool terminated();
  llvm::BasicBlock* new_block(const char* name);
  [[noreturn]] void fail(const std::string& message) const;

  // ------------------------------------------------------------ expressions
  llvm::Value* emit(const ir::Expr& expr);
  llvm::Value* emit_unary(const ir::Expr& expr);
  llvm::Value* emit_binary(const ir::Expr& expr);
  llvm::Value* emit_logical(const ir::Expr& expr);
  llvm::Value* emit_select(const ir::Expr& expr);
  llvm::Value* emit_cast(ir::Type to, const ir::Expr& operand);
  llvm::Value* emit_call(const ir::Expr& expr);
  llvm::Value* emit_math(const ir::Expr& expr);
  llvm::Value* float_min_max(bool is_min, llvm::Value* lhs, llvm::Value* rhs);
  llvm::Value* emit_gpu_index(const ir::Expr& expr);
  llvm::Value* emit_atomic(const ir::Expr& expr);
  llvm::Value* compare(ir::BinaryOp op, ir::Type type, llvm::Value* lhs, llvm::Value* rhs);
  llvm::Value* arithmetic(ir::BinaryOp op, ir::Type type, llvm::Value* lhs, llvm::Value* rhs);
  // The address of pointer[index], the index extended to 64 bits by its type.
  llvm::Value* element_address(const ir::Expr& pointer, const ir::Expr& index);
  llvm::Value* offset_pointer(ir::Type pointer_type, llvm::Value* pointer, llvm::Value* index,
                              ir::Type index_type, bool negate);
  llvm::Value* read(ir::VarId var);
  llvm::Value* variable_slot(ir::VarId var) const;

  ModuleEmitter& module_;
  const ir::Function& function_;
  llvm::LLVMContext& context_;
  llvm::Function& target_;
  const KernelFrame* kernel_;
  llvm::IRBuilder<> b_;
  std::vector<llvm::Value*> slots_;  // by VarId: an alloca, or a Shared array's address

  struct Loop {
    llvm::BasicBlock* exit;  // break
    llvm::BasicBlock* next;  // continue: the condition, or a for loop's step
  };
  std::vector<Loop> loops_;

  // The statement path being emitted, for messages ("body[2].then[0]").
  struct PathSegment {
    std::string_view name;
    std::size_t index;
  };
  std::vector<PathSegment> path_;
};

}  // namespace augur::cpu
