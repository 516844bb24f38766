// The machinery of jit::dyn's operators (dyn.h): what kind of operand a type
// is, conversions of operands to IR expressions, C++'s result types, and the
// IR each operator builds.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "jit/detail/staging.h"

namespace jit {

template <class T>
class dyn;
template <class T>
class dyn_expr;
template <class T>
class dyn_ref;
template <class T>
class stat;

namespace detail {

// What kind of operand a type is, and the C++ type it stands for.
template <class X>
struct staged_traits {
  static constexpr bool is_dyn = false;
  static constexpr bool is_stat = false;
  using type = X;
};
template <class T>
struct staged_traits<dyn<T>> {
  static constexpr bool is_dyn = true;
  static constexpr bool is_stat = false;
  using type = T;
};
template <class T>
struct staged_traits<dyn_expr<T>> {
  static constexpr bool is_dyn = true;
  static constexpr bool is_stat = false;
  using type = T;
};
template <class T>
struct staged_traits<dyn_ref<T>> {
  static constexpr bool is_dyn = true;
  static constexpr bool is_stat = false;
  using type = std::remove_const_t<T>;
};
template <class T>
struct staged_traits<stat<T>> {
  static constexpr bool is_dyn = false;
  static constexpr bool is_stat = true;
  using type = T;
};

// The C++ type an operand stands for: T for dyn<T>, dyn_expr<T>, dyn_ref<T>
// and stat<T>; the type itself for plain values.
template <class X>
using value_t = typename staged_traits<std::remove_cvref_t<X>>::type;

// dyn<T>, dyn_expr<T>, dyn_ref<T>.
template <class X>
concept dyn_like = staged_traits<std::remove_cvref_t<X>>::is_dyn;

// A plain first-stage value usable as a constant: arithmetic, pointers, stat<T>.
template <class X>
concept plain_operand = !dyn_like<X> && (ir_value<std::remove_cvref_t<X>> ||
                                         staged_traits<std::remove_cvref_t<X>>::is_stat ||
                                         std::is_null_pointer_v<std::remove_cvref_t<X>>);

template <class X>
concept operand = dyn_like<X> || plain_operand<X>;

// A staged operand of type T.
template <class X, class T>
concept staged_of = dyn_like<X> && std::is_same_v<value_t<X>, T>;

template <class T>
dyn_expr<T> wrap(expr_ref e);

template <class X>
expr_ref unwrap(const X& x) {
  return x.expr();
}

struct parameter_tag {};

// The constant `v` as type T (converted now, as C++ would).
template <class T, class V>
expr_ref constant_as(const V& v) {
  if constexpr (std::is_null_pointer_v<V>) {
    static_assert(std::is_pointer_v<T>, "nullptr converts only to dyn pointers");
    return constant(ir_type_of<T>(), 0);
  } else if constexpr (std::is_pointer_v<T>) {
    // A host address: an integer constant cast to the pointer type.
    const expr_ref address =
        constant(ir_type_of<std::uint64_t>(), bits_of(reinterpret_cast<std::uintptr_t>(v)));
    return cast(ir_type_of<T>(), address);
  } else {
    return constant(ir_type_of<T>(), bits_of(static_cast<T>(v)));
  }
}

// The expression of operand `x` converted to type T (an IR cast where the
// types differ; a constant folded now for plain values).
template <class T, class X>
expr_ref as(const X& x) {
  using V = value_t<X>;
  if constexpr (dyn_like<X>) {
    expr_ref e = unwrap(x);
    if constexpr (std::is_same_v<V, T>) {
      return e;
    } else if constexpr (std::is_pointer_v<V> && std::is_pointer_v<T> &&
                         std::is_same_v<std::remove_cv_t<std::remove_pointer_t<V>>,
                                        std::remove_cv_t<std::remove_pointer_t<T>>>) {
      return e;  // const-ness is not part of the IR type
    } else {
      return cast(ir_type_of<T>(), std::move(e));
    }
  } else if constexpr (staged_traits<std::remove_cvref_t<X>>::is_stat) {
    return constant_as<T>(x.get());
  } else {
    return constant_as<T>(x);
  }
}

template <class A, class B>
using arithmetic_result_t = decltype(std::declval<A>() + std::declval<B>());

template <class T>
using promoted_t = decltype(+std::declval<T>());

// Converts any operand to the IR bool it tests (x != 0, p != null).
template <class X>
expr_ref truth_of(const X& x) {
  using V = value_t<X>;
  if constexpr (std::is_same_v<V, bool>) {
    return as<bool>(x);
  } else if constexpr (std::is_pointer_v<V>) {
    return binary(binary_op::ne, as<V>(x), constant(ir_type_of<V>(), 0));
  } else {
    return cast(ir_type_of<bool>(), as<V>(x));
  }
}

template <class T, class I>
concept indexable = std::is_pointer_v<T> && operand<I> && std::is_integral_v<value_t<I>>;

template <class T>
dyn_expr<T> wrap(expr_ref e) {
  return dyn_expr<T>(std::move(e));
}

// At least one operand is staged; the other may be a plain value.
template <class A, class B>
concept staged_pair = operand<A> && operand<B> &&(dyn_like<A> || dyn_like<B>);

template <class A, class B>
concept arithmetic_pair =
    staged_pair<A, B> && std::is_arithmetic_v<value_t<A>> && std::is_arithmetic_v<value_t<B>>;

template <class A, class B>
concept integral_pair =
    staged_pair<A, B> && std::is_integral_v<value_t<A>> && std::is_integral_v<value_t<B>>;

template <class A, class B>
concept pointer_offset =
    staged_pair<A, B> && std::is_pointer_v<value_t<A>> && std::is_integral_v<value_t<B>>;

template <class A, class B>
concept comparable_pair = staged_pair<A, B> &&
    ((std::is_arithmetic_v<value_t<A>> && std::is_arithmetic_v<value_t<B>>) ||
     (std::is_pointer_v<value_t<A>> &&
      (std::is_pointer_v<value_t<B>> || std::is_null_pointer_v<value_t<B>>)) ||
     (std::is_null_pointer_v<value_t<A>> && std::is_pointer_v<value_t<B>>));

template <binary_op Op, class A, class B>
auto arithmetic(const A& a, const B& b) {
  using R = arithmetic_result_t<value_t<A>, value_t<B>>;
  return wrap<R>(binary(Op, as<R>(a), as<R>(b)));
}

// compare and logical return a dyn_expr<bool>; the type is deduced, since
// dyn_expr (dyn.h) is still incomplete here.
template <binary_op Op, class A, class B>
auto compare(const A& a, const B& b) {
  using VA = value_t<A>;
  using VB = value_t<B>;
  if constexpr (std::is_pointer_v<VA> || std::is_pointer_v<VB>) {
    using P = std::conditional_t<std::is_pointer_v<VA>, VA, VB>;
    return wrap<bool>(binary(Op, as<P>(a), as<P>(b)));
  } else if constexpr (std::is_same_v<VA, VB>) {
    // Promotion would not change the outcome; keep the operands' own type.
    return wrap<bool>(binary(Op, as<VA>(a), as<VB>(b)));
  } else {
    using R = arithmetic_result_t<VA, VB>;
    return wrap<bool>(binary(Op, as<R>(a), as<R>(b)));
  }
}

template <binary_op Op, class A, class B>
auto shift(const A& a, const B& b) {
  using R = promoted_t<value_t<A>>;
  return wrap<R>(binary(Op, as<R>(a), as<R>(b)));
}

template <binary_op Op, class A, class B>
auto offset(const A& p, const B& i) {
  using P = value_t<A>;
  return wrap<P>(binary(Op, as<P>(p), as<promoted_t<value_t<B>>>(i)));
}

// A plain operand of && and || is decided now: `i == 1 && x > 0` is `x > 0`
// or `false`.
// `Bool` is bool through a dependent name: Clang checks a call that
// depends on no template parameter where it is written, before dyn_expr is
// complete.
template <binary_op Op, class A, class B>
auto logical(const A& a, const B& b) {
  constexpr bool is_and = Op == binary_op::logical_and;
  using Bool = typename std::enable_if<sizeof(A) != 0, bool>::type;
  if constexpr (!dyn_like<A>) {
    if (static_cast<bool>(a) != is_and) return wrap<Bool>(constant(ir_type_of<Bool>(), !is_and));
    return wrap<Bool>(truth_of(b));
  } else if constexpr (!dyn_like<B>) {
    if (static_cast<bool>(b) != is_and) return wrap<Bool>(constant(ir_type_of<Bool>(), !is_and));
    return wrap<Bool>(truth_of(a));
  } else {
    return wrap<bool>(binary(Op, truth_of(a), truth_of(b)));
  }
}

template <class T>
expr_ref stepped(const expr_ref& value, binary_op op) {
  if constexpr (std::is_pointer_v<T>) {
    return binary(op, value, constant(ir_type_of<int>(), 1));
  } else {
    return binary(op, value, constant(ir_type_of<T>(), bits_of(static_cast<T>(1))));
  }
}

template <class T>
concept steppable = (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || std::is_pointer_v<T>;

template <binary_op Step, binary_op Back, class T>
dyn_expr<T> post_step(dyn<T>& v) {
  if constexpr (std::is_floating_point_v<T>) {
    dyn<T> old = v;
    v = wrap<T>(stepped<T>(v.expr(), Step));
    return wrap<T>(old.expr());
  } else {
    v = wrap<T>(stepped<T>(v.expr(), Step));
    return wrap<T>(stepped<T>(v.expr(), Back));
  }
}

template <class X>
using float_of_t = std::conditional_t<std::is_floating_point_v<value_t<X>>, value_t<X>, double>;

// float if every operand is float, else double (as std::pow and std::fma).
template <class... X>
using float_result_t =
    std::conditional_t<(std::is_same_v<float_of_t<X>, float> && ...), float, double>;

template <class X>
concept arithmetic_dyn = dyn_like<X> && std::is_arithmetic_v<value_t<X>>;

template <class A, class B, class C>
concept arithmetic_triple = operand<A> && operand<B> && operand<C> &&
    (dyn_like<A> || dyn_like<B> || dyn_like<C>)&&std::is_arithmetic_v<
        value_t<A>>&& std::is_arithmetic_v<value_t<B>>&& std::is_arithmetic_v<value_t<C>>;

}  // namespace detail
}  // namespace jit
