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

template <class X>
struct staged_traits {
  static constexpr bool is_dyn = false;
  static constexpr bool is_stat = false;
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

// dyn<T>, dyn_expr<T>, dyn_ref<T>.
template <class X>
concept dyn_like = staged_traits<std::remove_cvref_t<X>>::is_dyn;

// A plain first-stage value usable as a constant: arithmetic, pointers, stat<T>.
template <class X>
concept plain_operand =
    !dyn_like<X> &&
    (ir_value<std::remove_cvref_t<X>> || staged_traits<std::remove_cvref_t<X>>::is_stat ||
     std::is_null_pointer_v<std::remove_cvref_t<X>> ||
     (std::is_pointer_v<std::remove_cvref_t<X>> &&
      ir_value<std::remove_cv_t<std::remove_pointer_t<std::remove_cvref_t<X>>>*>));

template <class X>
concept operand = dyn_like<X> || plain_operand<X>;

// The C++ type an operand stands for.
template <class X>
struct value_of {
  using type = std::remove_cvref_t<X>;
};
template <class X>
requires dyn_like<X> || staged_traits<std::remove_cvref_t<X>>::is_stat struct value_of<X> {
  using type = typename staged_traits<std::remove_cvref_t<X>>::type;
};
template <class X>
using value_t = typename value_of<X>::type;

template <class T>
dyn_expr<T> wrap(expr_ref e);

struct parameter_tag {};

template <class X>
expr_ref unwrap(const X& x);

// The constant `v` as type T (converted now, as C++ would).
template <class T, class V>
expr_ref constant_as(const V& v) {
  if constexpr (std::is_null_pointer_v<V>) {
    static_assert(std::is_pointer_v<T>, "nullptr converts only to dyn pointers");
    return constant(ir_type_of<T>(), 0);
  } else if constexpr (std::is_pointer_v<T> && !std::is_null_pointer_v<V>) {
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
    if constexpr (std::is_same_v<std::remove_cv_t<V>, T>) {
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

}  // namespace detail

// ---------------------------------------------------------------- dyn_expr

// An unnamed staged expression of type T: the result of an operator, a load,
// a cast, a call. It becomes code when stored into a dyn<T> or an element,
// used as a condition, or returned.
template <class T>
class dyn_expr {
  static_assert(detail::ir_value<T>,
                "dyn_expr<T>: T must be bool, an integer, float, double "
                "or a pointer to one of those");

 public:
  using value_type = T;

  // The expression of a variable or element of the same type (a read, a load).
  template <detail::dyn_like X>
  requires std::is_same_v<detail::value_t<X>, T> dyn_expr(const X& x) : expr_(detail::unwrap(x)) {}

  // Branch point: the first stage forks here.
  explicit operator bool() const { return detail::branch(detail::truth_of(*this)); }

  // p[i] on pointer expressions.
  template <detail::operand I>
  requires std::is_pointer_v<T> && std::is_integral_v<detail::value_t<I>>
      dyn_ref<std::remove_pointer_t<T>>
  operator[](const I& index) const;

  const detail::expr_ref& expr() const { return expr_; }

 private:
  explicit dyn_expr(detail::expr_ref e) : expr_(std::move(e)) {}
  friend dyn_expr detail::wrap<T>(detail::expr_ref);

  detail::expr_ref expr_;
};

namespace detail {
template <class T>
dyn_expr<T> wrap(expr_ref e) {
  return dyn_expr<T>(std::move(e));
}
}  // namespace detail

// ---------------------------------------------------------------- dyn

// A variable of the staged program. Constructing one declares it; assigning
// emits an assignment. Copies are new variables; moves keep the variable.
template <class T>
class dyn {
  static_assert(detail::ir_value<T>,
                "dyn<T>: T must be bool, an integer, float, double or a "
                "pointer to one of those");

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
  requires(!std::is_convertible_v<const char*, T>) dyn(const char* name, const X& init)
      : var_(detail::declare(detail::ir_type_of<T>(), detail::as<T>(init), name)) {
    cache();
  }
  // var v: T = init;  (C++'s implicit conversions, as IR casts)
  template <detail::operand X>
  requires(!std::is_same_v<std::remove_cvref_t<X>, dyn<T>>) dyn(const X& init)
      : var_(detail::declare(detail::ir_type_of<T>(), detail::as<T>(init), nullptr)) {
    cache();
  }
  dyn(const dyn& other) : var_(detail::declare(detail::ir_type_of<T>(), other.expr(), nullptr)) {
    cache();
  }
  dyn(dyn&& other) noexcept : var_(std::exchange(other.var_, {})), read_(std::move(other.read_)) {}

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

  // The generator's index-th parameter (made by jit::extract).
  dyn(detail::parameter_tag, std::uint32_t index) : var_(detail::parameter(index)) { cache(); }

  // Branch point: the first stage forks here.
  explicit operator bool() const { return detail::branch(detail::truth_of(*this)); }

  template <detail::operand I>
  requires std::is_pointer_v<T> && std::is_integral_v<detail::value_t<I>>
      dyn_ref<std::remove_pointer_t<T>>
  operator[](const I& index) const;

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
      : pointer_(std::move(pointer)), index_(std::move(index)) {}

  dyn_ref(const dyn_ref&) = default;

  // p[i] = value
  template <detail::operand X>
  dyn_ref& operator=(const X& value) {
    static_assert(!std::is_const_v<T>, "cannot store through a pointer to const");
    detail::store(pointer_, index_, detail::as<value_type>(value));
    return *this;
  }
  // p[i] = q[j] stores the loaded element (it does not rebind the reference).
  dyn_ref& operator=(const dyn_ref& other) {
    static_assert(!std::is_const_v<T>, "cannot store through a pointer to const");
    detail::store(pointer_, index_, other.expr());
    return *this;
  }

  explicit operator bool() const { return detail::branch(detail::truth_of(*this)); }

  // The load `p[i]`.
  detail::expr_ref expr() const { return detail::load(pointer_, index_); }

 private:
  detail::expr_ref pointer_;
  detail::expr_ref index_;
};

template <class T>
template <detail::operand I>
requires std::is_pointer_v<T> && std::is_integral_v<detail::value_t<I>>
    dyn_ref<std::remove_pointer_t<T>> dyn<T>::operator[](const I& index) const {
  return {expr(), detail::as<detail::value_t<I>>(index)};
}

template <class T>
template <detail::operand I>
requires std::is_pointer_v<T> && std::is_integral_v<detail::value_t<I>>
    dyn_ref<std::remove_pointer_t<T>> dyn_expr<T>::operator[](const I& index) const {
  return {expr_, detail::as<detail::value_t<I>>(index)};
}

namespace detail {
template <class X>
expr_ref unwrap(const X& x) {
  return x.expr();
}
}  // namespace detail

// ---------------------------------------------------------------- casts

// The staged conversion T(x), with the IR's cast semantics (docs/ir.md): float
// to integer saturates, pointer <-> 64-bit integer keeps the address.
template <class T, detail::operand X>
requires detail::ir_value<T> dyn_expr<T> cast(const X& x) {
  if constexpr (detail::dyn_like<X>) {
    return detail::wrap<T>(detail::as<T>(x));
  } else {
    return detail::wrap<T>(detail::constant_as<T>(detail::value_t<X>(x)));
  }
}

// c ? a : b as one expression (no fork): only the chosen operand is evaluated.
template <detail::operand C, detail::operand A, detail::operand B>
requires(detail::dyn_like<C> || detail::dyn_like<A> ||
         detail::dyn_like<B>) auto select(const C& cond, const A& a, const B& b) {
  using R = std::conditional_t<std::is_pointer_v<detail::value_t<A>>, detail::value_t<A>,
                               detail::arithmetic_result_t<detail::value_t<A>, detail::value_t<B>>>;
  return detail::wrap<R>(
      detail::select(detail::truth_of(cond), detail::as<R>(a), detail::as<R>(b)));
}

// ---------------------------------------------------------------- operators

namespace detail {

// At least one operand is staged; the other may be a plain value.
template <class A, class B>
concept staged_pair = operand<A> && operand<B> &&(dyn_like<A> || dyn_like<B>);

template <class A, class B>
concept arithmetic_pair =
    staged_pair<A, B> && std::is_arithmetic_v<value_t<A>> && std::is_arithmetic_v<value_t<B>>;

template <class A, class B>
concept integral_pair =
    staged_pair<A, B> && std::is_integral_v<value_t<A>> && std::is_integral_v<value_t<B>>;

template <binary_op Op, class A, class B>
auto arithmetic(const A& a, const B& b) {
  using R = arithmetic_result_t<value_t<A>, value_t<B>>;
  return wrap<R>(binary(Op, as<R>(a), as<R>(b)));
}

template <binary_op Op, class A, class B>
dyn_expr<bool> compare(const A& a, const B& b) {
  using VA = value_t<A>;
  using VB = value_t<B>;
  if constexpr (std::is_pointer_v<VA> || std::is_pointer_v<VB> || std::is_null_pointer_v<VA> ||
                std::is_null_pointer_v<VB>) {
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

template <class A, class B>
concept pointer_offset =
    staged_pair<A, B> && std::is_pointer_v<value_t<A>> && std::is_integral_v<value_t<B>>;

template <class A, class B>
concept comparable_pair = staged_pair<A, B> &&
    ((std::is_arithmetic_v<value_t<A>> && std::is_arithmetic_v<value_t<B>>) ||
     (std::is_pointer_v<value_t<A>> &&
      (std::is_pointer_v<value_t<B>> || std::is_null_pointer_v<value_t<B>>)) ||
     (std::is_null_pointer_v<value_t<A>> && std::is_pointer_v<value_t<B>>));

}  // namespace detail

#define AUGUR_DYN_ARITHMETIC(op, code)                        \
  template <class A, class B>                                 \
  requires detail::arithmetic_pair<A, B>                      \
  auto operator op(const A& a, const B& b) {                  \
    return detail::arithmetic<detail::binary_op::code>(a, b); \
  }
AUGUR_DYN_ARITHMETIC(*, mul)
AUGUR_DYN_ARITHMETIC(/, div)
#undef AUGUR_DYN_ARITHMETIC

template <class A, class B>
requires detail::arithmetic_pair<A, B>
auto operator+(const A& a, const B& b) {
  return detail::arithmetic<detail::binary_op::add>(a, b);
}
template <class A, class B>
requires detail::arithmetic_pair<A, B>
auto operator-(const A& a, const B& b) {
  return detail::arithmetic<detail::binary_op::sub>(a, b);
}
template <class A, class B>
requires detail::integral_pair<A, B>
auto operator%(const A& a, const B& b) {
  return detail::arithmetic<detail::binary_op::rem>(a, b);
}

// Pointer arithmetic: p + i and p - i move by i elements.
template <class A, class B>
requires detail::pointer_offset<A, B> dyn_expr<detail::value_t<A>>
operator+(const A& p, const B& i) {
  using P = detail::value_t<A>;
  using I = detail::promoted_t<detail::value_t<B>>;
  return detail::wrap<P>(
      detail::binary(detail::binary_op::add, detail::as<P>(p), detail::as<I>(i)));
}
template <class A, class B>
requires detail::pointer_offset<A, B> dyn_expr<detail::value_t<A>>
operator-(const A& p, const B& i) {
  using P = detail::value_t<A>;
  using I = detail::promoted_t<detail::value_t<B>>;
  return detail::wrap<P>(
      detail::binary(detail::binary_op::sub, detail::as<P>(p), detail::as<I>(i)));
}

#define AUGUR_DYN_BITWISE(op, code)                           \
  template <class A, class B>                                 \
  requires detail::integral_pair<A, B>                        \
  auto operator op(const A& a, const B& b) {                  \
    return detail::arithmetic<detail::binary_op::code>(a, b); \
  }
AUGUR_DYN_BITWISE(&, bit_and)
AUGUR_DYN_BITWISE(|, bit_or)
AUGUR_DYN_BITWISE(^, bit_xor)
#undef AUGUR_DYN_BITWISE

template <class A, class B>
requires detail::integral_pair<A, B>
auto operator<<(const A& a, const B& b) {
  return detail::shift<detail::binary_op::shl>(a, b);
}
template <class A, class B>
requires detail::integral_pair<A, B>
auto operator>>(const A& a, const B& b) {
  return detail::shift<detail::binary_op::shr>(a, b);
}

#define AUGUR_DYN_COMPARE(op, code)                        \
  template <class A, class B>                              \
  requires detail::comparable_pair<A, B> dyn_expr<bool>    \
  operator op(const A& a, const B& b) {                    \
    return detail::compare<detail::binary_op::code>(a, b); \
  }
AUGUR_DYN_COMPARE(==, eq)
AUGUR_DYN_COMPARE(!=, ne)
AUGUR_DYN_COMPARE(<, lt)
AUGUR_DYN_COMPARE(<=, le)
AUGUR_DYN_COMPARE(>, gt)
AUGUR_DYN_COMPARE(>=, ge)
#undef AUGUR_DYN_COMPARE

// && and || on staged values: IR && / || (the right operand is evaluated only
// when needed, in the staged program). Operands are tested like C++ does. A
// plain operand is decided now: `i == 1 && x > 0` is `x > 0` or `false`.
namespace detail {
template <binary_op Op, class A, class B>
dyn_expr<bool> logical(const A& a, const B& b) {
  constexpr bool is_and = Op == binary_op::logical_and;
  if constexpr (!dyn_like<A>) {
    if (static_cast<bool>(a) != is_and) return wrap<bool>(constant(ir_type_of<bool>(), !is_and));
    return wrap<bool>(truth_of(b));
  } else if constexpr (!dyn_like<B>) {
    if (static_cast<bool>(b) != is_and) return wrap<bool>(constant(ir_type_of<bool>(), !is_and));
    return wrap<bool>(truth_of(a));
  } else {
    return wrap<bool>(binary(Op, truth_of(a), truth_of(b)));
  }
}
}  // namespace detail

template <class A, class B>
requires detail::staged_pair<A, B> dyn_expr<bool>
operator&&(const A& a, const B& b) {
  return detail::logical<detail::binary_op::logical_and>(a, b);
}
template <class A, class B>
requires detail::staged_pair<A, B> dyn_expr<bool>
operator||(const A& a, const B& b) {
  return detail::logical<detail::binary_op::logical_or>(a, b);
}

template <detail::dyn_like A>
dyn_expr<bool> operator!(const A& a) {
  return detail::wrap<bool>(detail::unary(detail::unary_op::logical_not, detail::truth_of(a)));
}

template <detail::dyn_like A>
requires std::is_arithmetic_v<detail::value_t<A>>
auto operator-(const A& a) {
  using R = detail::promoted_t<detail::value_t<A>>;
  return detail::wrap<R>(detail::unary(detail::unary_op::neg, detail::as<R>(a)));
}
template <detail::dyn_like A>
requires std::is_arithmetic_v<detail::value_t<A>>
auto operator+(const A& a) {
  using R = detail::promoted_t<detail::value_t<A>>;
  return detail::wrap<R>(detail::as<R>(a));
}
template <detail::dyn_like A>
requires std::is_integral_v<detail::value_t<A>>
auto operator~(const A& a) {
  using R = detail::promoted_t<detail::value_t<A>>;
  return detail::wrap<R>(detail::unary(detail::unary_op::bit_not, detail::as<R>(a)));
}

// *p is p[0].
template <detail::dyn_like A>
requires std::is_pointer_v<detail::value_t<A>> dyn_ref<std::remove_pointer_t<detail::value_t<A>>>
operator*(const A& p) {
  return {detail::unwrap(p), detail::constant(detail::ir_type_of<int>(), 0)};
}

// ---------------------------------------------------------------- compound assignment

// v op= x is v = T(v op x), evaluated in the promoted type as C++ does.
#define AUGUR_DYN_COMPOUND(op)                               \
  template <class T, detail::operand X>                      \
  requires requires(const dyn<T>& l, const X& r) {           \
    l op r;                                                  \
  }                                                          \
  dyn<T>& operator op##=(dyn<T>& target, const X& x) {       \
    target = cast<T>(target op x);                           \
    return target;                                           \
  }                                                          \
  template <class T, detail::operand X>                      \
  requires requires(const dyn_ref<T>& l, const X& r) {       \
    l op r;                                                  \
  }                                                          \
  dyn_ref<T> operator op##=(dyn_ref<T> target, const X& x) { \
    target = cast<std::remove_const_t<T>>(target op x);      \
    return target;                                           \
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
namespace detail {
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
}  // namespace detail

template <class T>
requires detail::steppable<T> dyn<T>
&operator++(dyn<T>& v) {
  v = detail::wrap<T>(detail::stepped<T>(v.expr(), detail::binary_op::add));
  return v;
}
template <class T>
requires detail::steppable<T> dyn<T>
&operator--(dyn<T>& v) {
  v = detail::wrap<T>(detail::stepped<T>(v.expr(), detail::binary_op::sub));
  return v;
}
// v++ yields the old value: for integers and pointers the expression v - 1
// after the step (exact, as the step wraps); for floats a copy made before it.
template <class T>
requires detail::steppable<T> dyn_expr<T>
operator++(dyn<T>& v, int) {
  if constexpr (std::is_floating_point_v<T>) {
    dyn<T> old = v;
    ++v;
    return detail::wrap<T>(old.expr());
  } else {
    ++v;
    return detail::wrap<T>(detail::stepped<T>(v.expr(), detail::binary_op::sub));
  }
}
template <class T>
requires detail::steppable<T> dyn_expr<T>
operator--(dyn<T>& v, int) {
  if constexpr (std::is_floating_point_v<T>) {
    dyn<T> old = v;
    --v;
    return detail::wrap<T>(old.expr());
  } else {
    --v;
    return detail::wrap<T>(detail::stepped<T>(v.expr(), detail::binary_op::add));
  }
}

// ---------------------------------------------------------------- math intrinsics

namespace detail {
template <class X>
using float_of_t = std::conditional_t<std::is_floating_point_v<value_t<X>>, value_t<X>, double>;

template <class... X>
using math_common_t = std::common_type_t<value_t<X>...>;

template <class... X>
concept staged_args = (operand<X> && ...) && (dyn_like<X> || ...);
}  // namespace detail

#define AUGUR_DYN_MATH1(name, code)                                                       \
  template <detail::dyn_like X>                                                           \
  requires std::is_arithmetic_v<detail::value_t<X>> dyn_expr<detail::float_of_t<X>> name( \
      const X& x) {                                                                       \
    using R = detail::float_of_t<X>;                                                      \
    return detail::wrap<R>(detail::math(detail::math_op::code, {detail::as<R>(x)}));      \
  }
AUGUR_DYN_MATH1(sqrt, sqrt)
AUGUR_DYN_MATH1(fabs, fabs)
AUGUR_DYN_MATH1(floor, floor)
AUGUR_DYN_MATH1(exp, exp)
AUGUR_DYN_MATH1(log, log)
#undef AUGUR_DYN_MATH1

template <class A, class B>
requires detail::arithmetic_pair<A, B>
auto pow(const A& a, const B& b) {
  using R = std::conditional_t<
      std::is_same_v<detail::math_common_t<detail::float_of_t<A>, detail::float_of_t<B>>, float>,
      float, double>;
  return detail::wrap<R>(detail::math(detail::math_op::pow, {detail::as<R>(a), detail::as<R>(b)}));
}

// min and max in the operands' common type (floats: IEEE minNum/maxNum).
template <class A, class B>
requires detail::arithmetic_pair<A, B>
auto min(const A& a, const B& b) {
  using R = detail::math_common_t<A, B>;
  return detail::wrap<R>(detail::math(detail::math_op::min, {detail::as<R>(a), detail::as<R>(b)}));
}
template <class A, class B>
requires detail::arithmetic_pair<A, B>
auto max(const A& a, const B& b) {
  using R = detail::math_common_t<A, B>;
  return detail::wrap<R>(detail::math(detail::math_op::max, {detail::as<R>(a), detail::as<R>(b)}));
}

// a * b + c rounded once.
template <class A, class B, class C>
requires detail::staged_args<A, B, C> && std::is_arithmetic_v<detail::value_t<A>> &&
    std::is_arithmetic_v<detail::value_t<B>> && std::is_arithmetic_v<detail::value_t<C>>
auto fma(const A& a, const B& b, const C& c) {
  using R = std::conditional_t<
      std::is_same_v<detail::math_common_t<detail::float_of_t<A>, detail::float_of_t<B>,
                                           detail::float_of_t<C>>,
                     float>,
      float, double>;
  return detail::wrap<R>(
      detail::math(detail::math_op::fma, {detail::as<R>(a), detail::as<R>(b), detail::as<R>(c)}));
}

}  // namespace jit
