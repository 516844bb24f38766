// Runtime values of the IR: 64 bits holding a scalar or a pointer.
//
// Canonical form, shared by constants and the interpreter: an integer or bool is
// truncated to its width and zero-extended (i8 -1 is 0xff); an f32 is its bit
// pattern in the low 32 bits; an f64 its bit pattern; a pointer its address.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "runtime/ir/type.h"

namespace augur::ir {

// Truncates `bits` to the width of `type` (zero-extended); identity for 64-bit types.
constexpr std::uint64_t canonical_bits(Type type, std::uint64_t bits) {
  if (type.is_pointer()) return bits;
  switch (type.scalar()) {
    case Scalar::Void:
      return 0;
    case Scalar::Bool:
      return bits & 1;
    case Scalar::I8:
    case Scalar::U8:
      return bits & 0xffu;
    case Scalar::I16:
    case Scalar::U16:
      return bits & 0xffffu;
    case Scalar::I32:
    case Scalar::U32:
    case Scalar::F32:
      return bits & 0xffffffffu;
    default:
      return bits;
  }
}

// Sign-extends the low `width` bits of `bits`.
constexpr std::int64_t sign_extend(std::uint64_t bits, unsigned width) {
  if (width >= 64) return static_cast<std::int64_t>(bits);
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  bits &= (sign << 1) - 1;
  return static_cast<std::int64_t>((bits ^ sign) - sign);
}

struct Value {
  std::uint64_t bits = 0;

  template <class T>
  static Value of(T v) {
    if constexpr (std::is_same_v<T, float>) {
      return {std::bit_cast<std::uint32_t>(v)};
    } else if constexpr (std::is_same_v<T, double>) {
      return {std::bit_cast<std::uint64_t>(v)};
    } else if constexpr (std::is_pointer_v<T>) {
      return {reinterpret_cast<std::uintptr_t>(v)};
    } else {
      static_assert(std::is_integral_v<T>, "IR values are integers, floats, bools or pointers");
      return {canonical_bits(type_of<T>(), static_cast<std::uint64_t>(v))};
    }
  }

  template <class T>
  T as() const {
    if constexpr (std::is_same_v<T, float>) {
      return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    } else if constexpr (std::is_same_v<T, double>) {
      return std::bit_cast<double>(bits);
    } else if constexpr (std::is_pointer_v<T>) {
      return reinterpret_cast<T>(static_cast<std::uintptr_t>(bits));
    } else if constexpr (std::is_same_v<T, bool>) {
      return (bits & 1) != 0;
    } else {
      static_assert(std::is_integral_v<T>, "IR values are integers, floats, bools or pointers");
      return static_cast<T>(bits);
    }
  }

  friend constexpr bool operator==(Value, Value) = default;
};

}  // namespace augur::ir
