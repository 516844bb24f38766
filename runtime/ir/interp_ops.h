// What each data operation of interp_code.h does: the IR semantics of
// docs/ir.md on canonical 64-bit slots. Included only by the dispatch loop,
// which inlines every exec() into its switch.
#pragma once

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <type_traits>

#include "runtime/ir/interp_run.h"
#include "runtime/ir/saturate.h"

#define AUGUR_INTERP_INLINE [[gnu::always_inline]] inline

namespace augur::ir::interp {

using u64 = std::uint64_t;
using i64 = std::int64_t;

// ---------------------------------------------------------------- canonical values

template <unsigned W>
AUGUR_INTERP_INLINE constexpr u64 wrap(u64 v) {
  if constexpr (W == 64) {
    return v;
  } else {
    return v & ((u64{1} << W) - 1);
  }
}

template <unsigned W>
AUGUR_INTERP_INLINE constexpr i64 sext(u64 v) {
  return static_cast<i64>(v << (64 - W)) >> (64 - W);
}

template <unsigned W>
using UInt = std::conditional_t<
    W == 8, std::uint8_t,
    std::conditional_t<W == 16, std::uint16_t,
                       std::conditional_t<W == 32, std::uint32_t, std::uint64_t>>>;

// The C++ value of canonical bits, and the canonical bits of a C++ value.
template <class T>
AUGUR_INTERP_INLINE T val(u64 bits) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<double>(bits);
  } else {
    return static_cast<T>(bits);
  }
}

template <class T>
AUGUR_INTERP_INLINE u64 bits_of(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<std::uint32_t>(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<u64>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? 1 : 0;
  } else {
    return static_cast<u64>(static_cast<std::make_unsigned_t<T>>(v));
  }
}

// ---------------------------------------------------------------- operand shapes

template <class D>
struct Unary {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    r[in.dst].bits = D::apply(r[in.a].bits);
  }
};

template <class D>
struct Binary {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    r[in.dst].bits = D::apply(r[in.a].bits, r[in.b].bits);
  }
};

template <class D>
struct Ternary {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    r[in.dst].bits = D::apply(r[in.a].bits, r[in.b].bits, r[in.c].bits);
  }
};

// ---------------------------------------------------------------- general

struct MoveOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    r[in.dst] = r[in.a];
  }
};

struct CallOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext& ctx) {
    const ExternBinding& callee = ctx.program.externs[in.c];
    r[in.dst] = callee.invoke(callee.address, std::span<const Value>(r + in.a, in.aux));
  }
};

struct TrapNoReturnOp {
  [[noreturn]] static void exec(const Instr&, Value*, const RunContext&) {
    trap("reached the end of a non-void function without returning a value");
  }
};

// ---------------------------------------------------------------- integers

template <unsigned W>
struct AddOp : Binary<AddOp<W>> {
  static u64 apply(u64 a, u64 b) { return wrap<W>(a + b); }
};
template <unsigned W>
struct SubOp : Binary<SubOp<W>> {
  static u64 apply(u64 a, u64 b) { return wrap<W>(a - b); }
};
template <unsigned W>
struct MulOp : Binary<MulOp<W>> {
  static u64 apply(u64 a, u64 b) { return wrap<W>(a * b); }
};
template <unsigned W>
struct NegOp : Unary<NegOp<W>> {
  static u64 apply(u64 a) { return wrap<W>(u64{0} - a); }
};
template <unsigned W>
struct BitNotOp : Unary<BitNotOp<W>> {
  static u64 apply(u64 a) { return wrap<W>(~a); }
};

// Shift counts are taken modulo the width (docs/ir.md).
template <unsigned W>
struct ShlOp : Binary<ShlOp<W>> {
  static u64 apply(u64 a, u64 b) { return wrap<W>(a << (b & (W - 1))); }
};
template <unsigned W>
struct ShrSOp : Binary<ShrSOp<W>> {
  static u64 apply(u64 a, u64 b) { return wrap<W>(static_cast<u64>(sext<W>(a) >> (b & (W - 1)))); }
};
template <unsigned W>
struct ShrUOp : Binary<ShrUOp<W>> {
  static u64 apply(u64 a, u64 b) { return a >> (b & (W - 1)); }
};

template <unsigned W>
AUGUR_INTERP_INLINE void check_signed_division(i64 x, i64 y, const char* what) {
  if (y == 0) [[unlikely]]
    trap(std::string(what) + " by zero");
  if (y == -1 && x == sext<W>(u64{1} << (W - 1))) [[unlikely]]
    trap(std::string("signed overflow in ") + what);
}

template <unsigned W>
struct DivSOp : Binary<DivSOp<W>> {
  static u64 apply(u64 a, u64 b) {
    const i64 x = sext<W>(a), y = sext<W>(b);
    check_signed_division<W>(x, y, "division");
    return wrap<W>(static_cast<u64>(x / y));
  }
};
template <unsigned W>
struct RemSOp : Binary<RemSOp<W>> {
  static u64 apply(u64 a, u64 b) {
    const i64 x = sext<W>(a), y = sext<W>(b);
    check_signed_division<W>(x, y, "remainder");
    return wrap<W>(static_cast<u64>(x % y));
  }
};
// Canonical unsigned values are zero-extended, so one 64-bit operation serves
// every width.
struct DivUOp : Binary<DivUOp> {
  static u64 apply(u64 a, u64 b) {
    if (b == 0) [[unlikely]]
      trap("division by zero");
    return a / b;
  }
};
struct RemUOp : Binary<RemUOp> {
  static u64 apply(u64 a, u64 b) {
    if (b == 0) [[unlikely]]
      trap("remainder by zero");
    return a % b;
  }
};

struct BitAndOp : Binary<BitAndOp> {
  static u64 apply(u64 a, u64 b) { return a & b; }
};
struct BitOrOp : Binary<BitOrOp> {
  static u64 apply(u64 a, u64 b) { return a | b; }
};
struct BitXorOp : Binary<BitXorOp> {
  static u64 apply(u64 a, u64 b) { return a ^ b; }
};
struct NotOp : Unary<NotOp> {
  static u64 apply(u64 a) { return a ^ 1; }
};

// ---------------------------------------------------------------- floats

template <class F>
struct FAddOp : Binary<FAddOp<F>> {
  static u64 apply(u64 a, u64 b) { return bits_of(val<F>(a) + val<F>(b)); }
};
template <class F>
struct FSubOp : Binary<FSubOp<F>> {
  static u64 apply(u64 a, u64 b) { return bits_of(val<F>(a) - val<F>(b)); }
};
template <class F>
struct FMulOp : Binary<FMulOp<F>> {
  static u64 apply(u64 a, u64 b) { return bits_of(val<F>(a) * val<F>(b)); }
};
template <class F>
struct FDivOp : Binary<FDivOp<F>> {
  static u64 apply(u64 a, u64 b) { return bits_of(val<F>(a) / val<F>(b)); }
};
template <class F>
struct FRemOp : Binary<FRemOp<F>> {
  static u64 apply(u64 a, u64 b) { return bits_of(std::fmod(val<F>(a), val<F>(b))); }
};
// Negation flips the sign bit, NaNs included (LLVM's fneg).
template <class F>
struct FNegOp : Unary<FNegOp<F>> {
  static u64 apply(u64 a) { return a ^ (u64{1} << (sizeof(F) * 8 - 1)); }
};

// ---------------------------------------------------------------- multiply-add

// a * b + c (integers commute exactly). Floats keep both roundings and the
// operand order of the addition, so these are exactly the two operations
// they replace; interp_exec.cpp is compiled without FP contraction.
template <unsigned W>
struct MulAddOp : Ternary<MulAddOp<W>> {
  static u64 apply(u64 a, u64 b, u64 c) { return wrap<W>(a * b + c); }
};
template <class F>
struct FMulAddOp : Ternary<FMulAddOp<F>> {
  static u64 apply(u64 a, u64 b, u64 c) {
    const F product = val<F>(a) * val<F>(b);
    return bits_of(product + val<F>(c));
  }
};
template <class F>
struct FAddMulOp : Ternary<FAddMulOp<F>> {
  static u64 apply(u64 a, u64 b, u64 c) {
    const F product = val<F>(a) * val<F>(b);
    return bits_of(val<F>(c) + product);
  }
};

// ---------------------------------------------------------------- comparisons

struct EqOp : Binary<EqOp> {
  static u64 apply(u64 a, u64 b) { return a == b; }
};
struct NeOp : Binary<NeOp> {
  static u64 apply(u64 a, u64 b) { return a != b; }
};
template <unsigned W>
struct LtSOp : Binary<LtSOp<W>> {
  static u64 apply(u64 a, u64 b) { return sext<W>(a) < sext<W>(b); }
};
template <unsigned W>
struct LeSOp : Binary<LeSOp<W>> {
  static u64 apply(u64 a, u64 b) { return sext<W>(a) <= sext<W>(b); }
};
struct LtUOp : Binary<LtUOp> {
  static u64 apply(u64 a, u64 b) { return a < b; }
};
struct LeUOp : Binary<LeUOp> {
  static u64 apply(u64 a, u64 b) { return a <= b; }
};
template <class F>
struct FEqOp : Binary<FEqOp<F>> {
  static u64 apply(u64 a, u64 b) { return val<F>(a) == val<F>(b); }
};
template <class F>
struct FNeOp : Binary<FNeOp<F>> {
  static u64 apply(u64 a, u64 b) { return val<F>(a) != val<F>(b); }
};
template <class F>
struct FLtOp : Binary<FLtOp<F>> {
  static u64 apply(u64 a, u64 b) { return val<F>(a) < val<F>(b); }
};
template <class F>
struct FLeOp : Binary<FLeOp<F>> {
  static u64 apply(u64 a, u64 b) { return val<F>(a) <= val<F>(b); }
};

// ---------------------------------------------------------------- casts

template <unsigned W>
struct TruncOp : Unary<TruncOp<W>> {
  static u64 apply(u64 a) { return wrap<W>(a); }
};
template <unsigned From, unsigned To>
struct SextOp : Unary<SextOp<From, To>> {
  static u64 apply(u64 a) { return wrap<To>(static_cast<u64>(sext<From>(a))); }
};
struct ToBoolOp : Unary<ToBoolOp> {
  static u64 apply(u64 a) { return a != 0; }
};
template <class F>
struct FToBoolOp : Unary<FToBoolOp<F>> {
  static u64 apply(u64 a) { return val<F>(a) != F{0}; }
};
template <class I>
struct IntToF32Op : Unary<IntToF32Op<I>> {
  static u64 apply(u64 a) { return bits_of(static_cast<float>(val<I>(a))); }
};
template <class I>
struct IntToF64Op : Unary<IntToF64Op<I>> {
  static u64 apply(u64 a) { return bits_of(static_cast<double>(val<I>(a))); }
};

template <class I>
struct F32ToIntOp : Unary<F32ToIntOp<I>> {
  static u64 apply(u64 a) { return bits_of(saturate<I>(val<float>(a))); }
};
template <class I>
struct F64ToIntOp : Unary<F64ToIntOp<I>> {
  static u64 apply(u64 a) { return bits_of(saturate<I>(val<double>(a))); }
};
struct F64ToF32Op : Unary<F64ToF32Op> {
  static u64 apply(u64 a) { return bits_of(static_cast<float>(val<double>(a))); }
};
struct F32ToF64Op : Unary<F32ToF64Op> {
  static u64 apply(u64 a) { return bits_of(static_cast<double>(val<float>(a))); }
};

// ---------------------------------------------------------------- math

template <class F>
struct SqrtOp : Unary<SqrtOp<F>> {
  static u64 apply(u64 a) { return bits_of(std::sqrt(val<F>(a))); }
};
template <class F>
struct FabsOp : Unary<FabsOp<F>> {
  static u64 apply(u64 a) { return bits_of(std::fabs(val<F>(a))); }
};
template <class F>
struct FloorOp : Unary<FloorOp<F>> {
  static u64 apply(u64 a) { return bits_of(std::floor(val<F>(a))); }
};
template <class F>
struct ExpOp : Unary<ExpOp<F>> {
  static u64 apply(u64 a) { return bits_of(std::exp(val<F>(a))); }
};
template <class F>
struct LogOp : Unary<LogOp<F>> {
  static u64 apply(u64 a) { return bits_of(std::log(val<F>(a))); }
};
template <class F>
struct PowOp : Binary<PowOp<F>> {
  static u64 apply(u64 a, u64 b) { return bits_of(std::pow(val<F>(a), val<F>(b))); }
};
template <class F>
struct FmaOp : Ternary<FmaOp<F>> {
  static u64 apply(u64 a, u64 b, u64 c) {
    return bits_of(std::fma(val<F>(a), val<F>(b), val<F>(c)));
  }
};
// fmin/fmax are IEEE minNum/maxNum (a NaN operand yields the other one), with
// -0 < +0 (docs/ir.md): equal operands have equal bits except for zeros, where
// OR of the bits picks -0 for min and AND picks +0 for max.
template <class F>
struct FMinOp : Binary<FMinOp<F>> {
  static u64 apply(u64 a, u64 b) {
    if (val<F>(a) == val<F>(b)) return a | b;
    return bits_of(std::fmin(val<F>(a), val<F>(b)));
  }
};
template <class F>
struct FMaxOp : Binary<FMaxOp<F>> {
  static u64 apply(u64 a, u64 b) {
    if (val<F>(a) == val<F>(b)) return a & b;
    return bits_of(std::fmax(val<F>(a), val<F>(b)));
  }
};
template <unsigned W>
struct MinSOp : Binary<MinSOp<W>> {
  static u64 apply(u64 a, u64 b) { return sext<W>(b) < sext<W>(a) ? b : a; }
};
template <unsigned W>
struct MaxSOp : Binary<MaxSOp<W>> {
  static u64 apply(u64 a, u64 b) { return sext<W>(a) < sext<W>(b) ? b : a; }
};
struct MinUOp : Binary<MinUOp> {
  static u64 apply(u64 a, u64 b) { return b < a ? b : a; }
};
struct MaxUOp : Binary<MaxUOp> {
  static u64 apply(u64 a, u64 b) { return a < b ? b : a; }
};

// ---------------------------------------------------------------- memory

// How an index operand extends to 64 bits: i32 by sign extension; every other
// index reaches memory operations already 64 bits wide (unsigned ones are
// zero-extended by their canonical form, narrow signed ones are sign-extended
// by an explicit cast).
struct Index32 {
  AUGUR_INTERP_INLINE static u64 extend(u64 bits) { return static_cast<u64>(sext<32>(bits)); }
};
struct Index64 {
  AUGUR_INTERP_INLINE static u64 extend(u64 bits) { return bits; }
};

AUGUR_INTERP_INLINE unsigned element_size(const Instr& in) {
  return in.aux & 0xffu;
}
AUGUR_INTERP_INLINE Access access_of(const Instr& in) {
  return static_cast<Access>(in.aux >> 8);
}

template <class T>
AUGUR_INTERP_INLINE T read_memory(u64 address) {
  T v;
  std::memcpy(&v, reinterpret_cast<const void*>(address), sizeof v);
  return v;
}
template <class T>
AUGUR_INTERP_INLINE void write_memory(u64 address, T v) {
  std::memcpy(reinterpret_cast<void*>(address), &v, sizeof v);
}

template <unsigned W, class Idx>
struct LoadIdxOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    const u64 address = r[in.a].bits + Idx::extend(r[in.b].bits) * (W / 8);
    if (address < kNullPage) [[unlikely]]
      null_access(Access::Load, address);
    r[in.dst].bits = read_memory<UInt<W>>(address);
  }
};
template <unsigned W>
using LoadIdx32Op = LoadIdxOp<W, Index32>;
template <unsigned W>
using LoadIdx64Op = LoadIdxOp<W, Index64>;

// The address in a was computed by a checking address operation.
template <unsigned W>
struct LoadAtOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    r[in.dst].bits = read_memory<UInt<W>>(r[in.a].bits);
  }
};

// A bool in memory is one byte holding 0 or 1; its low bit is the value.
template <class Idx>
struct LoadBoolOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    const u64 address = r[in.a].bits + Idx::extend(r[in.b].bits);
    if (address < kNullPage) [[unlikely]]
      null_access(Access::Load, address);
    r[in.dst].bits = read_memory<std::uint8_t>(address) & 1u;
  }
};
struct LoadBoolAtOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    r[in.dst].bits = read_memory<std::uint8_t>(r[in.a].bits) & 1u;
  }
};

template <unsigned W, class Idx>
struct StoreIdxOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    const u64 address = r[in.a].bits + Idx::extend(r[in.b].bits) * (W / 8);
    if (address < kNullPage) [[unlikely]]
      null_access(Access::Store, address);
    write_memory(address, static_cast<UInt<W>>(r[in.c].bits));
  }
};
template <unsigned W>
using StoreIdx32Op = StoreIdxOp<W, Index32>;
template <unsigned W>
using StoreIdx64Op = StoreIdxOp<W, Index64>;

template <unsigned W>
struct StoreAtOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    write_memory(r[in.a].bits, static_cast<UInt<W>>(r[in.b].bits));
  }
};

// p + i or p - i elements (pointer arithmetic, and atomics' addresses).
template <class Idx, int Sign>
struct AddrOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    const u64 offset = Idx::extend(r[in.b].bits) * element_size(in);
    r[in.dst].bits = Sign > 0 ? r[in.a].bits + offset : r[in.a].bits - offset;
  }
};

template <class Idx>
struct CheckedAddrOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext& ctx) {
    const u64 address = r[in.a].bits + Idx::extend(r[in.b].bits) * element_size(in);
    check_access(ctx, address, element_size(in), access_of(in));
    r[in.dst].bits = address;
  }
};

// s[i] for a shared array s: a is s's slot, so it holds the array's base.
template <class Idx>
struct SharedAddrOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext& ctx) {
    const unsigned size = element_size(in);
    const u64 address = r[in.a].bits + Idx::extend(r[in.b].bits) * size;
    const Region& array = ctx.shared[in.c];
    const u64 offset = address - array.base;
    if (offset > array.bytes || array.bytes - offset < size) [[unlikely]]
      out_of_bounds(access_of(in), address, size, std::span<const Region>(&array, 1));
    r[in.dst].bits = address;
  }
};

// ---------------------------------------------------------------- atomics

template <class T>
AUGUR_INTERP_INLINE std::atomic_ref<T> atomic_at(u64 address) {
  if (address < kNullPage) [[unlikely]]
    null_access(Access::Atomic, address);
  if (address % std::atomic_ref<T>::required_alignment != 0) [[unlikely]]
    misaligned_atomic(address, sizeof(T));
  return std::atomic_ref<T>(*reinterpret_cast<T*>(address));
}

template <class T>
struct AtomicAddOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    r[in.dst].bits = bits_of(atomic_at<T>(r[in.a].bits).fetch_add(val<T>(r[in.b].bits)));
  }
};

template <class T, bool kMax>
struct AtomicMinMaxOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    std::atomic_ref<T> target = atomic_at<T>(r[in.a].bits);
    const T v = val<T>(r[in.b].bits);
    T old = target.load();
    while ((kMax ? old < v : v < old) && !target.compare_exchange_weak(old, v)) {
    }
    r[in.dst].bits = bits_of(old);
  }
};

template <class T>
struct AtomicExchangeOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    r[in.dst].bits = bits_of(atomic_at<T>(r[in.a].bits).exchange(val<T>(r[in.b].bits)));
  }
};

// Returns the old value whether or not the exchange happened.
template <class T>
struct AtomicCasOp {
  AUGUR_INTERP_INLINE static void exec(const Instr& in, Value* r, const RunContext&) {
    T expected = val<T>(r[in.b].bits);
    atomic_at<T>(r[in.a].bits).compare_exchange_strong(expected, val<T>(r[in.c].bits));
    r[in.dst].bits = bits_of(expected);
  }
};

}  // namespace augur::ir::interp
