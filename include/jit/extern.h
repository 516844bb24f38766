// Calling host C/C++ functions from staged code.
//
//   double scale(double x) { return 2 * x; }
//   void log_value(double v);
//
//   auto scale_fn = jit::register_external("scale", &scale, jit::effect::pure);
//   auto log_fn = jit::register_external("log_value", &log_value, jit::effect::effectful);
//   ...
//   jit::dyn<double> y = scale_fn(x);   // var y: f64 = @scale(x);
//   log_fn(y);                          // @log_value(y);
//
// Registration is process-wide and thread-safe; registering the same name
// again with the same function is a no-op, with another function or
// signature a jit::staging_error. The effect is a promise the optimizers rely
// on: `pure` calls may be merged, moved or dropped; `readonly` calls may read
// memory; `effectful` calls happen exactly where the first stage made them
// (an effectful call with a result is stored into a fresh variable at once).
// Parameter and result types must be ones a dyn value may have.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "jit/detail/staging.h"
#include "jit/dyn.h"

namespace jit {

template <class Signature>
class external;

template <class R, class... A>
class external<R(A...)> {
  static_assert(std::is_void_v<R> || detail::ir_value<R>,
                "external functions return void or a type a dyn value may have");
  static_assert((detail::ir_value<A> && ...),
                "external function parameters must be types a dyn value may have");

 public:
  explicit external(const detail::extern_entry& entry) : entry_(&entry) {}

  // The call @name(args...), converting each argument to its parameter type.
  template <detail::operand... X>
  requires(sizeof...(X) == sizeof...(A)) auto operator()(const X&... args) const {
    const std::array<detail::expr_ref, sizeof...(A) + 1> exprs{detail::as<A>(args)..., nullptr};
    const std::span<const detail::expr_ref> operands(exprs.data(), sizeof...(A));
    if constexpr (std::is_void_v<R>) {
      detail::call_now(*entry_, operands);
    } else if (detail::effect_of(*entry_) == effect::effectful) {
      return detail::wrap<R>(detail::call_now(*entry_, operands));
    } else {
      return detail::wrap<R>(detail::call(*entry_, operands));
    }
  }

 private:
  const detail::extern_entry* entry_;
};

namespace detail {
template <class R, class... A, std::size_t... I>
std::uint64_t invoke_with_bits(void (*fn)(), const std::uint64_t* args, std::index_sequence<I...>) {
  const auto typed = reinterpret_cast<R (*)(A...)>(fn);
  if constexpr (std::is_void_v<R>) {
    typed(from_bits<A>(args[I])...);
    return 0;
  } else {
    return bits_of<R>(typed(from_bits<A>(args[I])...));
  }
}
template <class R, class... A>
std::uint64_t invoke_bits(void (*fn)(), const std::uint64_t* args) {
  return invoke_with_bits<R, A...>(fn, args, std::index_sequence_for<A...>{});
}
}  // namespace detail

// Makes `fn` callable from staged code under `name`.
template <class R, class... A>
external<R(A...)> register_external(std::string name, R (*fn)(A...), effect e) {
  const std::array<detail::ir_type, sizeof...(A) + 1> params{detail::ir_type_of<A>()...,
                                                             detail::ir_type{}};
  return external<R(A...)>(detail::register_extern(
      std::move(name), reinterpret_cast<void (*)()>(fn), &detail::invoke_bits<R, A...>,
      detail::ir_type_of<R>(), std::span<const detail::ir_type>(params.data(), sizeof...(A)), e));
}

}  // namespace jit
