// How IR types and values look in LLVM IR, and the C calling convention of
// functions that take and return them.
#pragma once

#include <span>

#include <llvm/IR/Attributes.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>

#include "runtime/ir/type.h"

namespace augur::cpu {

// The type of a value in registers: bool is i1, pointers are opaque.
llvm::Type* register_type(llvm::LLVMContext& context, ir::Type type);
// The type of an element in memory: bool occupies a byte (i8).
llvm::Type* memory_type(llvm::LLVMContext& context, ir::Type element);

llvm::FunctionType* c_function_type(llvm::LLVMContext& context, ir::Type ret,
                                    std::span<const ir::Type> params);
// The extension attributes the x86-64 and AArch64 C ABIs give small integers and
// bool (what clang emits), on a declaration or a call site alike.
llvm::AttributeList c_abi_attributes(llvm::LLVMContext& context, ir::Type ret,
                                     std::span<const ir::Type> params);

// Canonical Value bits (runtime/ir/value.h) in an i64 ↔ a register value of `type`.
llvm::Value* from_value_bits(llvm::IRBuilder<>& b, llvm::Value* bits, ir::Type type);
llvm::Value* to_value_bits(llvm::IRBuilder<>& b, llvm::Value* value, ir::Type type);

// The constant with canonical `bits` (null for pointers).
llvm::Constant* constant_of(llvm::LLVMContext& context, ir::Type type, std::uint64_t bits);

}  // namespace augur::cpu
