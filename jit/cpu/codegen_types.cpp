#include "jit/cpu/codegen_types.h"

#include <llvm/ADT/APFloat.h>
#include <llvm/IR/Constants.h>

namespace augur::cpu {

llvm::Type* register_type(llvm::LLVMContext& context, ir::Type type) {
  if (type.is_pointer()) return llvm::PointerType::get(context, 0);
  switch (type.scalar()) {
    case ir::Scalar::Void:
      return llvm::Type::getVoidTy(context);
    case ir::Scalar::Bool:
      return llvm::Type::getInt1Ty(context);
    case ir::Scalar::F32:
      return llvm::Type::getFloatTy(context);
    case ir::Scalar::F64:
      return llvm::Type::getDoubleTy(context);
    default:
      return llvm::Type::getIntNTy(context, type.bits());
  }
}

llvm::Type* memory_type(llvm::LLVMContext& context, ir::Type element) {
  if (element.is_bool()) return llvm::Type::getInt8Ty(context);
  return register_type(context, element);
}

llvm::FunctionType* c_function_type(llvm::LLVMContext& context, ir::Type ret,
                                    std::span<const ir::Type> params) {
  std::vector<llvm::Type*> param_types;
  param_types.reserve(params.size());
  for (ir::Type p : params) param_types.push_back(register_type(context, p));
  return llvm::FunctionType::get(register_type(context, ret), param_types, false);
}

namespace {
// Small integers and bool are extended to 32 bits across calls; the extension
// follows the C type's signedness (bool: zero).
llvm::AttrBuilder extension(llvm::LLVMContext& context, ir::Type type) {
  llvm::AttrBuilder attrs(context);
  if (type.is_bool() || (type.is_unsigned() && type.bits() < 32)) {
    attrs.addAttribute(llvm::Attribute::ZExt);
  } else if (type.is_signed() && type.bits() < 32) {
    attrs.addAttribute(llvm::Attribute::SExt);
  }
  return attrs;
}
}  // namespace

llvm::AttributeList c_abi_attributes(llvm::LLVMContext& context, ir::Type ret,
                                     std::span<const ir::Type> params) {
  std::vector<llvm::AttributeSet> param_attrs;
  param_attrs.reserve(params.size());
  for (ir::Type p : params)
    param_attrs.push_back(llvm::AttributeSet::get(context, extension(context, p)));
  return llvm::AttributeList::get(context, llvm::AttributeSet(),
                                  llvm::AttributeSet::get(context, extension(context, ret)),
                                  param_attrs);
}

llvm::Value* from_value_bits(llvm::IRBuilder<>& b, llvm::Value* bits, ir::Type type) {
  llvm::LLVMContext& context = b.getContext();
  if (type.is_pointer()) return b.CreateIntToPtr(bits, register_type(context, type));
  switch (type.scalar()) {
    case ir::Scalar::F32:
      return b.CreateBitCast(b.CreateTrunc(bits, b.getInt32Ty()), b.getFloatTy());
    case ir::Scalar::F64:
      return b.CreateBitCast(bits, b.getDoubleTy());
    default:
      return b.CreateTrunc(bits, register_type(context, type));
  }
}

llvm::Value* to_value_bits(llvm::IRBuilder<>& b, llvm::Value* value, ir::Type type) {
  if (type.is_pointer()) return b.CreatePtrToInt(value, b.getInt64Ty());
  switch (type.scalar()) {
    case ir::Scalar::F32:
      return b.CreateZExt(b.CreateBitCast(value, b.getInt32Ty()), b.getInt64Ty());
    case ir::Scalar::F64:
      return b.CreateBitCast(value, b.getInt64Ty());
    default:
      return b.CreateZExt(value, b.getInt64Ty());
  }
}

llvm::Constant* constant_of(llvm::LLVMContext& context, ir::Type type, std::uint64_t bits) {
  llvm::Type* t = register_type(context, type);
  if (type.is_pointer()) return llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(t));
  if (type.is_float()) {
    const unsigned width = type.bits();
    const llvm::fltSemantics& semantics =
        width == 32 ? llvm::APFloat::IEEEsingle() : llvm::APFloat::IEEEdouble();
    return llvm::ConstantFP::get(context, llvm::APFloat(semantics, llvm::APInt(width, bits)));
  }
  return llvm::ConstantInt::get(t, bits);
}

}  // namespace augur::cpu
