// The PEG operator set: how IR semantics map onto e-graph labels.
//
// Invariant: an e-node's operator (eqsat::Op) encodes its kind and one type,
// so every e-class has one result type, readable from any of its e-nodes
// (result_type). The payload carries what the kind needs and nothing else:
//   Const        the value's canonical bits (value.h)
//   Param        the parameter's index in Function::vars
//   Shared       the shared array's variable index
//   GpuIndex     4 * ir::GpuIndex + axis
//   Cast         the source type's code
//   Call*        the extern's name id (ExternNames)
//   Atomic       the ir::AtomicOp
//   Table        a hash of the table's element type and bytes (to_peg.h:
//                PegFunction::tables holds the table; two tables of one
//                function never share a hash)
//   Theta, Eval, Pass, Peel   the loop index ℓ (1 = outermost)
// Table carries its pointer type, ReadTable (a load from a table: pointer,
// index; tables are never written, so it reads no σ) its element type.
// Comparisons carry their operand type (their result is bool); Store the
// type of the value it writes; CallEffect and Atomic the value their ρ
// projection yields; Demand carries `state`.
//
// The heap and every other effect are one state value σ (Tate, ch. 9):
// loads and readonly calls read a σ, stores, effectful calls, atomics,
// barriers and Demand (an integer division that may trap, kept in place)
// produce a new one. Effectful calls and atomics yield a tuple read by
// ProjValue (ρ_v) and ProjState (ρ_σ).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/eqsat/id.h"
#include "runtime/ir/ir.h"

namespace augur::peg {

// A PEG type: an IR value type (codes 0..23: scalar + 12 * pointer) or one of
// the PEG's own sorts.
class PegType {
 public:
  static constexpr std::uint8_t kState = 24;  // σ
  static constexpr std::uint8_t kTuple = 25;  // an effectful call's (value, σ)
  static constexpr std::uint8_t kIndex = 26;  // a loop iteration count
  static constexpr std::uint8_t kCount = 27;

  constexpr PegType() = default;
  constexpr explicit PegType(ir::Type t)
      : code_(static_cast<std::uint8_t>(static_cast<unsigned>(t.scalar()) +
                                        (t.is_pointer() ? 12 : 0))) {}
  static constexpr PegType from_code(std::uint8_t code) {
    PegType t;
    t.code_ = code;
    return t;
  }
  static constexpr PegType state() { return from_code(kState); }
  static constexpr PegType tuple() { return from_code(kTuple); }
  static constexpr PegType index() { return from_code(kIndex); }

  constexpr std::uint8_t code() const { return code_; }
  constexpr bool is_ir() const { return code_ < kState; }
  constexpr bool is_state() const { return code_ == kState; }
  // The IR type (is_ir() only).
  ir::Type ir() const { return ir::Type(static_cast<ir::Scalar>(code_ % 12), code_ >= 12); }
  std::string name() const;

  friend constexpr bool operator==(PegType, PegType) = default;

 private:
  std::uint8_t code_ = 0;  // void
};

// clang-format off
enum class Kind : std::uint8_t {
  // Leaves.
  Const, Param, Shared, GpuIndex, StateIn, Zero, Table,
  // Pure operators on values.
  Neg, BitNot, Not,
  Add, Sub, Mul, Div, Rem, BitAnd, BitOr, BitXor, Shl, Shr,
  Eq, Ne, Lt, Le, Gt, Ge,
  Cast,
  Sqrt, Fabs, Floor, Exp, Log, Pow, Min, Max, Fma,
  ReadTable,   // (table pointer, index): an element of a table
  CallPure,
  // Control: φ(c, t, f), θ_ℓ(init, next), eval_ℓ(seq, index), pass_ℓ(cond),
  // S(index), peel_ℓ(seq).
  Phi, Theta, Eval, Pass, Succ, Peel,
  // Memory and effects.
  Load,        // (σ, pointer, index)
  CallRead,    // (σ, args...)
  Store,       // (σ, pointer, index, value) -> σ
  CallEffect,  // (σ, args...) -> tuple
  Atomic,      // (σ, pointer, index, value [, desired]) -> tuple
  ProjValue,   // ρ_v(tuple)
  ProjState,   // ρ_σ(tuple) -> σ
  Demand,      // (σ, value) -> σ: the value is evaluated here (it may trap)
  Barrier,     // (σ) -> σ
  Count
};
// clang-format on

constexpr unsigned kKindCount = static_cast<unsigned>(Kind::Count);

constexpr eqsat::Op op_of(Kind kind, PegType type) {
  return static_cast<eqsat::Op>(static_cast<unsigned>(kind) * PegType::kCount + type.code());
}
constexpr Kind kind_of(eqsat::Op op) {
  return static_cast<Kind>(op / PegType::kCount);
}
// The type the operator carries (see the header comment), not always its result.
constexpr PegType type_slot(eqsat::Op op) {
  return PegType::from_code(static_cast<std::uint8_t>(op % PegType::kCount));
}
constexpr eqsat::Label label(Kind kind, PegType type, std::uint64_t payload = 0) {
  return {op_of(kind, type), payload};
}
constexpr eqsat::Op kOpCount = kKindCount * PegType::kCount;

constexpr bool is_comparison(Kind k) {
  return k >= Kind::Eq && k <= Kind::Ge;
}

// The type of the value an e-node with this operator denotes. Inline, and
// from a table made at compile time: reversion asks for every node it
// visits.
namespace detail {
struct ResultTypes {
  std::array<PegType, kOpCount> of;
  constexpr ResultTypes() : of() {
    for (eqsat::Op op = 0; op < kOpCount; ++op) {
      const Kind k = kind_of(op);
      PegType t = type_slot(op);
      if (is_comparison(k)) t = PegType(ir::Type::bool_());
      if (k == Kind::Store || k == Kind::Demand || k == Kind::Barrier || k == Kind::StateIn ||
          k == Kind::ProjState)
        t = PegType::state();
      if (k == Kind::CallEffect || k == Kind::Atomic) t = PegType::tuple();
      if (k == Kind::Pass || k == Kind::Zero || k == Kind::Succ) t = PegType::index();
      of[op] = t;
    }
  }
};
inline constexpr ResultTypes kResultTypes{};
}  // namespace detail
inline PegType result_type(eqsat::Op op) {
  return op < kOpCount ? detail::kResultTypes.of[op] : type_slot(op);
}
// Children the kind takes; -1 for calls and atomics (variable).
int arity(Kind kind);

std::string_view name_of(Kind kind);
std::optional<Kind> kind_named(std::string_view name);
constexpr bool is_loop_op(Kind k) {
  return k == Kind::Theta || k == Kind::Eval || k == Kind::Pass || k == Kind::Peel;
}
// Operators that read σ (their first child) without producing one.
constexpr bool reads_state(Kind k) {
  return k == Kind::Load || k == Kind::CallRead;
}
// Operators whose first child is the σ they consume to produce a new σ or tuple.
constexpr bool consumes_state(Kind k) {
  return k == Kind::Store || k == Kind::CallEffect || k == Kind::Atomic || k == Kind::Demand ||
         k == Kind::Barrier;
}
// Pure operators on IR values, evaluated pointwise (lifted in every loop).
constexpr bool is_pure_value_op(Kind k) {
  return (k >= Kind::Neg && k <= Kind::CallPure);
}
// Whether the operator's two operands may be swapped, for the e-graph
// (eqsat::EGraphOptions::commutative): +, *, &, |, ^, min, max, == and != on
// integers; &, |, ^, == and != on bool; +, *, == and != on floats (not min
// and max: which of -0.0 and +0.0, or of two NaNs, they give depends on the
// order).
bool commutative(eqsat::Op op);

// Mapping between IR operators and kinds.
Kind kind_of(ir::UnaryOp op);
Kind kind_of(ir::BinaryOp op);  // not And/Or (they become φ)
Kind kind_of(ir::MathOp op);
std::optional<ir::UnaryOp> unary_op(Kind k);
std::optional<ir::BinaryOp> binary_op(Kind k);
std::optional<ir::MathOp> math_op(Kind k);

// The text of a label, as the PEG language (peg_language.h) reads it:
// `add.i32`, `theta.f64@1`, `5i32`, `param.i32@0`, `@name` for calls when no
// name table is at hand.
std::string label_text(eqsat::Label label);

// A Const label's value as a signed integer: its canonical bits, sign-extended
// when `type` is signed; nullopt when `type` is not an IR integer type.
std::optional<std::int64_t> integer_value(PegType type, std::uint64_t payload);

}  // namespace augur::peg
