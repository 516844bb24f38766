// Expressions. Operands are evaluated left to right; `&&`, `||` and `?:`
// evaluate only what they need, with branches unless the skipped operand can be
// evaluated for nothing, where a select does (speculation.h).
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include "jit/cpu/codegen_function.h"
#include "jit/cpu/codegen_types.h"
#include "jit/cpu/speculation.h"
#include "runtime/ir/visit.h"

namespace augur::cpu {

namespace {

// Operands evaluated in branches of their own nest at most this deep: each
// level is a few native frames (docs/cpu.md), and compiles may run on
// background threads with small stacks.
constexpr int kMaxLazyNesting = 1000;

// The field of BlockContext a GPU index reads (BlockContext is three int32[3]).
unsigned context_field(ir::GpuIndex which) {
  switch (which) {
    case ir::GpuIndex::GridDim:
      return 0;
    case ir::GpuIndex::BlockDim:
      return 1;
    default:
      return 2;
  }
}

}  // namespace

llvm::Value* FunctionEmitter::emit(const ir::Expr& root) {
  // Post-order over the eager operands, on stacks of our own: expressions may
  // be as tall as a staged program makes them.
  struct Frame {
    const ir::Expr* e;
    std::size_t next;   // the next eager operand to visit
    std::size_t eager;  // how many operands are eager
    std::size_t base;   // where its operands' values start in `values`
  };
  std::vector<Frame> stack{{&root, 0, speculation_.eager_operands(root), 0}};
  std::vector<llvm::Value*> values;
  while (true) {
    Frame& top = stack.back();
    if (top.next < top.eager) {
      const ir::Expr& operand = *top.e->args[top.next++];
      stack.push_back({&operand, 0, speculation_.eager_operands(operand), values.size()});
      continue;
    }
    const std::size_t base = top.base;
    llvm::Value* value = emit_node(*top.e, std::span(values).subspan(base));
    stack.pop_back();
    values.resize(base);
    if (stack.empty()) return value;
    values.push_back(value);
  }
}

llvm::Value* FunctionEmitter::emit_lazy(const ir::Expr& expr) {
  if (lazy_depth_ >= kMaxLazyNesting)
    fail("operands of '&&', '||' and '?:' that need branches of their own nest more than " +
         std::to_string(kMaxLazyNesting) + " deep");
  ++lazy_depth_;
  llvm::Value* value = emit(expr);
  --lazy_depth_;
  return value;
}

llvm::Value* FunctionEmitter::emit_node(const ir::Expr& expr,
                                        std::span<llvm::Value* const> operands) {
  switch (expr.kind) {
    case ir::ExprKind::Const:
      return constant_of(context_, expr.type, expr.bits);
    case ir::ExprKind::Var:
      return read(expr.var);
    case ir::ExprKind::Unary:
      return emit_unary(expr, operands[0]);
    case ir::ExprKind::Binary:
      if (expr.binary_op() == ir::BinaryOp::And || expr.binary_op() == ir::BinaryOp::Or)
        return emit_logical(expr, operands);
      return emit_binary(expr, operands[0], operands[1]);
    case ir::ExprKind::Select:
      return emit_select(expr, operands);
    case ir::ExprKind::Cast:
      return emit_cast(expr.args.at(0)->type, expr.type, operands[0]);
    case ir::ExprKind::Load: {
      llvm::Value* address =
          element_address(expr.args.at(0)->type, operands[0], operands[1], expr.args.at(1)->type);
      llvm::Value* value =
          b_.CreateAlignedLoad(memory_type(context_, expr.type), address, llvm::Align(1));
      return expr.type.is_bool() ? b_.CreateTrunc(value, b_.getInt1Ty()) : value;
    }
    case ir::ExprKind::Call:
      return emit_call(expr, operands);
    case ir::ExprKind::Math:
      return emit_math(expr, operands);
    case ir::ExprKind::GpuIndex:
      return emit_gpu_index(expr);
    case ir::ExprKind::Atomic:
      return emit_atomic(expr, operands);
    case ir::ExprKind::Table:
      return module_.table_global(expr.table);
  }
  fail("unknown expression kind");
}

llvm::Value* FunctionEmitter::read(ir::VarId var) {
  llvm::Value* slot = variable_slot(var);
  const ir::Variable& variable = function_.var(var);
  if (variable.kind == ir::VarKind::Shared) return slot;
  return b_.CreateLoad(register_type(context_, variable.type), slot, variable.name);
}

llvm::Value* FunctionEmitter::emit_unary(const ir::Expr& expr, llvm::Value* operand) {
  switch (expr.unary_op()) {
    case ir::UnaryOp::Neg:
      return expr.type.is_float() ? b_.CreateFNeg(operand) : b_.CreateNeg(operand);
    case ir::UnaryOp::BitNot:
    case ir::UnaryOp::Not:
      return b_.CreateNot(operand);
  }
  fail("unknown unary operator");
}

llvm::Value* FunctionEmitter::emit_binary(const ir::Expr& expr, llvm::Value* lhs,
                                          llvm::Value* rhs) {
  const ir::BinaryOp op = expr.binary_op();
  const ir::Expr& lhs_expr = *expr.args.at(0);
  const ir::Expr& rhs_expr = *expr.args.at(1);
  if (ir::is_comparison(op)) return compare(op, lhs_expr.type, lhs, rhs);
  if (lhs_expr.type.is_pointer()) {
    if (op != ir::BinaryOp::Add && op != ir::BinaryOp::Sub) fail("arithmetic on a pointer");
    return offset_pointer(lhs_expr.type, lhs, rhs, rhs_expr.type, op == ir::BinaryOp::Sub);
  }
  return arithmetic(op, lhs_expr.type, lhs, rhs);
}

llvm::Value* FunctionEmitter::arithmetic(ir::BinaryOp op, ir::Type type, llvm::Value* lhs,
                                         llvm::Value* rhs) {
  using ir::BinaryOp;
  if (type.is_float()) {
    switch (op) {
      case BinaryOp::Add:
        return b_.CreateFAdd(lhs, rhs);
      case BinaryOp::Sub:
        return b_.CreateFSub(lhs, rhs);
      case BinaryOp::Mul:
        return b_.CreateFMul(lhs, rhs);
      case BinaryOp::Div:
        return b_.CreateFDiv(lhs, rhs);
      case BinaryOp::Rem:
        return b_.CreateFRem(lhs, rhs);
      default:
        fail("operator '" + std::string(ir::name_of(op)) + "' on floats");
    }
  }
  const bool is_signed = type.is_signed();
  // Integer arithmetic wraps: no nsw/nuw anywhere.
  switch (op) {
    case BinaryOp::Add:
      return b_.CreateAdd(lhs, rhs);
    case BinaryOp::Sub:
      return b_.CreateSub(lhs, rhs);
    case BinaryOp::Mul:
      return b_.CreateMul(lhs, rhs);
    case BinaryOp::Div:
      return is_signed ? b_.CreateSDiv(lhs, rhs) : b_.CreateUDiv(lhs, rhs);
    case BinaryOp::Rem:
      return is_signed ? b_.CreateSRem(lhs, rhs) : b_.CreateURem(lhs, rhs);
    case BinaryOp::BitAnd:
      return b_.CreateAnd(lhs, rhs);
    case BinaryOp::BitOr:
      return b_.CreateOr(lhs, rhs);
    case BinaryOp::BitXor:
      return b_.CreateXor(lhs, rhs);
    case BinaryOp::Shl:
    case BinaryOp::Shr: {
      // The count is taken modulo the width, so no shift is ever poison.
      llvm::Value* count =
          b_.CreateAnd(rhs, llvm::ConstantInt::get(rhs->getType(), type.bits() - 1));
      if (op == BinaryOp::Shl) return b_.CreateShl(lhs, count);
      return is_signed ? b_.CreateAShr(lhs, count) : b_.CreateLShr(lhs, count);
    }
    default:
      fail("operator '" + std::string(ir::name_of(op)) + "' on " + type.name());
  }
}

llvm::Value* FunctionEmitter::compare(ir::BinaryOp op, ir::Type type, llvm::Value* lhs,
                                      llvm::Value* rhs) {
  using ir::BinaryOp;
  using P = llvm::CmpInst::Predicate;
  if (type.is_float()) {
    // Ordered predicates: any comparison with NaN is false, except != (unordered).
    static constexpr P kFloat[] = {P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OLT,
                                   P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE};
    return b_.CreateFCmp(kFloat[static_cast<int>(op) - static_cast<int>(BinaryOp::Eq)], lhs, rhs);
  }
  static constexpr P kSigned[] = {P::ICMP_EQ,  P::ICMP_NE,  P::ICMP_SLT,
                                  P::ICMP_SLE, P::ICMP_SGT, P::ICMP_SGE};
  static constexpr P kUnsigned[] = {P::ICMP_EQ,  P::ICMP_NE,  P::ICMP_ULT,
                                    P::ICMP_ULE, P::ICMP_UGT, P::ICMP_UGE};
  const int i = static_cast<int>(op) - static_cast<int>(BinaryOp::Eq);
  return b_.CreateICmp(type.is_signed() ? kSigned[i] : kUnsigned[i], lhs, rhs);
}

llvm::Value* FunctionEmitter::emit_logical(const ir::Expr& expr,
                                           std::span<llvm::Value* const> operands) {
  const bool is_and = expr.binary_op() == ir::BinaryOp::And;
  llvm::Value* lhs = operands[0];
  if (operands.size() == 2) {
    llvm::Value* rhs = operands[1];
    return is_and ? b_.CreateLogicalAnd(lhs, rhs) : b_.CreateLogicalOr(lhs, rhs);
  }
  const ir::Expr& rhs_expr = *expr.args.at(1);
  llvm::BasicBlock* lhs_end = b_.GetInsertBlock();
  llvm::BasicBlock* rhs_block = new_block(is_and ? "and.rhs" : "or.rhs");
  llvm::BasicBlock* merge = new_block(is_and ? "and.end" : "or.end");
  if (is_and) {
    b_.CreateCondBr(lhs, rhs_block, merge);
  } else {
    b_.CreateCondBr(lhs, merge, rhs_block);
  }
  b_.SetInsertPoint(rhs_block);
  llvm::Value* rhs = emit_lazy(rhs_expr);
  llvm::BasicBlock* rhs_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(b_.getInt1Ty(), 2);
  phi->addIncoming(is_and ? b_.getFalse() : b_.getTrue(), lhs_end);
  phi->addIncoming(rhs, rhs_end);
  return phi;
}

llvm::Value* FunctionEmitter::emit_select(const ir::Expr& expr,
                                          std::span<llvm::Value* const> operands) {
  llvm::Value* cond = operands[0];
  if (operands.size() == 3) return b_.CreateSelect(cond, operands[1], operands[2]);
  const ir::Expr& then_expr = *expr.args.at(1);
  const ir::Expr& else_expr = *expr.args.at(2);
  llvm::BasicBlock* then_block = new_block("select.then");
  llvm::BasicBlock* else_block = new_block("select.else");
  llvm::BasicBlock* merge = new_block("select.end");
  b_.CreateCondBr(cond, then_block, else_block);
  b_.SetInsertPoint(then_block);
  llvm::Value* then_value = emit_lazy(then_expr);
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(else_block);
  llvm::Value* else_value = emit_lazy(else_expr);
  llvm::BasicBlock* else_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(register_type(context_, expr.type), 2);
  phi->addIncoming(then_value, then_end);
  phi->addIncoming(else_value, else_end);
  return phi;
}

llvm::Value* FunctionEmitter::emit_cast(ir::Type from, ir::Type to, llvm::Value* value) {
  if (from == to) return value;
  llvm::Type* target = register_type(context_, to);
  if (from.is_pointer() || to.is_pointer()) {
    if (from.is_pointer() && to.is_pointer()) return value;  // opaque pointers
    return from.is_pointer() ? b_.CreatePtrToInt(value, target) : b_.CreateIntToPtr(value, target);
  }
  if (to.is_bool()) {
    if (from.is_float()) return b_.CreateFCmpUNE(value, llvm::ConstantFP::get(value->getType(), 0));
    return b_.CreateICmpNE(value, llvm::ConstantInt::get(value->getType(), 0));
  }
  if (from.is_bool()) {
    return to.is_float() ? b_.CreateUIToFP(value, target) : b_.CreateZExt(value, target);
  }
  if (from.is_integer() && to.is_integer()) {
    return from.is_signed() ? b_.CreateSExtOrTrunc(value, target)
                            : b_.CreateZExtOrTrunc(value, target);
  }
  if (from.is_integer()) {
    return from.is_signed() ? b_.CreateSIToFP(value, target) : b_.CreateUIToFP(value, target);
  }
  if (to.is_integer()) {
    // Saturating, NaN to 0, as docs/ir.md (and PTX cvt.rzi) define it.
    const llvm::Intrinsic::ID id =
        to.is_signed() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b_.CreateIntrinsic(id, {target, value->getType()}, {value});
  }
  return to.bits() > from.bits() ? b_.CreateFPExt(value, target) : b_.CreateFPTrunc(value, target);
}

llvm::Value* FunctionEmitter::emit_call(const ir::Expr& expr, std::span<llvm::Value* const> args) {
  if (!expr.callee) fail("call without a callee");
  llvm::Function* callee = module_.extern_function(*expr.callee);
  llvm::CallInst* call = b_.CreateCall(callee, llvm::ArrayRef(args.data(), args.size()));
  call->setAttributes(callee->getAttributes());
  return call;
}

llvm::Value* FunctionEmitter::emit_math(const ir::Expr& expr, std::span<llvm::Value* const> args) {
  if (args.size() != ir::arity(expr.math_op()))
    fail("wrong number of operands to a math intrinsic");
  const ir::Type type = expr.type;
  llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
  switch (expr.math_op()) {
    case ir::MathOp::Sqrt:
      id = llvm::Intrinsic::sqrt;
      break;
    case ir::MathOp::Fabs:
      id = llvm::Intrinsic::fabs;
      break;
    case ir::MathOp::Floor:
      id = llvm::Intrinsic::floor;
      break;
    case ir::MathOp::Exp:
      id = llvm::Intrinsic::exp;
      break;
    case ir::MathOp::Log:
      id = llvm::Intrinsic::log;
      break;
    case ir::MathOp::Pow:
      id = llvm::Intrinsic::pow;
      break;
    case ir::MathOp::Fma:
      id = llvm::Intrinsic::fma;
      break;
    case ir::MathOp::Min:
      if (type.is_float()) return float_min_max(true, args[0], args[1]);
      id = type.is_signed() ? llvm::Intrinsic::smin : llvm::Intrinsic::umin;
      break;
    case ir::MathOp::Max:
      if (type.is_float()) return float_min_max(false, args[0], args[1]);
      id = type.is_signed() ? llvm::Intrinsic::smax : llvm::Intrinsic::umax;
      break;
  }
  return b_.CreateIntrinsic(id, {register_type(context_, type)},
                            llvm::ArrayRef(args.data(), args.size()));
}

// minNum/maxNum (a NaN operand yields the other operand), with -0 < +0 so that
// the result does not depend on operand order: llvm.minnum leaves the sign of
// min(+0, -0) open. Equal operands have equal bits except for zeros, where OR
// of the bits picks -0 (min) and AND picks +0 (max).
llvm::Value* FunctionEmitter::float_min_max(bool is_min, llvm::Value* lhs, llvm::Value* rhs) {
  llvm::Value* ordered = b_.CreateBinaryIntrinsic(
      is_min ? llvm::Intrinsic::minnum : llvm::Intrinsic::maxnum, lhs, rhs);
  llvm::Type* bits_type = b_.getIntNTy(lhs->getType()->getPrimitiveSizeInBits());
  llvm::Value* lhs_bits = b_.CreateBitCast(lhs, bits_type);
  llvm::Value* rhs_bits = b_.CreateBitCast(rhs, bits_type);
  llvm::Value* merged = is_min ? b_.CreateOr(lhs_bits, rhs_bits) : b_.CreateAnd(lhs_bits, rhs_bits);
  return b_.CreateSelect(b_.CreateFCmpOEQ(lhs, rhs), b_.CreateBitCast(merged, lhs->getType()),
                         ordered);
}

llvm::Value* FunctionEmitter::emit_gpu_index(const ir::Expr& expr) {
  if (!kernel_) fail("GPU index outside a kernel");
  if (expr.axis > 2) fail("GPU index axis out of range");
  if (expr.gpu_index() == ir::GpuIndex::ThreadIdx) return kernel_->thread_idx[expr.axis];
  const unsigned slot = context_field(expr.gpu_index()) * 3 + expr.axis;
  llvm::Value* address = b_.CreateConstInBoundsGEP1_32(b_.getInt32Ty(), kernel_->context, slot);
  return b_.CreateLoad(b_.getInt32Ty(), address, ir::name_of(expr.gpu_index()));
}

llvm::Value* FunctionEmitter::emit_atomic(const ir::Expr& expr,
                                          std::span<llvm::Value* const> operands) {
  const ir::AtomicOp op = expr.atomic_op();
  if (expr.args.size() != ir::arity(op)) fail("wrong number of operands to an atomic");
  llvm::Value* address =
      element_address(expr.args[0]->type, operands[0], operands[1], expr.args[1]->type);
  llvm::Value* value = operands[2];
  const ir::Type type = expr.type;
  // Atomics need their natural alignment (unaligned ones become library calls).
  const llvm::Align align(type.size());
  constexpr auto order = llvm::AtomicOrdering::SequentiallyConsistent;
  if (op == ir::AtomicOp::Cas) {
    llvm::Value* desired = operands[3];
    llvm::Value* pair = b_.CreateAtomicCmpXchg(address, value, desired, align, order, order);
    return b_.CreateExtractValue(pair, 0);
  }
  using Rmw = llvm::AtomicRMWInst::BinOp;
  Rmw rmw = Rmw::Xchg;
  switch (op) {
    case ir::AtomicOp::Add:
      rmw = type.is_float() ? Rmw::FAdd : Rmw::Add;
      break;
    case ir::AtomicOp::Min:
      rmw = type.is_signed() ? Rmw::Min : Rmw::UMin;
      break;
    case ir::AtomicOp::Max:
      rmw = type.is_signed() ? Rmw::Max : Rmw::UMax;
      break;
    default:
      break;
  }
  return b_.CreateAtomicRMW(rmw, address, value, align, order);
}

llvm::Value* FunctionEmitter::element_address(const ir::Expr& pointer, const ir::Expr& index) {
  llvm::Value* base = emit(pointer);
  llvm::Value* offset = emit(index);
  return element_address(pointer.type, base, offset, index.type);
}

llvm::Value* FunctionEmitter::element_address(ir::Type pointer_type, llvm::Value* pointer,
                                              llvm::Value* index, ir::Type index_type) {
  if (!pointer_type.is_pointer()) fail("indexing a non-pointer");
  return offset_pointer(pointer_type, pointer, index, index_type, false);
}

llvm::Value* FunctionEmitter::offset_pointer(ir::Type pointer_type, llvm::Value* pointer,
                                             llvm::Value* index, ir::Type index_type, bool negate) {
  llvm::Value* wide = index_type.is_signed() ? b_.CreateSExt(index, b_.getInt64Ty())
                                             : b_.CreateZExt(index, b_.getInt64Ty());
  if (negate) wide = b_.CreateNeg(wide);
  // No inbounds: IR pointer arithmetic may leave any object; the address wraps.
  return b_.CreateGEP(memory_type(context_, pointer_type.pointee()), pointer, wide);
}

}  // namespace augur::cpu
