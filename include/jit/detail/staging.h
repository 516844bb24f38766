// The narrow interface between the public staging templates (dyn, stat,
// prophecy, external, extract) and the staging engine in runtime/stage.
// Nothing here is meant for users; names and shapes may change.
//
// Expressions travel as shared pointers to IR expression nodes whose type is
// only forward-declared here, so the public headers never see the IR. Other
// front ends (e.g. GPU intrinsics) add their own functions returning expr_ref
// and wrap them with jit::detail::wrap<T>().
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <typeinfo>

namespace augur::ir {
struct Expr;
}

namespace jit {

// What a call to a registered host function may do (see extern.h).
enum class effect : std::uint8_t {
  pure,       // no memory access; the result depends only on the arguments
  readonly,   // may read memory
  effectful,  // anything: runs exactly where and as often as the program says
};

namespace detail {

using expr_ref = std::shared_ptr<const augur::ir::Expr>;

// Where something was written (std::source_location needs a compiler
// builtin clang 14 lacks; these builtins exist in GCC and clang alike).
struct source_site {
  const char* file = "";
  unsigned line = 0;
  const char* function = "";

  static source_site current(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE(),
                             const char* function = __builtin_FUNCTION()) {
    return {file, line, function};
  }
};

// ---------------------------------------------------------------- IR types

// Mirrors augur::ir::Scalar, value for value (checked in the engine).
enum class scalar : std::uint8_t { void_, bool_, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64 };

struct ir_type {
  scalar element = scalar::void_;
  bool pointer = false;
};

template <class T>
struct scalar_of;
template <>
struct scalar_of<void> : std::integral_constant<scalar, scalar::void_> {};
template <>
struct scalar_of<bool> : std::integral_constant<scalar, scalar::bool_> {};
template <>
struct scalar_of<char> : std::integral_constant<scalar, scalar::i8> {};
template <>
struct scalar_of<signed char> : std::integral_constant<scalar, scalar::i8> {};
template <>
struct scalar_of<short> : std::integral_constant<scalar, scalar::i16> {};
template <>
struct scalar_of<int> : std::integral_constant<scalar, scalar::i32> {};
template <>
struct scalar_of<long>
    : std::integral_constant<scalar, sizeof(long) == 8 ? scalar::i64 : scalar::i32> {};
template <>
struct scalar_of<long long> : std::integral_constant<scalar, scalar::i64> {};
template <>
struct scalar_of<unsigned char> : std::integral_constant<scalar, scalar::u8> {};
template <>
struct scalar_of<unsigned short> : std::integral_constant<scalar, scalar::u16> {};
template <>
struct scalar_of<unsigned int> : std::integral_constant<scalar, scalar::u32> {};
template <>
struct scalar_of<unsigned long>
    : std::integral_constant<scalar, sizeof(long) == 8 ? scalar::u64 : scalar::u32> {};
template <>
struct scalar_of<unsigned long long> : std::integral_constant<scalar, scalar::u64> {};
template <>
struct scalar_of<float> : std::integral_constant<scalar, scalar::f32> {};
template <>
struct scalar_of<double> : std::integral_constant<scalar, scalar::f64> {};

template <class T>
concept ir_element = requires {
  scalar_of<std::remove_cv_t<T>>::value;
}
&&!std::is_void_v<T>;

// The C++ types a dyn value may have: bool, integers, float, double, and
// one-level pointers to those (const pointees allowed).
template <class T>
concept ir_value = (ir_element<T> && !std::is_const_v<T> && !std::is_volatile_v<T>) ||
                   (std::is_pointer_v<T> && ir_element<std::remove_pointer_t<T>> &&
                    !std::is_const_v<T>);

template <class T>
constexpr ir_type ir_type_of() {
  if constexpr (std::is_void_v<T>) {
    return {scalar::void_, false};
  } else if constexpr (std::is_pointer_v<T>) {
    return {scalar_of<std::remove_cv_t<std::remove_pointer_t<T>>>::value, true};
  } else {
    return {scalar_of<std::remove_cv_t<T>>::value, false};
  }
}

// The canonical 64-bit encoding of a value (see runtime/ir/value.h): integers
// truncated to their width and zero-extended, floats as their bit patterns.
template <class T>
std::uint64_t bits_of(T v) {
  if constexpr (std::is_same_v<T, float>) {
    std::uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  } else if constexpr (std::is_same_v<T, double>) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  } else if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<std::uintptr_t>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? 1 : 0;
  } else {
    static_assert(std::is_integral_v<T>);
    using U = std::make_unsigned_t<T>;
    return static_cast<std::uint64_t>(static_cast<U>(v));
  }
}

template <class T>
T from_bits(std::uint64_t bits) {
  if constexpr (std::is_same_v<T, float>) {
    const auto b = static_cast<std::uint32_t>(bits);
    float v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  } else if constexpr (std::is_same_v<T, double>) {
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<T>(static_cast<std::uintptr_t>(bits));
  } else if constexpr (std::is_same_v<T, bool>) {
    return (bits & 1) != 0;
  } else {
    return static_cast<T>(bits);
  }
}

// ---------------------------------------------------------------- expressions

// Mirror augur::ir::UnaryOp / BinaryOp / MathOp, value for value.
enum class unary_op : std::uint8_t { neg, bit_not, logical_not };
// clang-format off
enum class binary_op : std::uint8_t {
  add, sub, mul, div, rem,
  bit_and, bit_or, bit_xor,
  shl, shr,
  eq, ne, lt, le, gt, ge,
  logical_and, logical_or,
};
// clang-format on
enum class math_op : std::uint8_t { sqrt, fabs, floor, exp, log, pow, min, max, fma };

// Each throws jit::verify_error if the operands are ill-typed (the dyn
// templates only build well-typed trees, so that means an Augur bug).
expr_ref constant(ir_type type, std::uint64_t bits);
expr_ref unary(unary_op op, expr_ref operand);
expr_ref binary(binary_op op, expr_ref lhs, expr_ref rhs);
expr_ref cast(ir_type to, expr_ref operand);
expr_ref select(expr_ref cond, expr_ref then_value, expr_ref else_value);
expr_ref load(expr_ref pointer, expr_ref index);
expr_ref math(math_op op, std::initializer_list<expr_ref> args);

// The IR type of an expression.
ir_type type_of(const expr_ref& e);

// ---------------------------------------------------------------- host functions

struct extern_entry;  // a registered host function (engine-owned, never freed)

// Bits in, bits out, in the canonical encoding: calls `fn` with typed arguments.
using raw_invoker = std::uint64_t (*)(void (*fn)(), const std::uint64_t* args);

const extern_entry& register_extern(std::string name, void (*address)(), raw_invoker invoke,
                                    ir_type ret, std::span<const ir_type> params, effect e);
// A call expression (for pure and readonly functions).
expr_ref call(const extern_entry& fn, std::span<const expr_ref> args);
// An effectful call: void functions become a statement and return null; others
// are evaluated into a fresh variable whose read is returned.
expr_ref call_now(const extern_entry& fn, std::span<const expr_ref> args);
effect effect_of(const extern_entry& fn);

// ---------------------------------------------------------------- the current run

// Every first-stage run gets a process-unique token; values made in it carry
// the token, and using them in another run, after the extraction, or from
// another thread is an error.
std::uint64_t current_token() noexcept;
[[noreturn]] void throw_foreign_use(const char* what, std::uint64_t token);
inline void check_token(std::uint64_t token, const char* what) {
  if (token == 0 || token != current_token()) throw_foreign_use(what, token);
}

// A dyn variable of the current run.
struct var_ref {
  std::uint64_t token = 0;  // 0: none (moved from)
  std::uint32_t id = 0;     // the engine's variable number
  std::uint32_t live = 0;   // the engine's record of this object (see release)
};

// Declares a variable (statement `var v: type [= init]`; init may be null).
var_ref declare(ir_type type, expr_ref init, const char* name);
// The generator's index-th parameter.
var_ref parameter(std::uint32_t index);
// Ends a variable object's life (the variable may be re-declared by the same
// statement later); a no-op for foreign or moved-from handles.
void release(const var_ref& v) noexcept;
// A read of `v` (the expression `v`).
expr_ref read(const var_ref& v, ir_type type);

void assign(const var_ref& v, expr_ref value);
void store(expr_ref pointer, expr_ref index, expr_ref value);
// The point where a dyn condition becomes a C++ bool: the first stage forks here.
bool branch(expr_ref cond);
// The generator returned (value null for void generators).
void finish(expr_ref value);

// ---------------------------------------------------------------- GPU kernels

// Mirror augur::ir::GpuIndex and AtomicOp, value for value. Each function
// below throws jit::staging_error outside the extraction of a kernel
// (extract_options::kernel).
enum class gpu_index : std::uint8_t { thread_idx, block_idx, block_dim, grid_dim };
enum class atomic_op : std::uint8_t { add, min, max, exchange, cas };

// thread_idx.x and the like (axis 0, 1, 2 for x, y, z), of type i32.
expr_ref gpu_index_of(gpu_index which, unsigned axis);
// atomic_op on pointer[index] with its value operands: it acts here (into a
// fresh variable, whose read is returned: the old value).
expr_ref atomic_now(atomic_op op, std::span<const expr_ref> args);
// Declares a block-shared array of `count` elements (`shared name: T[count];`).
var_ref declare_shared(ir_type pointer_type, std::uint32_t count, const char* name);
// A block-wide barrier (`barrier;`).
void barrier();

// ---------------------------------------------------------------- static state

struct stat_handle {
  std::uint64_t token = 0;  // 0: untracked (made outside an extraction)
  std::uint32_t key = 0;
};
stat_handle stat_attach(std::span<const std::byte> value) noexcept;
void stat_update(const stat_handle& h, std::span<const std::byte> old_value,
                 std::span<const std::byte> new_value) noexcept;
void stat_detach(const stat_handle& h, std::span<const std::byte> value) noexcept;

// ---------------------------------------------------------------- prophecies

// The engine-owned state of one prophecy (identity: its construction tag).
class prophecy_slot {
 public:
  virtual ~prophecy_slot() = default;
  // Makes the joined requirements of the last exploration the new prediction;
  // true if it changed.
  virtual bool commit() = 0;
  // After an exploration without misses: makes the join of every requirement
  // it made (each below the prediction) the new prediction, keeping the old
  // one for restore(); true if it changed.
  virtual bool narrow() = 0;
  // Back to the prediction before the last narrow(), with no misses.
  virtual void restore() = 0;
  // The prediction, printed (empty if the lattice cannot print values).
  virtual std::string describe() const = 0;

  const std::type_info* lattice = nullptr;
  source_site site;
};

// The slot of the prophecy constructed here (made by `make` on first sight).
prophecy_slot& prophecy_at(const std::type_info& lattice, source_site site,
                           std::unique_ptr<prophecy_slot> (*make)());
// A requirement that the prediction did not satisfy: the exploration goes on,
// and the first stage runs again with the joined prediction.
void prophecy_missed(prophecy_slot& slot);

// ---------------------------------------------------------------- generators

// A type-erased staged function: `run` executes the first stage once (made by
// jit::detail::generator_closure from a function and its static arguments,
// see extract.h).
struct generator {
  std::span<const ir_type> params;
  ir_type result;
  void (*run)(const void* self) = nullptr;
  const void* self = nullptr;
};

}  // namespace detail
}  // namespace jit
