// jit::stat<T>: a first-stage value that is part of the static state.
//
// The first stage is re-executed many times; Augur recognises a program point
// it has seen before (a loop back-edge, or code another run already produced)
// by its static tag: the call chain plus the values of every live stat<T>.
// So a plain C++ value that changes while dyn code runs around it (the counter
// of a loop whose body has dyn statements, a flag set under a dyn branch)
// must be a stat<T>; otherwise two different points look the same.
//
//   for (jit::stat<int> i = 0; i < 4; ++i) a[i] = a[i] * 2;   // unrolled 4 times
//
// A stat<T> behaves like a T (it converts to const T&). Updating it costs O(1):
// the static state is kept as an incrementally updated 128-bit hash.
// stat<T> objects made outside an extraction are plain values.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include "jit/detail/staging.h"

namespace jit {

template <class T>
class stat {
  static_assert(std::is_trivially_copyable_v<T>, "stat<T>: T must be trivially copyable");
  static_assert(std::has_unique_object_representations_v<T> || std::is_floating_point_v<T>,
                "stat<T>: T must have no padding (its bytes are the static state)");

 public:
  using value_type = T;

  stat() : stat(T{}) {}
  stat(const T& value) : value_(value), handle_(detail::stat_attach(bytes(value_))) {}
  stat(const stat& other) : stat(other.value_) {}
  ~stat() { detail::stat_detach(handle_, bytes(value_)); }

  stat& operator=(const T& value) {
    detail::stat_update(handle_, bytes(value_), bytes(value));
    value_ = value;
    return *this;
  }
  stat& operator=(const stat& other) { return *this = other.value_; }

  operator const T&() const { return value_; }
  const T& get() const { return value_; }

  template <class X>
  stat& operator+=(const X& x) {
    return *this = static_cast<T>(value_ + x);
  }
  template <class X>
  stat& operator-=(const X& x) {
    return *this = static_cast<T>(value_ - x);
  }
  template <class X>
  stat& operator*=(const X& x) {
    return *this = static_cast<T>(value_ * x);
  }
  template <class X>
  stat& operator/=(const X& x) {
    return *this = static_cast<T>(value_ / x);
  }
  template <class X>
  stat& operator%=(const X& x) {
    return *this = static_cast<T>(value_ % x);
  }
  template <class X>
  stat& operator&=(const X& x) {
    return *this = static_cast<T>(value_ & x);
  }
  template <class X>
  stat& operator|=(const X& x) {
    return *this = static_cast<T>(value_ | x);
  }
  template <class X>
  stat& operator^=(const X& x) {
    return *this = static_cast<T>(value_ ^ x);
  }
  template <class X>
  stat& operator<<=(const X& x) {
    return *this = static_cast<T>(value_ << x);
  }
  template <class X>
  stat& operator>>=(const X& x) {
    return *this = static_cast<T>(value_ >> x);
  }

  stat& operator++() { return *this += 1; }
  stat& operator--() { return *this -= 1; }
  T operator++(int) {
    T old = value_;
    ++*this;
    return old;
  }
  T operator--(int) {
    T old = value_;
    --*this;
    return old;
  }

 private:
  static std::span<const std::byte> bytes(const T& v) { return std::as_bytes(std::span(&v, 1)); }

  T value_;
  detail::stat_handle handle_;
};

}  // namespace jit
