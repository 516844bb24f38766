// The parts of jit::ir (ir.h) that its templates need: C++ signatures as IR
// types, and the entry points the library implements (runtime/api/ir.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "jit/compile_options.h"
#include "jit/detail/compile.h"
#include "jit/detail/staging.h"

namespace jit::ir {
class module;
struct interpret_options;
}  // namespace jit::ir

namespace jit::detail {

// A parsed module (runtime/api/ir.cpp).
struct ir_module_state;

// The IR types of a C++ signature, and its arguments in the canonical encoding.
template <class Signature>
struct ir_signature;
template <class R, class... P>
struct ir_signature<R(P...)> {
  static_assert(std::is_void_v<R> || ir_value<R>,
                "jit::ir: the result type must be void, bool, an integer, a float or a pointer");
  static_assert((ir_value<P> && ...),
                "jit::ir: parameter types must be bool, integers, floats or pointers");
  using result = R;
  static constexpr std::size_t arity = sizeof...(P);

  static constexpr ir_type result_type() { return ir_type_of<R>(); }
  static std::span<const ir_type> param_types() {
    static constexpr std::array<ir_type, sizeof...(P)> types{ir_type_of<P>()...};
    return types;
  }
  // Each argument converted to its parameter type, as a C++ call would.
  template <class... A>
  requires(sizeof...(A) ==
           sizeof...(P)) static std::array<std::uint64_t, sizeof...(P)> bits(A&&... args) {
    return {bits_as<P>(std::forward<A>(args))...};
  }

 private:
  template <class T>
  static std::uint64_t bits_as(T v) {
    return bits_of(v);
  }
};

// Runs `name` in the interpreter after checking the signature; returns the
// result's canonical bits (0 for void).
std::uint64_t interpret_ir(const ir::module& module, std::string_view name, ir_type result,
                           std::span<const ir_type> params, std::span<const std::uint64_t> args,
                           const ir::interpret_options& options);

// Compiles `name` through the cache after checking the signature.
compiled_entry compile_ir(const ir::module& module, std::string_view name, ir_type result,
                          std::span<const ir_type> params, const compile_options& options);

[[noreturn]] void throw_ir_value_type(const std::string& requested, const std::string& actual);

}  // namespace jit::detail
