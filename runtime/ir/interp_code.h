// The interpreter's lowered form: a function becomes linear register code.
//
// A run owns a frame of 64-bit slots holding values in canonical form
// (value.h). Its layout is fixed when the function is lowered:
//
//   [variables][GPU indices (kernels)][constants][temporaries]
//
// Variable i of the function lives in slot i; a shared array's slot holds the
// address of its block's storage. Kernels get twelve slots with thread_idx,
// block_idx, block_dim and grid_dim (x, y, z each), so reading them costs no
// instruction. Constants are preloaded from the frame template. Operands are
// always slot numbers; an instruction reads all its operands before it writes
// its destination.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ir/externs.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/ir.h"
#include "runtime/ir/value.h"

namespace augur::ir::interp {

// Operations that are not plain data transformations; the dispatch loop
// handles these itself. Jump targets are instruction indices in Instr::c.
#define AUGUR_INTERP_CONTROL_OPS(X) \
  X(Jump)        /* goto c */       \
  X(JumpIfTrue)  /* if a goto c */  \
  X(JumpIfFalse) /* if !a goto c */ \
  X(Ret)         /* return a */     \
  X(RetVoid)                        \
  X(Barrier) /* suspend the thread until its block arrives */

// Families are declared in a fixed member order so that lowering can pick a
// member by offset from the first: widths 8, 16, 32, 64; floats f32, f64;
// integer scalars in the order of ir::Scalar (i8..i64, u8..u64).
#define AUGUR_INTERP_BY_WIDTH(X, name, impl) \
  X(name##8, impl<8>) X(name##16, impl<16>) X(name##32, impl<32>) X(name##64, impl<64>)
#define AUGUR_INTERP_BY_FLOAT(X, name, impl) X(name##F32, impl<float>) X(name##F64, impl<double>)
#define AUGUR_INTERP_BY_INT(X, name, impl) \
  X(name##I8, impl<std::int8_t>)           \
  X(name##I16, impl<std::int16_t>)         \
  X(name##I32, impl<std::int32_t>)         \
  X(name##I64, impl<std::int64_t>)         \
  X(name##U8, impl<std::uint8_t>)          \
  X(name##U16, impl<std::uint16_t>)        \
  X(name##U32, impl<std::uint32_t>) X(name##U64, impl<std::uint64_t>)

// Comparisons, in the order of their branch forms below; > and >= swap the
// operands of < and <=.
#define AUGUR_INTERP_COMPARE_OPS(X)    \
  X(Eq, EqOp)                          \
  X(Ne, NeOp)                          \
  AUGUR_INTERP_BY_WIDTH(X, LtS, LtSOp) \
  AUGUR_INTERP_BY_WIDTH(X, LeS, LeSOp) \
  X(LtU, LtUOp)                        \
  X(LeU, LeUOp)                        \
  AUGUR_INTERP_BY_FLOAT(X, FEq, FEqOp) \
  AUGUR_INTERP_BY_FLOAT(X, FNe, FNeOp) \
  AUGUR_INTERP_BY_FLOAT(X, FLt, FLtOp) \
  AUGUR_INTERP_BY_FLOAT(X, FLe, FLeOp)

// Every other operation: X(name, implementation) where the implementation (in
// interp_ops.h) has `static void exec(const Instr&, Value* regs, const RunContext&)`.
// Integer operations work on canonical bits, so many need only the width.
#define AUGUR_INTERP_DATA_OPS(X)                                                \
  X(Move, MoveOp)                                                               \
  X(Call, CallOp)                 /* c: extern; a..a+aux-1: arguments */        \
  X(TrapNoReturn, TrapNoReturnOp) /* fell off the end of a non-void function */ \
  AUGUR_INTERP_BY_WIDTH(X, Add, AddOp)                                          \
  AUGUR_INTERP_BY_WIDTH(X, Sub, SubOp)                                          \
  AUGUR_INTERP_BY_WIDTH(X, Mul, MulOp)                                          \
  AUGUR_INTERP_BY_WIDTH(X, Neg, NegOp)                                          \
  AUGUR_INTERP_BY_WIDTH(X, BitNot, BitNotOp)                                    \
  AUGUR_INTERP_BY_WIDTH(X, Shl, ShlOp)                                          \
  AUGUR_INTERP_BY_WIDTH(X, ShrS, ShrSOp)                                        \
  AUGUR_INTERP_BY_WIDTH(X, ShrU, ShrUOp)                                        \
  AUGUR_INTERP_BY_WIDTH(X, DivS, DivSOp)                                        \
  AUGUR_INTERP_BY_WIDTH(X, RemS, RemSOp)                                        \
  X(DivU, DivUOp)                                                               \
  X(RemU, RemUOp)                                                               \
  X(BitAnd, BitAndOp)                                                           \
  X(BitOr, BitOrOp)                                                             \
  X(BitXor, BitXorOp)                                                           \
  X(Not, NotOp)                                                                 \
  AUGUR_INTERP_BY_FLOAT(X, FAdd, FAddOp)                                        \
  AUGUR_INTERP_BY_FLOAT(X, FSub, FSubOp)                                        \
  AUGUR_INTERP_BY_FLOAT(X, FMul, FMulOp)                                        \
  AUGUR_INTERP_BY_FLOAT(X, FDiv, FDivOp)                                        \
  AUGUR_INTERP_BY_FLOAT(X, FRem, FRemOp)                                        \
  AUGUR_INTERP_BY_FLOAT(X, FNeg, FNegOp)                                        \
  /* superinstructions for a * b + c and c + a * b; floats round twice */       \
  AUGUR_INTERP_BY_WIDTH(X, MulAdd, MulAddOp)                                    \
  AUGUR_INTERP_BY_FLOAT(X, FMulAdd, FMulAddOp)                                  \
  AUGUR_INTERP_BY_FLOAT(X, FAddMul, FAddMulOp)                                  \
  AUGUR_INTERP_COMPARE_OPS(X)                                                   \
  /* casts; zero extension and same-width casts are moves */                    \
  X(Trunc8, TruncOp<8>)                                                         \
  X(Trunc16, TruncOp<16>)                                                       \
  X(Trunc32, TruncOp<32>)                                                       \
  X(Sext8To16, SextOp<8, 16>)                                                   \
  X(Sext8To32, SextOp<8, 32>)                                                   \
  X(Sext8To64, SextOp<8, 64>)                                                   \
  X(Sext16To32, SextOp<16, 32>)                                                 \
  X(Sext16To64, SextOp<16, 64>)                                                 \
  X(Sext32To64, SextOp<32, 64>)                                                 \
  X(ToBool, ToBoolOp)                                                           \
  AUGUR_INTERP_BY_FLOAT(X, FToBool, FToBoolOp)                                  \
  AUGUR_INTERP_BY_INT(X, IntToF32, IntToF32Op)                                  \
  AUGUR_INTERP_BY_INT(X, IntToF64, IntToF64Op)                                  \
  AUGUR_INTERP_BY_INT(X, F32ToInt, F32ToIntOp)                                  \
  AUGUR_INTERP_BY_INT(X, F64ToInt, F64ToIntOp)                                  \
  X(F64ToF32, F64ToF32Op)                                                       \
  X(F32ToF64, F32ToF64Op)                                                       \
  /* math intrinsics */                                                         \
  AUGUR_INTERP_BY_FLOAT(X, Sqrt, SqrtOp)                                        \
  AUGUR_INTERP_BY_FLOAT(X, Fabs, FabsOp)                                        \
  AUGUR_INTERP_BY_FLOAT(X, Floor, FloorOp)                                      \
  AUGUR_INTERP_BY_FLOAT(X, Exp, ExpOp)                                          \
  AUGUR_INTERP_BY_FLOAT(X, Log, LogOp)                                          \
  AUGUR_INTERP_BY_FLOAT(X, Pow, PowOp)                                          \
  AUGUR_INTERP_BY_FLOAT(X, Fma, FmaOp)                                          \
  AUGUR_INTERP_BY_FLOAT(X, FMin, FMinOp)                                        \
  AUGUR_INTERP_BY_FLOAT(X, FMax, FMaxOp)                                        \
  AUGUR_INTERP_BY_WIDTH(X, MinS, MinSOp)                                        \
  AUGUR_INTERP_BY_WIDTH(X, MaxS, MaxSOp)                                        \
  X(MinU, MinUOp)                                                               \
  X(MaxU, MaxUOp)                                                               \
  /* memory: p[i] in one instruction (Idx32: i is i32, Idx64: any other */      \
  /* index, already 64 bits), or an address op and then an access at it */      \
  AUGUR_INTERP_BY_WIDTH(X, LoadIdx32_, LoadIdx32Op)                             \
  AUGUR_INTERP_BY_WIDTH(X, LoadIdx64_, LoadIdx64Op)                             \
  AUGUR_INTERP_BY_WIDTH(X, LoadAt, LoadAtOp)                                    \
  X(LoadBoolIdx32, LoadBoolOp<Index32>)                                         \
  X(LoadBoolIdx64, LoadBoolOp<Index64>)                                         \
  X(LoadBoolAt, LoadBoolAtOp)                                                   \
  AUGUR_INTERP_BY_WIDTH(X, StoreIdx32_, StoreIdx32Op)                           \
  AUGUR_INTERP_BY_WIDTH(X, StoreIdx64_, StoreIdx64Op)                           \
  AUGUR_INTERP_BY_WIDTH(X, StoreAt, StoreAtOp)                                  \
  /* addresses: aux = element size | access kind << 8 */                        \
  X(AddrIdx32, AddrOp<Index32, +1>)                                             \
  X(AddrIdx64, AddrOp<Index64, +1>)                                             \
  X(AddrSubIdx32, AddrOp<Index32, -1>)                                          \
  X(AddrSubIdx64, AddrOp<Index64, -1>)                                          \
  X(CheckedAddrIdx32, CheckedAddrOp<Index32>)                                   \
  X(CheckedAddrIdx64, CheckedAddrOp<Index64>)                                   \
  X(SharedAddrIdx32, SharedAddrOp<Index32>) /* c: shared array */               \
  X(SharedAddrIdx64, SharedAddrOp<Index64>)                                     \
  /* atomics at the address in a; b: value; c: desired (cas) */                 \
  X(AtomicAddI32, AtomicAddOp<std::uint32_t>)                                   \
  X(AtomicAddI64, AtomicAddOp<std::uint64_t>)                                   \
  X(AtomicAddF32, AtomicAddOp<float>)                                           \
  X(AtomicAddF64, AtomicAddOp<double>)                                          \
  X(AtomicMinS32, AtomicMinMaxOp<std::int32_t, false>)                          \
  X(AtomicMinS64, AtomicMinMaxOp<std::int64_t, false>)                          \
  X(AtomicMinU32, AtomicMinMaxOp<std::uint32_t, false>)                         \
  X(AtomicMinU64, AtomicMinMaxOp<std::uint64_t, false>)                         \
  X(AtomicMaxS32, AtomicMinMaxOp<std::int32_t, true>)                           \
  X(AtomicMaxS64, AtomicMinMaxOp<std::int64_t, true>)                           \
  X(AtomicMaxU32, AtomicMinMaxOp<std::uint32_t, true>)                          \
  X(AtomicMaxU64, AtomicMinMaxOp<std::uint64_t, true>)                          \
  X(AtomicExchange32, AtomicExchangeOp<std::uint32_t>)                          \
  X(AtomicExchange64, AtomicExchangeOp<std::uint64_t>)                          \
  X(AtomicCas32, AtomicCasOp<std::uint32_t>)                                    \
  X(AtomicCas64, AtomicCasOp<std::uint64_t>)

// Besides the control and data operations, every comparison has two branch
// forms, JumpIf<name> and JumpUnless<name>: `if (a <cmp> b) goto c` (or its
// negation) in one dispatch, for the conditions of if, while and for.
enum class Op : std::uint16_t {
#define AUGUR_INTERP_ENUM_CONTROL(name) name,
#define AUGUR_INTERP_ENUM_DATA(name, ...) name,
#define AUGUR_INTERP_ENUM_JUMP_IF(name, ...) JumpIf##name,
#define AUGUR_INTERP_ENUM_JUMP_UNLESS(name, ...) JumpUnless##name,
  AUGUR_INTERP_CONTROL_OPS(AUGUR_INTERP_ENUM_CONTROL) AUGUR_INTERP_DATA_OPS(AUGUR_INTERP_ENUM_DATA)
      AUGUR_INTERP_COMPARE_OPS(AUGUR_INTERP_ENUM_JUMP_IF)
          AUGUR_INTERP_COMPARE_OPS(AUGUR_INTERP_ENUM_JUMP_UNLESS)
#undef AUGUR_INTERP_ENUM_CONTROL
#undef AUGUR_INTERP_ENUM_DATA
#undef AUGUR_INTERP_ENUM_JUMP_IF
#undef AUGUR_INTERP_ENUM_JUMP_UNLESS
};

// Member `offset` of the family that starts at `first`.
constexpr Op family_member(Op first, unsigned offset) {
  return static_cast<Op>(static_cast<unsigned>(first) + offset);
}

// The branch form of comparison `compare`, jumping when the result is `when`.
constexpr Op branch_on(Op compare, bool when) {
  const unsigned offset = static_cast<unsigned>(compare) - static_cast<unsigned>(Op::Eq);
  return family_member(when ? Op::JumpIfEq : Op::JumpUnlessEq, offset);
}

// What an address is computed for; it names the access in trap messages.
enum class Access : std::uint8_t { Load, Store, Atomic };

struct Instr {
  Op op = Op::Move;
  std::uint16_t aux = 0;
  std::uint32_t dst = 0;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::uint32_t c = 0;
};

// A block-shared array of a kernel: its storage is part of each block's
// shared memory, at `offset`.
struct SharedArray {
  std::uint32_t slot = 0;
  std::uint32_t element_size = 0;
  std::uint32_t count = 0;
  std::size_t offset = 0;
  std::string name;
};

// Number of frame slots a kernel reserves for its GPU indices.
inline constexpr std::uint32_t kGpuIndexSlots = 12;

// A lowered function: immutable once built, shared by every run.
struct Program {
  std::string name;
  bool kernel = false;
  std::vector<Type> param_types;
  Type return_type;

  std::vector<Instr> code;
  // The statement each instruction belongs to, as an index into `paths`
  // ("body[2].then[0]"); it locates traps.
  std::vector<std::uint32_t> instr_path;
  std::vector<std::string> paths;

  std::vector<Value> frame_template;  // constants set, everything else zero
  std::uint32_t gpu_index_base = 0;   // first GPU index slot (kernels)
  bool has_barrier = false;

  std::vector<ExternBinding> externs;  // Call's c indexes this
  std::vector<TableRef> tables;        // the tables the code points into
  std::vector<SharedArray> shared;
  std::size_t shared_bytes = 0;  // one block's shared memory

  bool bounds_check = false;
  std::vector<Buffer> buffers;
  std::uint64_t step_limit = 0;
};

}  // namespace augur::ir::interp
