// The machinery behind jit::compile (compiler.h): a generator's native
// signature, its cache key, and the cache's entry points that the library
// implements (runtime/cache/api.cpp). The GPU compile path keys its cache with
// the same helpers.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <type_traits>

#include "jit/compile_options.h"
#include "jit/extract.h"
#include "jit/key.h"

namespace jit {

namespace detail {

// The native signature of a generator F: its dyn parameters' value types.
template <class R, class Args, class... Native>
struct native_signature_of;
template <class R, class... Native>
struct native_signature_of<R, type_list<>, Native...> {
  using type = R(Native...);
};
template <class R, class A, class... Rest, class... Native>
struct native_signature_of<R, type_list<A, Rest...>, Native...>
    : std::conditional_t<
          is_dyn_param<A>,
          native_signature_of<R, type_list<Rest...>, Native..., value_t<std::remove_cvref_t<A>>>,
          native_signature_of<R, type_list<Rest...>, Native...>> {};

template <class F>
using native_signature = typename native_signature_of<
    typename result_of_generator<typename signature_of<F>::result>::type,
    typename signature_of<F>::args>::type;

// One object per (generator type, static argument types): its address
// identifies them within the process.
template <class F, class... S>
inline constexpr char generator_tag = 0;

template <class F, class... S>
void write_generator(key_writer& out, const F& fn) {
  out.write_value(reinterpret_cast<std::uintptr_t>(&generator_tag<F, S...>));
  if constexpr (std::is_pointer_v<F>) {
    out.write_value(reinterpret_cast<std::uintptr_t>(fn));
  } else if constexpr (keyable<F>) {
    key<F>::encode(out, fn);
  } else {
    static_assert(std::is_empty_v<F>,
                  "jit::compile: a generator with state needs a jit::key specialization; pass "
                  "what it captures as static arguments instead");
  }
}

inline void write_options(key_writer& out, const compile_options& options) {
  out.write_value(options.opt_level);
  out.write_string(options.name);
  out.write_string(options.cpu);
  out.write_string(options.features);
  out.write_value(options.extraction.param_names.size());
  for (const std::string& param : options.extraction.param_names) out.write_string(param);
  out.write_value(options.extraction.max_split_nodes);
}

// Picks the bucket; equality always compares the bytes. Two lanes of
// multiply-xor halve the dependency chain; the last word is read overlapping
// instead of copying a variable-sized tail.
inline std::uint64_t hash_key(std::string_view bytes) noexcept {
  constexpr std::uint64_t multiplier = 0x9e3779b97f4a7c15ull;
  const char* const data = bytes.data();
  const std::size_t size = bytes.size();
  const auto word_at = [data](std::size_t offset) {
    std::uint64_t word;
    std::memcpy(&word, data + offset, sizeof word);
    return word;
  };
  std::uint64_t a = size * multiplier;
  std::uint64_t b = ~size;
  std::size_t i = 0;
  for (; i + 16 <= size; i += 16) {
    a = (a ^ word_at(i)) * multiplier;
    b = (b ^ word_at(i + 8)) * multiplier;
  }
  if (i + 8 <= size) {
    a = (a ^ word_at(i)) * multiplier;
    i += 8;
  }
  if (i < size) {
    std::uint64_t last = 0;
    if (size >= 8) {
      last = word_at(size - 8);
    } else {
      std::memcpy(&last, data, size);
    }
    b = (b ^ last) * multiplier;
  }
  std::uint64_t hash = (a ^ std::rotl(b, 32)) * multiplier;
  return hash ^ (hash >> 29);
}

// A compiled version's entry point and its owner.
struct compiled_entry {
  void* address = nullptr;
  std::shared_ptr<const void> owner;
  const stage_report* report = nullptr;  // owned by `owner`
};

// The calling thread's lookup of a key it has requested before (no locks).
bool find_compiled(std::string_view key, std::uint64_t hash, compiled_entry& out) noexcept;
// The shared cache: a hit, a wait on the thread compiling `key`, or a
// compilation of `gen` here.
compiled_entry compile_generator(std::string_view key, std::uint64_t hash, const generator& gen,
                                 const compile_options& options);

// Runs `job` on the TBB pool, isolated from other jobs; `job` must not throw.
// compile_async and the hot-swap layer's background compiles run there.
void run_in_background(std::function<void()> job);

}  // namespace detail

}  // namespace jit
