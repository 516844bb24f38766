// jit::dyn<T>: values of the staged program. Operations on them do not compute
// anything now; they append IR to the program being extracted (see
// docs/staging.md). Plain C++ values mixed into them become constants.
//
//   jit::dyn<double> power(jit::dyn<double> x, int n) {
//     jit::dyn<double> r = 1.0;                  // var r: f64 = 1.0f64;
//     for (jit::stat<int> e = n; e > 0; e = e / 2) {
//       if (e % 2 == 1) r = r * x;               // static if: decided now
//       x = x * x;
//     }
//     return r;
//   }
//
// - dyn<T> is a variable of the staged program; dyn_expr<T> an unnamed
//   expression (the result of an operator); dyn_ref<T> an element `p[i]`.
// - Operators follow C++: integer promotion and the usual arithmetic
//   conversions decide result types (so dyn<int8_t> + dyn<int8_t> is a
//   dyn_expr<int>), and conversions appear as IR casts.
// - A dyn condition converted to bool (if, while, for, ?:) is a fork: the first
//   stage runs once per outcome and the results merge. && and || on dyn values
//   build IR && / || (short-circuit in the staged program).
// - An expression is a tree, not a value: `auto e = x + 1; x = 5; y = e;`
//   stores 6. Store into a dyn<T> to keep a value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "jit/detail/dyn_ops.h"
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

// ---------------------------------------------------------------- dyn_expr

// An unnamed staged expression of type T: the result of an operator, a load,
// a cast, a call. It becomes code when stored into a dyn<T> or an element,
// used as a condition, or returned.
template <class T>
class dyn_expr {
  static_assert(detail::ir_value<T>,
                "dyn_expr<T>: T must be bool, an integer, float, double or a pointer to one of "
                "those");

 public:
  using value_type = T;

  // The expression of a variable or element of the same type (a read, a
  // load). Explicit, so that `c ? e : v` has one meaning (a dyn<T>).
  template <detail::staged_of<T> X>
  explicit dyn_expr(const X& x) : expr_(detail::unwrap(x)), token_(detail::current_token()) {}

  // Branch point: the first stage forks here.
  explicit operator bool() const { return detail::branch(detail::truth_of(*this)); }

  // p[i] on pointer expressions.
  template <class I>
  dyn_ref<std::remove_pointer_t<T>> operator[](
      const I& index) const requires detail::indexable<T, I> {
    return {expr(), detail::as<detail::value_t<I>>(index)};
  }

  // Its variables are numbered by the run that made it: in another run or
  // extraction they would name other variables, or none.
  const detail::expr_ref& expr() const {
    if (token_ != detail::current_token()) detail::throw_foreign_use("a jit::dyn_expr", token_);
    return expr_;
  }

 private:
  explicit dyn_expr(detail::expr_ref e) : expr_(std::move(e)), token_(detail::current_token()) {}
  friend dyn_expr detail::wrap<T>(detail::expr_ref);

  detail::expr_ref expr_;
  std::uint64_t token_;  // the run that made it (0: made outside any run)
};

// ---------------------------------------------------------------- dyn

// A variable of the staged program. Constructing one declares it; assigning
// emits an assignment. Copies are new variables; moves keep the variable.
template <class T>
class dyn {
  static_assert(detail::ir_value<T>,
                "dyn<T>: T must be bool, an integer, float, double or a pointer to one of those");

 public:
  using value_type = T;

  // var v: T;  (zero until assigned)
  dyn() : var_(detail::declare(detail::ir_type_of<T>(), nullptr, nullptr)) { cache(); }
  // A named variable (the name appears in the IR, made unique if taken).
  explicit dyn(const char* name) requires(!std::is_convertible_v<const char*, T>)
      : var_(detail::declare(detail::ir_type_of<T>(), nullptr, name)) {
    cache();
  }
  template <detail::operand X>
  dyn(const char* name, const X& init) requires(!std::is_convertible_v<const char*, T>)
      : var_(detail::declare(detail::ir_type_of<T>(), detail::as<T>(init), name)) {
    cache();
  }
  // var v: T = init;  (C++'s implicit conversions, as IR casts)
  template <detail::operand X>
  dyn(const X& init) requires(!std::is_same_v<std::remove_cvref_t<X>, dyn>)
      : var_(detail::declare(detail::ir_type_of<T>(), detail::as<T>(init), nullptr)) {
    cache();
  }
  dyn(const dyn& other) : var_(detail::declare(detail::ir_type_of<T>(), other.expr(), nullptr)) {
    cache();
  }
  dyn(dyn&& other) noexcept : var_(std::exchange(other.var_, {})), read_(std::move(other.read_)) {}
  // The generator's index-th parameter (made by jit::extract).
  dyn(detail::parameter_tag, std::uint32_t index) : var_(detail::parameter(index)) { cache(); }

  ~dyn() { detail::release(var_); }

  template <detail::operand X>
  dyn& operator=(const X& value) {
    detail::assign(var_, detail::as<T>(value));
    return *this;
  }
  dyn& operator=(const dyn& other) {
    detail::assign(var_, other.expr());
    return *this;
  }
  dyn& operator=(dyn&& other) { return *this = other; }

  // Branch point: the first stage forks here.
  explicit operator bool() const { return detail::branch(detail::truth_of(*this)); }

  template <class I>
  dyn_ref<std::remove_pointer_t<T>> operator[](
      const I& index) const requires detail::indexable<T, I> {
    return {expr(), detail::as<detail::value_t<I>>(index)};
  }

  // The expression `v` (a read of this variable).
  const detail::expr_ref& expr() const {
    detail::check_token(var_.token, "a jit::dyn variable");
    return read_;
  }

 private:
  void cache() { read_ = detail::read(var_, detail::ir_type_of<T>()); }

  detail::var_ref var_;
  detail::expr_ref read_;
};

// ---------------------------------------------------------------- dyn_ref

// The element `p[i]` of a dyn pointer: reading it is a load, assigning it a store.
template <class T>
class dyn_ref {
 public:
  using value_type = std::remove_const_t<T>;

  dyn_ref(detail::expr_ref pointer, detail::expr_ref index)
      : pointer_(std::move(pointer)), index_(std::move(index)), token_(detail::current_token()) {}
  dyn_ref(const dyn_ref&) = default;

  // p[i] = value
  template <detail::operand X>
  dyn_ref& operator=(const X& value) {
    static_assert(!std::is_const_v<T>, "cannot store through a pointer to const");
    detail::store(pointer(), index_, detail::as<value_type>(value));
    return *this;
  }
  // p[i] = q[j] stores the loaded element (it does not rebind the reference).
  dyn_ref& operator=(const dyn_ref& other) {
    static_assert(!std::is_const_v<T>, "cannot store through a pointer to const");
    detail::store(pointer(), index_, other.expr());
    return *this;
  }

  explicit operator bool() const { return detail::branch(detail::truth_of(*this)); }

  // The load `p[i]`.
  detail::expr_ref expr() const { return detail::load(pointer(), index_); }
  // The pointer and the index (intrinsics that act on an element's address,
  // such as jit::gpu::atomic_add, take the element).
  // Checks the run, as dyn_expr::expr() does.
  const detail::expr_ref& pointer() const {
    if (token_ != detail::current_token()) detail::throw_foreign_use("a jit::dyn element", token_);
    return pointer_;
  }
  const detail::expr_ref& index() const {
    pointer();
    return index_;
  }

 private:
  detail::expr_ref pointer_;
  detail::expr_ref index_;
  std::uint64_t token_;  // the run that made it
};

// ---------------------------------------------------------------- casts and select

// The staged conversion T(x), with the IR's cast semantics (docs/ir.md): float
// to integer saturates, pointer <-> 64-bit integer keeps the address.
template <class T, detail::operand X>
dyn_expr<T> cast(const X& x) requires detail::ir_value<T> {
  if constexpr (detail::dyn_like<X>) {
    return detail::wrap<T>(detail::as<T>(x));
  } else {
    return detail::wrap<T>(detail::constant_as<T>(detail::value_t<X>(x)));
  }
}

// c ? a : b as one expression (no fork): only the chosen operand is evaluated.
template <detail::operand C, detail::operand A, detail::operand B>
auto select(const C& cond, const A& a, const B& b) requires(detail::dyn_like<C> ||
                                                            detail::dyn_like<A> ||
                                                            detail::dyn_like<B>) {
  using VA = detail::value_t<A>;
  using R = std::conditional_t<std::is_pointer_v<VA>, VA,
                               detail::arithmetic_result_t<VA, detail::value_t<B>>>;
  return detail::wrap<R>(
      detail::select(detail::truth_of(cond), detail::as<R>(a), detail::as<R>(b)));
}

// ---------------------------------------------------------------- operators

#define AUGUR_DYN_BINARY(op, concept_name, how, code)                            \
  template <class A, class B>                                                    \
  auto operator op(const A& a, const B& b) requires detail::concept_name<A, B> { \
    return detail::how<detail::binary_op::code>(a, b);                           \
  }
AUGUR_DYN_BINARY(+, arithmetic_pair, arithmetic, add)
AUGUR_DYN_BINARY(-, arithmetic_pair, arithmetic, sub)
AUGUR_DYN_BINARY(*, arithmetic_pair, arithmetic, mul)
AUGUR_DYN_BINARY(/, arithmetic_pair, arithmetic, div)
AUGUR_DYN_BINARY(%, integral_pair, arithmetic, rem)
AUGUR_DYN_BINARY(&, integral_pair, arithmetic, bit_and)
AUGUR_DYN_BINARY(|, integral_pair, arithmetic, bit_or)
AUGUR_DYN_BINARY(^, integral_pair, arithmetic, bit_xor)
AUGUR_DYN_BINARY(<<, integral_pair, shift, shl)
AUGUR_DYN_BINARY(>>, integral_pair, shift, shr)
// Pointer arithmetic: p + i and p - i move by i elements.
AUGUR_DYN_BINARY(+, pointer_offset, offset, add)
AUGUR_DYN_BINARY(-, pointer_offset, offset, sub)
AUGUR_DYN_BINARY(==, comparable_pair, compare, eq)
AUGUR_DYN_BINARY(!=, comparable_pair, compare, ne)
AUGUR_DYN_BINARY(<, comparable_pair, compare, lt)
AUGUR_DYN_BINARY(<=, comparable_pair, compare, le)
AUGUR_DYN_BINARY(>, comparable_pair, compare, gt)
AUGUR_DYN_BINARY(>=, comparable_pair, compare, ge)
// && and || on staged values: IR && / || (the right operand is evaluated only
// when needed, in the staged program). Operands are tested like C++ does.
AUGUR_DYN_BINARY(&&, staged_pair, logical, logical_and)
AUGUR_DYN_BINARY(||, staged_pair, logical, logical_or)
#undef AUGUR_DYN_BINARY

template <detail::dyn_like A>
dyn_expr<bool> operator!(const A& a) {
  return detail::wrap<bool>(detail::unary(detail::unary_op::logical_not, detail::truth_of(a)));
}

template <detail::dyn_like A>
auto operator-(const A& a) requires std::is_arithmetic_v<detail::value_t<A>> {
  using R = detail::promoted_t<detail::value_t<A>>;
  return detail::wrap<R>(detail::unary(detail::unary_op::neg, detail::as<R>(a)));
}
template <detail::dyn_like A>
auto operator+(const A& a) requires std::is_arithmetic_v<detail::value_t<A>> {
  using R = detail::promoted_t<detail::value_t<A>>;
  return detail::wrap<R>(detail::as<R>(a));
}
template <detail::dyn_like A>
auto operator~(const A& a) requires std::is_integral_v<detail::value_t<A>> {
  using R = detail::promoted_t<detail::value_t<A>>;
  return detail::wrap<R>(detail::unary(detail::unary_op::bit_not, detail::as<R>(a)));
}

// *p is p[0].
template <detail::dyn_like A>
dyn_ref<std::remove_pointer_t<detail::value_t<A>>> operator*(
    const A& p) requires std::is_pointer_v<detail::value_t<A>> {
  return {detail::unwrap(p), detail::constant(detail::ir_type_of<int>(), 0)};
}

// ---------------------------------------------------------------- compound assignment

// v op= x is v = T(v op x), evaluated in the promoted type as C++ does.
#define AUGUR_DYN_COMPOUND(op)                                                 \
  template <class T, detail::operand X>                                        \
  dyn<T>& operator op##=(dyn<T>& target, const X& x) requires requires {       \
    cast<T>(target op x);                                                      \
  }                                                                            \
  {                                                                            \
    target = cast<T>(target op x);                                             \
    return target;                                                             \
  }                                                                            \
  template <class T, detail::operand X>                                        \
  dyn_ref<T> operator op##=(dyn_ref<T> target, const X& x) requires requires { \
    cast<std::remove_const_t<T>>(target op x);                                 \
  }                                                                            \
  {                                                                            \
    target = cast<std::remove_const_t<T>>(target op x);                        \
    return target;                                                             \
  }
AUGUR_DYN_COMPOUND(+)
AUGUR_DYN_COMPOUND(-)
AUGUR_DYN_COMPOUND(*)
AUGUR_DYN_COMPOUND(/)
AUGUR_DYN_COMPOUND(%)
AUGUR_DYN_COMPOUND(&)
AUGUR_DYN_COMPOUND(|)
AUGUR_DYN_COMPOUND(^)
AUGUR_DYN_COMPOUND(<<)
AUGUR_DYN_COMPOUND(>>)
#undef AUGUR_DYN_COMPOUND

// ++ and -- step integers and pointers in their own type (the same as C++'s
// result, as IR integer arithmetic wraps) and floats by 1.0.
template <detail::steppable T>
dyn<T>& operator++(dyn<T>& v) {
  return v = detail::wrap<T>(detail::stepped<T>(v.expr(), detail::binary_op::add));
}
template <detail::steppable T>
dyn<T>& operator--(dyn<T>& v) {
  return v = detail::wrap<T>(detail::stepped<T>(v.expr(), detail::binary_op::sub));
}
// v++ yields the old value: for integers and pointers the expression v - 1
// after the step (exact, as the step wraps); for floats a copy made before it.
template <detail::steppable T>
dyn_expr<T> operator++(dyn<T>& v, int) {
  return detail::post_step<detail::binary_op::add, detail::binary_op::sub>(v);
}
template <detail::steppable T>
dyn_expr<T> operator--(dyn<T>& v, int) {
  return detail::post_step<detail::binary_op::sub, detail::binary_op::add>(v);
}

// ---------------------------------------------------------------- math intrinsics

#define AUGUR_DYN_MATH1(name, code)                                                  \
  template <detail::arithmetic_dyn X>                                                \
  dyn_expr<detail::float_of_t<X>> name(const X& x) {                                 \
    using R = detail::float_of_t<X>;                                                 \
    return detail::wrap<R>(detail::math(detail::math_op::code, {detail::as<R>(x)})); \
  }
AUGUR_DYN_MATH1(sqrt, sqrt)
AUGUR_DYN_MATH1(fabs, fabs)
AUGUR_DYN_MATH1(floor, floor)
AUGUR_DYN_MATH1(exp, exp)
AUGUR_DYN_MATH1(log, log)
#undef AUGUR_DYN_MATH1

template <class A, class B>
auto pow(const A& a, const B& b) requires detail::arithmetic_pair<A, B> {
  using R = detail::float_result_t<A, B>;
  return detail::wrap<R>(detail::math(detail::math_op::pow, {detail::as<R>(a), detail::as<R>(b)}));
}

// min and max in the operands' common type (floats: IEEE minNum/maxNum).
template <class A, class B>
auto min(const A& a, const B& b) requires detail::arithmetic_pair<A, B> {
  using R = std::common_type_t<detail::value_t<A>, detail::value_t<B>>;
  return detail::wrap<R>(detail::math(detail::math_op::min, {detail::as<R>(a), detail::as<R>(b)}));
}
template <class A, class B>
auto max(const A& a, const B& b) requires detail::arithmetic_pair<A, B> {
  using R = std::common_type_t<detail::value_t<A>, detail::value_t<B>>;
  return detail::wrap<R>(detail::math(detail::math_op::max, {detail::as<R>(a), detail::as<R>(b)}));
}

// a * b + c rounded once.
template <class A, class B, class C>
auto fma(const A& a, const B& b, const C& c) requires detail::arithmetic_triple<A, B, C> {
  using R = detail::float_result_t<A, B, C>;
  return detail::wrap<R>(
      detail::math(detail::math_op::fma, {detail::as<R>(a), detail::as<R>(b), detail::as<R>(c)}));
}

}  // namespace jit
