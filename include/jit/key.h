// Cache keys: how jit::compile turns static arguments into bytes.
//
// jit::compile(fn, statics...) looks its result up by the generator's
// identity, the compile options and the static arguments encoded by
// jit::key<T>. Two requests share a compiled version exactly when those bytes
// are equal (full comparison; the hash only picks a bucket), so an encoding
// must be injective: equal values give equal bytes, different values
// different bytes, and a value's bytes are never a prefix of another's of the
// same type (write lengths before variable-sized parts).
//
// Built in: integers, bool and characters; floating point bit for bit (-0.0
// and 0.0 differ, as do NaNs with different payloads); enums; std::string,
// std::string_view and const char* (as strings; a null pointer is its own
// key, not ""); std::array, std::vector,
// std::pair and std::tuple of encodable types, nested freely.
//
// For your own types, specialize jit::key:
//
//   struct shape { int rows, cols; };
//   template <> struct jit::key<shape> {
//     static void encode(jit::key_writer& out, const shape& s) {
//       out.write_value(s.rows);
//       out.write_value(s.cols);
//     }
//   };
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace jit {

// The bytes of a key being built. Keys up to 64 bytes stay inline, so
// encoding a few scalars never allocates.
class key_writer {
 public:
  key_writer() = default;
  key_writer(const key_writer&) = delete;
  key_writer& operator=(const key_writer&) = delete;

  // Inlined: with a constant size the copy is a move or two.
  [[gnu::always_inline]] void write(const void* data, std::size_t size) {
    if (!on_heap_ && size_ + size <= inline_capacity) [[likely]] {
      std::memcpy(inline_ + size_, data, size);
      size_ += size;
    } else {
      write_to_heap(data, size);
    }
  }
  // The object representation of a trivially copyable value without padding.
  template <class T>
  requires std::has_unique_object_representations_v<T>
  void write_value(const T& value) { write(&value, sizeof value); }
  void write_size(std::size_t size) { write_value(static_cast<std::uint64_t>(size)); }
  void write_string(std::string_view text) {
    write_size(text.size());
    write(text.data(), text.size());
  }

  std::string_view bytes() const {
    return on_heap_ ? std::string_view(heap_) : std::string_view(inline_, size_);
  }

 private:
  [[gnu::noinline]] void write_to_heap(const void* data, std::size_t size) {
    if (!on_heap_) {
      heap_.assign(inline_, size_);
      on_heap_ = true;
    }
    heap_.append(static_cast<const char*>(data), size);
    size_ += size;
  }

  static constexpr std::size_t inline_capacity = 64;
  char inline_[inline_capacity];
  std::size_t size_ = 0;
  bool on_heap_ = false;
  std::string heap_;
};

// Encodes a T into a key_writer: `static void encode(key_writer&, const T&)`.
template <class T>
struct key;

// A type jit::compile accepts as a static argument.
template <class T>
concept keyable = requires(key_writer& out, const T& value) {
  key<T>::encode(out, value);
};

template <class T>
requires std::is_integral_v<T> || std::is_enum_v<T>
struct key<T> {
  static void encode(key_writer& out, T value) { out.write_value(value); }
};

template <class T>
requires std::is_floating_point_v<T>
struct key<T> {
  static void encode(key_writer& out, T value) {
    if constexpr (sizeof(T) == sizeof(std::uint32_t)) {
      out.write_value(std::bit_cast<std::uint32_t>(value));
    } else if constexpr (sizeof(T) == sizeof(std::uint64_t)) {
      out.write_value(std::bit_cast<std::uint64_t>(value));
    } else {
      static_assert(sizeof(T) == sizeof(std::uint64_t), "jit::key: long double is not built in");
    }
  }
};

template <>
struct key<std::string_view> {
  static void encode(key_writer& out, std::string_view value) { out.write_string(value); }
};
template <>
struct key<std::string> {
  static void encode(key_writer& out, const std::string& value) { out.write_string(value); }
};
// A null pointer is a key of its own, distinct from every string ("" too): its
// length field is one no string can have.
template <>
struct key<const char*> {
  static void encode(key_writer& out, const char* value) {
    if (value == nullptr) {
      out.write_value(~std::uint64_t{0});
    } else {
      out.write_string(value);
    }
  }
};

template <keyable T, std::size_t N>
struct key<std::array<T, N>> {
  static void encode(key_writer& out, const std::array<T, N>& values) {
    for (const T& value : values) key<T>::encode(out, value);
  }
};

template <keyable T, class Allocator>
struct key<std::vector<T, Allocator>> {
  static void encode(key_writer& out, const std::vector<T, Allocator>& values) {
    out.write_size(values.size());
    for (const T& value : values) key<T>::encode(out, value);
  }
};

template <keyable A, keyable B>
struct key<std::pair<A, B>> {
  static void encode(key_writer& out, const std::pair<A, B>& value) {
    key<A>::encode(out, value.first);
    key<B>::encode(out, value.second);
  }
};

template <keyable... T>
struct key<std::tuple<T...>> {
  static void encode(key_writer& out, const std::tuple<T...>& value) {
    std::apply([&](const T&... items) { (key<T>::encode(out, items), ...); }, value);
  }
};

}  // namespace jit
