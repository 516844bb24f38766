// jit::ir: programs written in Augur's IR text form (docs/ir.md) instead of
// staged, for front ends that generate code themselves.
//
//   jit::ir::module m = jit::ir::parse(R"(
//     fn add(a: i32, b: i32) -> i32 { return a + b; }
//   )");
//   m.verify();                                            // jit::verify_error if not
//   int v = m.interpret<int(int, int)>("add", 2, 3);      // the IR interpreter
//   jit::function<int(int, int)> f = jit::ir::compile<int(int, int)>(m, "add");
//   int w = f(2, 3);                                       // native code
//
// compile() runs jit::compile's pipeline from the optimizer on: the PEG
// optimizer at O2 and above (registered rules and externs included), the CPU
// backend, the in-memory cache and the disk cache. Calls to externs resolve to
// the functions registered by jit::register_external (extern.h), by name and
// signature, in the interpreter and in compiled code alike.
//
// A module is an immutable value: copies share it, and any number of threads
// may use one at once. Errors are jit::error subclasses (error.h):
// parse_error with the line and column, verify_error with the function and
// statement path, trap_error for a trap in the interpreter.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "jit/compile_options.h"
#include "jit/detail/ir_api.h"
#include "jit/error.h"
#include "jit/function.h"

namespace jit::ir {

// An IR type: void, bool, i8..i64, u8..u64, f32, f64, or a pointer to one of
// the non-void ones.
class type {
 public:
  // void.
  constexpr type() = default;
  // The IR type of the C++ type T (int → i32, double* → f64*, void → void).
  template <class T>
  static constexpr type of() {
    return type(detail::ir_type_of<T>());
  }
  // Parses a type name as the text form spells it ("i32", "f64*"); throws
  // jit::error for anything else.
  static type named(std::string_view name);

  // As the text form spells it: "i32", "f64*", "void".
  std::string name() const;
  bool is_pointer() const { return type_.pointer; }
  bool is_void() const { return !type_.pointer && type_.element == detail::scalar::void_; }

  friend constexpr bool operator==(type a, type b) {
    return a.type_.element == b.type_.element && a.type_.pointer == b.type_.pointer;
  }

 private:
  constexpr explicit type(detail::ir_type t) : type_(t) {}
  detail::ir_type type_;
};

// A typed value for module::interpret: a bool, integer, float or pointer.
class value {
 public:
  // The void value (what a void function returns).
  value() = default;
  // Implicit, so that argument lists read as values: {2.0, 3} is f64 2 and
  // i32 3.
  template <class T>
  requires detail::ir_value<T> value(T v) : type_(ir::type::of<T>()), bits_(detail::bits_of(v)) {}

  // A value of type `t` from its canonical encoding (see bits()).
  static value from_bits(ir::type t, std::uint64_t bits) {
    value v;
    v.type_ = t;
    v.bits_ = bits;
    return v;
  }

  ir::type type() const { return type_; }
  // The value as T; throws jit::error unless T's IR type is type().
  template <class T>
  T as() const {
    if (ir::type::of<T>() != type_)
      detail::throw_ir_value_type(ir::type::of<T>().name(), type_.name());
    return detail::from_bits<T>(bits_);
  }
  // The canonical 64-bit encoding (docs/ir.md: integers zero-extended from
  // their width, f32 in the low 32 bits).
  std::uint64_t bits() const { return bits_; }

 private:
  ir::type type_;
  std::uint64_t bits_ = 0;
};

struct parameter {
  std::string name;
  ir::type type;
};

// A function of a module as its header declares it.
struct function_info {
  std::string name;
  std::vector<parameter> params;
  ir::type result;
  bool kernel = false;  // a GPU entry point (docs/gpu.md); interpret() and compile() refuse it

  // "fn add(a: i32, b: i32) -> i32", as the text form writes the header.
  std::string signature() const;
};

// Memory the interpreter may touch in bounds-checked mode.
struct buffer {
  const void* base = nullptr;
  std::size_t bytes = 0;
  std::string name;  // in trap messages
};

struct interpret_options {
  // Trap (jit::trap_error) on any load or store outside `buffers`.
  bool bounds_check = false;
  std::vector<buffer> buffers;
  // Trap after this many executed instructions; 0: no limit. For programs
  // that may not terminate.
  std::uint64_t step_limit = 0;
};

class module {
 public:
  // An empty module.
  module();

  // The canonical text (docs/ir.md): print → parse → print is the identity.
  std::string print() const;
  // Every verifier problem, in program order; empty when the module is valid.
  std::vector<verify_error> check() const;
  // Throws check()'s first problem: where() names the function and statement
  // path, the message what is wrong.
  void verify() const;
  // The 128-bit content hash (docs/ir.md, "Content hash") in hex: stable
  // across processes, blind to variable names.
  std::string content_hash() const;

  // The functions in textual order.
  std::vector<function_info> functions() const;
  // The function `name`; throws jit::error naming the module's functions if
  // there is none.
  function_info function(std::string_view name) const;

  // Runs `name` in the IR interpreter with one argument per parameter, of the
  // parameter's type exactly. The module is verified first. Throws
  // jit::trap_error on a trap (division by zero, a null or, bounds-checked,
  // an out-of-bounds access), jit::error on a missing function, a kernel,
  // a wrong argument count or type, or an extern not registered with that
  // signature. Each call prepares the function anew (microseconds for small
  // functions; linear in its size).
  value interpret(std::string_view name, std::span<const value> args,
                  const interpret_options& options = {}) const;
  // Typed: m.interpret<double(double, int)>("f", 2.0, 3). The signature must
  // match the function's exactly (jit::error naming both otherwise).
  // The arguments convert to the parameter types as in a C++ call.
  template <class Signature, class... A>
  requires(sizeof...(A) == detail::ir_signature<Signature>::arity)
      typename detail::ir_signature<Signature>::result
      interpret(std::string_view name, A&&... args) const {
    return interpret_typed<Signature>(name, interpret_options{}, std::forward<A>(args)...);
  }
  template <class Signature, class... A>
  requires(sizeof...(A) == detail::ir_signature<Signature>::arity)
      typename detail::ir_signature<Signature>::result
      interpret(std::string_view name, const interpret_options& options, A&&... args) const {
    return interpret_typed<Signature>(name, options, std::forward<A>(args)...);
  }

  // The implementation's (runtime/api/ir.cpp).
  explicit module(std::shared_ptr<const detail::ir_module_state> state);
  const detail::ir_module_state& state() const { return *state_; }

 private:
  template <class Signature, class... A>
  typename detail::ir_signature<Signature>::result interpret_typed(std::string_view name,
                                                                   const interpret_options& options,
                                                                   A&&... args) const {
    using signature = detail::ir_signature<Signature>;
    const auto args_bits = signature::bits(std::forward<A>(args)...);
    const std::uint64_t result = detail::interpret_ir(*this, name, signature::result_type(),
                                                      signature::param_types(), args_bits, options);
    if constexpr (!std::is_void_v<typename signature::result>) {
      return detail::from_bits<typename signature::result>(result);
    }
  }

  std::shared_ptr<const detail::ir_module_state> state_;
};

// Parses the text form. Throws jit::parse_error (where(): `file`, line and
// column, both from 1; the column counts bytes) for text that does not parse,
// and jit::verify_error, also with the line and column, for an ill-typed
// expression. The result is not verified yet: see module::verify().
module parse(std::string_view text, std::string_view file = "<input>");

// Compiles function `name` of `module` to native code through jit::compile's
// pipeline (above) and returns it as a jit::function<Signature>. Signature
// must match the function's header exactly (int is i32, long i64, double*
// f64*): otherwise jit::error names both. Only `name` and the externs it calls
// are compiled; other functions of the module are not part of the key.
//
// Cached: a request for the same function text (the same canonical text,
// variable names included) and options returns the version compiled before,
// and concurrent requests share one compilation. A repeated request costs a
// lookup keyed on that text (a fraction of a microsecond for small
// functions), plus, the first time for a module object, printing and
// verifying the function (docs/ir.md, "Using the IR from C++").
// `options.name` and `options.extraction` are not used: the function keeps
// its IR name. The function must verify (jit::verify_error otherwise); the
// errors of jit::compile apply too (docs/compile.md, "Errors").
template <class Signature>
jit::function<Signature> compile(const module& module, std::string_view name,
                                 const compile_options& options = {}) {
  using signature = detail::ir_signature<Signature>;
  detail::compiled_entry entry =
      detail::compile_ir(module, name, signature::result_type(), signature::param_types(), options);
  using result = jit::function<Signature>;
  return result(reinterpret_cast<typename result::pointer_type>(entry.address),
                std::move(entry.owner));
}

}  // namespace jit::ir
