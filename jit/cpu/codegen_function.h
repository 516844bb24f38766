// Emits the body of one IR function into an LLVM function: statements in
// codegen_function.cpp, expressions in codegen_expr.cpp.
//
// Variables (parameters and locals) live in allocas of the entry block, which
// mem2reg/SROA promote at O1 and above. Control flow is structured, so the
// statements after a break, continue or return in a block are dead and are not
// emitted.
//
// With a split plan (split_plan.h), the statements of each part become a call
// of the part's function instead (codegen_part.cpp), and an emitter for a part
// emits that function: the part's statements, its variables copied in from
// its arguments and out at its one exit, and its break, continue and return
// of what lies outside it as the status it returns.
#pragma once

#include <array>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "jit/cpu/abi.h"
#include "jit/cpu/codegen_module.h"
#include "jit/cpu/speculation.h"
#include "jit/cpu/split_plan.h"
#include "runtime/ir/ir.h"
#include "runtime/ir/range_switch.h"

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
                  std::span<llvm::Value* const> params, const KernelFrame* kernel,
                  const FunctionPlan* plan = nullptr);
  // The emitter of `part`'s function, `target` (ModuleEmitter::part_function).
  FunctionEmitter(ModuleEmitter& module, const FunctionPlan& plan, const Part& part,
                  llvm::Function& target);

  void emit_body();
  void emit_part_body();

 private:
  // ------------------------------------------------------------ statements
  void emit_block(const ir::Block& block, std::string_view segment);
  void emit_stmt(const ir::Stmt& stmt);
  void emit_if(const ir::Stmt& stmt);
  // A tree of ifs on one variable's ranges as one switch (range_switch.h).
  void emit_range_switch(const ir::RangeSwitch& tree);
  void emit_loop(const ir::Stmt& stmt);
  void emit_return(const ir::Stmt& stmt);
  void emit_loop_exit(PartExit exit, std::uint32_t levels = 1);
  void return_value(llvm::Value* value);
  // Calls the function of `part` and acts on the status it returns.
  void emit_part_call(const Part& part);
  // Leaves the part being emitted with `exit` (codegen_part.cpp).
  void leave_part(PartExit exit, std::uint32_t levels = 1);
  llvm::AllocaInst* entry_alloca(llvm::Type* type, const llvm::Twine& name);
  bool terminated();
  llvm::BasicBlock* new_block(const char* name);
  [[noreturn]] void fail(const std::string& message) const;

  // ------------------------------------------------------------ expressions
  // Iterative over the operands evaluated unconditionally; the operands of
  // `&&`, `||` and `?:` evaluated in branches of their own nest at most
  // kMaxLazyNesting deep (docs/cpu.md).
  llvm::Value* emit(const ir::Expr& expr);
  // One node, given its eager operands' values.
  llvm::Value* emit_node(const ir::Expr& expr, std::span<llvm::Value* const> operands);
  // An operand evaluated in a branch of its own.
  llvm::Value* emit_lazy(const ir::Expr& expr);
  llvm::Value* emit_unary(const ir::Expr& expr, llvm::Value* operand);
  llvm::Value* emit_binary(const ir::Expr& expr, llvm::Value* lhs, llvm::Value* rhs);
  llvm::Value* emit_logical(const ir::Expr& expr, std::span<llvm::Value* const> operands);
  llvm::Value* emit_select(const ir::Expr& expr, std::span<llvm::Value* const> operands);
  llvm::Value* emit_cast(ir::Type from, ir::Type to, llvm::Value* value);
  llvm::Value* emit_call(const ir::Expr& expr, std::span<llvm::Value* const> args);
  llvm::Value* emit_math(const ir::Expr& expr, std::span<llvm::Value* const> args);
  llvm::Value* float_min_max(bool is_min, llvm::Value* lhs, llvm::Value* rhs);
  llvm::Value* emit_gpu_index(const ir::Expr& expr);
  llvm::Value* emit_atomic(const ir::Expr& expr, std::span<llvm::Value* const> operands);
  llvm::Value* compare(ir::BinaryOp op, ir::Type type, llvm::Value* lhs, llvm::Value* rhs);
  llvm::Value* arithmetic(ir::BinaryOp op, ir::Type type, llvm::Value* lhs, llvm::Value* rhs);
  // The address of pointer[index], the index extended to 64 bits by its type.
  llvm::Value* element_address(const ir::Expr& pointer, const ir::Expr& index);
  llvm::Value* element_address(ir::Type pointer_type, llvm::Value* pointer, llvm::Value* index,
                               ir::Type index_type);
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
  llvm::BasicBlock* entry_;          // where allocas go
  int lazy_depth_ = 0;               // emit_lazy calls under way
  Speculation speculation_;          // which operands emit() evaluates first

  const FunctionPlan* plan_ = nullptr;  // null: the function is emitted whole
  // The part being emitted (null for the function itself), its one exit
  // block with the status it returns, and where its return value goes.
  const Part* part_ = nullptr;
  llvm::BasicBlock* part_exit_ = nullptr;
  llvm::PHINode* part_status_ = nullptr;
  llvm::Value* part_result_ = nullptr;
  // The caller's side of part calls: in-out slots by VarId, and where a part
  // puts the value it returns.
  std::vector<llvm::AllocaInst*> in_out_slots_;
  llvm::AllocaInst* result_slot_ = nullptr;

  struct Loop {
    llvm::BasicBlock* exit;  // break
    llvm::BasicBlock* next;  // continue: the condition, or a for loop's step
  };
  std::vector<Loop> loops_;
  // Inner ifs of trees already found not to be switches (range_switch.h).
  std::unordered_set<const ir::Stmt*> not_switches_;

  // The statement path being emitted, for messages ("body[2].then[0]").
  struct PathSegment {
    std::string_view name;
    std::size_t index;
  };
  std::vector<PathSegment> path_;
};

}  // namespace augur::cpu
