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

#include <future>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

#include "jit/compile_options.h"
#include "jit/detail/compile.h"
#include "jit/detail/tiered_tag.h"
#include "jit/extract.h"
#include "jit/function.h"
#include "jit/key.h"

namespace jit {

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
