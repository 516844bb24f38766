// jit::compile: a staged function specialized to static arguments, compiled
// to native code and cached.
//
//   jit::dyn<double> power(jit::dyn<double> x, int n);     // see dyn.h
//
//   jit::function<double(double)> pow13 = jit::compile(power, 13);
//   double y = pow13(2.0);                                  // 8192
//
// The generator's jit::dyn<T> parameters, in order, become the native
// function's parameters (T; pointers for outputs); its result is R for a
// returned jit::dyn<R> (or a plain R), void for void. Its other parameters are
// static: they take compile()'s extra arguments, as jit::extract does.
//
// The result is cached on the generator's identity (below), the options and
// the static arguments as jit::key encodes them (key.h): a repeated request
// is a lookup (tens of nanoseconds on a thread that asked before), and any
// number of threads asking for one key at once share a single compilation.
// A first stage may call compile() itself; a request that would wait for its
// own thread's compilation, directly or around a cycle of threads, throws
// jit::error instead (docs/compile.md).
// Errors (staging, compilation) throw jit::error subclasses; a failed request
// leaves the cache as it was, and the next identical request tries again.
//
// A generator's identity is its type plus, for a function pointer, the
// address: both are fixed while the process runs (and while the library
// holding the function stays loaded; call clear_cache() before unloading
// one). The types of the static arguments are part of it too, so
// compile(power, 13) and compile(power, 13L) are two entries. Generators with
// state (capturing lambdas) are accepted only if jit::key encodes them: pass
// captured values as static arguments instead.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

#include "jit/compile_options.h"
#include "jit/detail/tiered_tag.h"
#include "jit/extract.h"
#include "jit/function.h"
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

template <class F, class... S>
function<detail::native_signature<std::decay_t<F>>> compile(const compile_options& options, F&& fn,
                                                            S&&... statics) {
  using generator_type = std::decay_t<F>;
  using result = function<detail::native_signature<generator_type>>;
  static_assert((keyable<std::decay_t<S>> && ...),
                "jit::compile: every static argument needs a jit::key (key.h)");

  key_writer key_bytes;
  detail::write_generator<generator_type, std::decay_t<S>...>(key_bytes, fn);
  detail::write_options(key_bytes, options);
  (key<std::decay_t<S>>::encode(key_bytes, statics), ...);
  const std::string_view bytes = key_bytes.bytes();
  const std::uint64_t hash = detail::hash_key(bytes);

  detail::compiled_entry entry;
  if (!detail::find_compiled(bytes, hash, entry)) {
    const detail::generator_closure<generator_type, std::decay_t<S>...> closure(
        std::forward<F>(fn), std::forward<S>(statics)...);
    entry = detail::compile_generator(bytes, hash, closure.get(), options);
  }
  return result(reinterpret_cast<typename result::pointer_type>(entry.address),
                std::move(entry.owner), entry.report);
}

template <class F, class... S>
requires(!std::is_same_v<std::decay_t<F>, compile_options> &&
         !detail::ends_tiered<S...>()) auto compile(F&& fn, S&&... statics) {
  static const compile_options defaults;
  return compile(defaults, std::forward<F>(fn), std::forward<S>(statics)...);
}

// compile() on the TBB pool; the future holds the function or the error. The
// generator and static arguments are copied. Dropping the future does not
// wait: get() or wait() before the process exits.
template <class F, class... S>
std::future<function<detail::native_signature<std::decay_t<F>>>> compile_async(
    compile_options options, F fn, S... statics) {
  using result = function<detail::native_signature<std::decay_t<F>>>;
  auto promise = std::make_shared<std::promise<result>>();
  std::future<result> future = promise->get_future();
  detail::run_in_background([promise, options = std::move(options), fn = std::move(fn),
                             ... statics = std::move(statics)] {
    try {
      promise->set_value(compile(options, fn, statics...));
    } catch (...) {
      promise->set_exception(std::current_exception());
    }
  });
  return future;
}

template <class F, class... S>
requires(!std::is_same_v<std::decay_t<F>, compile_options>) auto compile_async(F fn, S... statics) {
  return compile_async(compile_options{}, std::move(fn), std::move(statics)...);
}

}  // namespace jit
