// IR types: void, bool, fixed-width integers, f32/f64, and pointers to scalars.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace augur::ir {

enum class Scalar : std::uint8_t { Void, Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64 };

// A value type: a scalar, or a pointer to a non-void scalar. Pointers are one
// level deep; the pointee's size scales indexing (`p[i]`, `p + i`).
class Type {
 public:
  constexpr Type() = default;  // void
  constexpr Type(Scalar scalar, bool pointer = false) : scalar_(scalar), pointer_(pointer) {}

  static constexpr Type void_() { return Type(Scalar::Void); }
  static constexpr Type bool_() { return Type(Scalar::Bool); }
  static constexpr Type i8() { return Type(Scalar::I8); }
  static constexpr Type i16() { return Type(Scalar::I16); }
  static constexpr Type i32() { return Type(Scalar::I32); }
  static constexpr Type i64() { return Type(Scalar::I64); }
  static constexpr Type u8() { return Type(Scalar::U8); }
  static constexpr Type u16() { return Type(Scalar::U16); }
  static constexpr Type u32() { return Type(Scalar::U32); }
  static constexpr Type u64() { return Type(Scalar::U64); }
  static constexpr Type f32() { return Type(Scalar::F32); }
  static constexpr Type f64() { return Type(Scalar::F64); }
  static constexpr Type pointer_to(Scalar pointee) { return Type(pointee, true); }

  constexpr Scalar scalar() const { return scalar_; }
  constexpr bool is_pointer() const { return pointer_; }
  // The element type of a pointer.
  constexpr Type pointee() const { return Type(scalar_); }

  constexpr bool is_void() const { return !pointer_ && scalar_ == Scalar::Void; }
  constexpr bool is_bool() const { return !pointer_ && scalar_ == Scalar::Bool; }
  constexpr bool is_integer() const {
    return !pointer_ && scalar_ >= Scalar::I8 && scalar_ <= Scalar::U64;
  }
  constexpr bool is_signed() const {
    return !pointer_ && scalar_ >= Scalar::I8 && scalar_ <= Scalar::I64;
  }
  constexpr bool is_unsigned() const {
    return !pointer_ && scalar_ >= Scalar::U8 && scalar_ <= Scalar::U64;
  }
  constexpr bool is_float() const {
    return !pointer_ && (scalar_ == Scalar::F32 || scalar_ == Scalar::F64);
  }
  // Integers and floats: the types arithmetic operators accept.
  constexpr bool is_arithmetic() const { return is_integer() || is_float(); }
  // Anything a variable, parameter or expression may have.
  constexpr bool is_value() const { return !is_void(); }

  // Width in bits of the value (64 for pointers, 1 for bool, 0 for void).
  unsigned bits() const;
  // Size in bytes in memory (1 for bool, 8 for pointers, 0 for void).
  std::size_t size() const;

  // "i32", "f64*", "void".
  std::string name() const;
  // Inverse of name(); nullopt for anything else.
  static std::optional<Type> parse(std::string_view name);

  friend constexpr bool operator==(Type, Type) = default;

 private:
  Scalar scalar_ = Scalar::Void;
  bool pointer_ = false;
};

// The IR type of a C++ type, for the types the IR has.
template <class T>
constexpr Type type_of();

namespace detail {
template <class T>
struct scalar_of;
template <>
struct scalar_of<void> {
  static constexpr Scalar value = Scalar::Void;
};
template <>
struct scalar_of<bool> {
  static constexpr Scalar value = Scalar::Bool;
};
template <>
struct scalar_of<std::int8_t> {
  static constexpr Scalar value = Scalar::I8;
};
template <>
struct scalar_of<std::int16_t> {
  static constexpr Scalar value = Scalar::I16;
};
template <>
struct scalar_of<std::int32_t> {
  static constexpr Scalar value = Scalar::I32;
};
template <>
struct scalar_of<std::int64_t> {
  static constexpr Scalar value = Scalar::I64;
};
template <>
struct scalar_of<std::uint8_t> {
  static constexpr Scalar value = Scalar::U8;
};
template <>
struct scalar_of<std::uint16_t> {
  static constexpr Scalar value = Scalar::U16;
};
template <>
struct scalar_of<std::uint32_t> {
  static constexpr Scalar value = Scalar::U32;
};
template <>
struct scalar_of<std::uint64_t> {
  static constexpr Scalar value = Scalar::U64;
};
template <>
struct scalar_of<float> {
  static constexpr Scalar value = Scalar::F32;
};
template <>
struct scalar_of<double> {
  static constexpr Scalar value = Scalar::F64;
};
// `char` is distinct from both int8 types; it maps to i8 (signed on x86-64).
template <>
struct scalar_of<char> {
  static constexpr Scalar value = Scalar::I8;
};
// `long long` is distinct from int64_t (= long) on LP64; both are 64 bits.
template <>
struct scalar_of<long long> {
  static constexpr Scalar value = Scalar::I64;
};
template <>
struct scalar_of<unsigned long long> {
  static constexpr Scalar value = Scalar::U64;
};
}  // namespace detail

template <class T>
constexpr Type type_of() {
  if constexpr (std::is_pointer_v<T>) {
    return Type::pointer_to(detail::scalar_of<std::remove_cv_t<std::remove_pointer_t<T>>>::value);
  } else {
    return Type(detail::scalar_of<std::remove_cv_t<T>>::value);
  }
}

}  // namespace augur::ir
