// Compiling staged kernels and launching them.
//
//   void scale(jit::dyn<float*> v, jit::dyn<int> n, float a) {
//     jit::dyn<int> i = jit::gpu::global_id_x();
//     if (i < n) v[i] = v[i] * a;
//   }
//   jit::gpu::kernel<float*, int> k = jit::gpu::compile(scale, 2.5f);  // a = 2.5 is a constant
//   k.launch({blocks}, {256}, buffer, n);
//
// The generator's jit::dyn<T> parameters, in order, are the kernel's; its
// other parameters take compile()'s extra arguments and are constants of the
// kernel (one compiled version per distinct set). It returns void.
//
// Kernels are cached like jit::compile's functions (jit/compiler.h), on the
// generator's identity, the options and the static arguments as jit::key
// encodes them: a repeated request is a lookup that neither stages nor
// emits, concurrent requests for one key share one compilation, and a failed
// one leaves nothing cached (docs/gpu.md, "Caches").
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "jit/compiler.h"
#include "jit/detail/gpu.h"
#include "jit/extract.h"
#include "jit/gpu/memory.h"
#include "jit/gpu/options.h"

namespace jit::gpu {

namespace detail {

// One launch argument of type T: a value, or for pointers a buffer (whose
// backend is checked against the kernel's).
template <class T>
struct launch_arg {
  launch_arg(T v) : value(v) {}  // NOLINT: converts like a function argument
  template <class E>
  launch_arg(const buffer<E>& b) requires(std::is_pointer_v<T>&& std::is_convertible_v<E*, T>)
      : value(b.data()), from_buffer(true), where(b.where()) {}

  T value;
  bool from_buffer = false;
  backend where = backend::cpu;
};

}  // namespace detail

template <class... Args>
class kernel {
  static_assert((jit::detail::ir_value<Args> && ...),
                "kernel parameters are bool, integers, float, double or pointers to those");

 public:
  kernel() = default;  // empty: launching it throws
  explicit kernel(std::shared_ptr<const detail::kernel_code> code) : code_(std::move(code)) {}

  // Runs the kernel over `grid` blocks of `block` threads. On a GPU the
  // launch is asynchronous (synchronize the stream, or copy a buffer back,
  // which waits); on the CPU fallback it returns when the kernel is done.
  void launch(dim3 grid, dim3 block, detail::launch_arg<Args>... args) const {
    launch_on(grid, block, nullptr, args...);
  }
  void launch(dim3 grid, dim3 block, detail::launch_arg<Args>... args, const stream& s) const {
    launch_on(grid, block, s.handle(), args...);
  }

  backend where() const { return detail::backend_of(code()); }
  const std::string& name() const { return detail::name_of(code()); }
  // The kernel's IR (docs/ir.md) and the CUDA C++ generated from it.
  const std::string& ir() const { return detail::ir_of(code()); }
  const std::string& cuda_source() const { return detail::cuda_source_of(code()); }

  explicit operator bool() const { return code_ != nullptr; }

 private:
  const detail::kernel_code& code() const {
    if (!code_) throw jit::error("launch of an empty jit::gpu::kernel");
    return *code_;
  }

  void launch_on(dim3 grid, dim3 block, void* stream_handle,
                 const detail::launch_arg<Args>&... args) const {
    const detail::kernel_code& c = code();
    const backend mine = detail::backend_of(c);
    std::size_t position = 0;
    (check_argument(args, mine, position++), ...);
    std::tuple<Args...> values{args.value...};
    launch_values(c, grid, block, stream_handle, values, std::index_sequence_for<Args...>{});
  }

  template <class T>
  static void check_argument(const detail::launch_arg<T>& a, backend mine, std::size_t position) {
    if (a.from_buffer) detail::check_buffer_backend(a.where, mine, position);
  }

  template <std::size_t... I>
  static void launch_values(const detail::kernel_code& c, dim3 grid, dim3 block,
                            void* stream_handle, std::tuple<Args...>& values,
                            std::index_sequence<I...>) {
    void* params[] = {static_cast<void*>(&std::get<I>(values))..., nullptr};
    const std::uint64_t bits[] = {jit::detail::bits_of(std::get<I>(values))..., 0};
    detail::launch(c, grid, block, params, std::span<const std::uint64_t>(bits, sizeof...(Args)),
                   stream_handle);
  }

  std::shared_ptr<const detail::kernel_code> code_;
};

namespace detail {

// kernel<T...> for the dyn<T> parameters of a generator's parameter list.
template <class List, class... Done>
struct kernel_for;
template <class... Done>
struct kernel_for<jit::detail::type_list<>, Done...> {
  using type = kernel<Done...>;
};
template <class A, class... Rest, class... Done>
struct kernel_for<jit::detail::type_list<A, Rest...>, Done...> {
  using type =
      typename std::conditional_t<jit::detail::is_dyn_param<A>,
                                  kernel_for<jit::detail::type_list<Rest...>, Done...,
                                             jit::detail::value_t<std::remove_cvref_t<A>>>,
                                  kernel_for<jit::detail::type_list<Rest...>, Done...>>::type;
};

template <class F>
using kernel_of = typename kernel_for<typename jit::detail::signature_of<F>::args>::type;

template <class F, class... S>
using closure_of = jit::detail::generator_closure<F, S...>;

template <class F>
constexpr void check_generator() {
  static_assert(std::is_void_v<typename jit::detail::signature_of<F>::result>,
                "a GPU kernel's generator returns void");
}

}  // namespace detail

// Extracts `fn` as a kernel with `statics` as its constants and compiles it:
// NVRTC and the driver where a GPU is used, the CPU backend otherwise.
// Repeated requests for the same kernel are served from the caches. Throws
// jit::staging_error / jit::compile_error (with NVRTC's log) / jit::gpu_error.
template <class F, class... S>
auto compile(const options& opts, F&& fn, S&&... statics) {
  using G = std::decay_t<F>;
  detail::check_generator<G>();
  static_assert((keyable<std::decay_t<S>> && ...),
                "jit::gpu::compile: every static argument needs a jit::key (jit/key.h)");

  key_writer key_bytes;
  jit::detail::write_generator<G, std::decay_t<S>...>(key_bytes, fn);
  detail::write_options(key_bytes, opts);
  (key<std::decay_t<S>>::encode(key_bytes, statics), ...);
  const std::string_view bytes = key_bytes.bytes();
  const std::uint64_t hash = jit::detail::hash_key(bytes);

  std::shared_ptr<const detail::kernel_code> code = detail::find_kernel(bytes, hash);
  if (!code) {
    const detail::closure_of<G, std::decay_t<S>...> closure(std::forward<F>(fn),
                                                            std::forward<S>(statics)...);
    code = detail::compile(bytes, hash, closure.get(), opts);
  }
  return detail::kernel_of<G>(std::move(code));
}

template <class F, class... S>
requires(!std::is_same_v<std::decay_t<F>, options>) auto compile(F&& fn, S&&... statics) {
  // Qualified: unqualified, argument-dependent lookup also finds jit::compile.
  return gpu::compile(options{}, std::forward<F>(fn), std::forward<S>(statics)...);
}

// compile() on the pool of jit::compile_async, through the same caches; the
// future holds the kernel or the error. The generator and static arguments
// are copied. Dropping the future does not wait: get() or wait() before the
// process exits.
template <class F, class... S>
auto compile_async(options opts, F fn, S... statics) {
  using K = detail::kernel_of<F>;
  detail::check_generator<F>();
  auto promise = std::make_shared<std::promise<K>>();
  std::future<K> result = promise->get_future();
  detail::enqueue(
      [promise, opts = std::move(opts), fn = std::move(fn), ... statics = std::move(statics)] {
        try {
          promise->set_value(gpu::compile(opts, fn, statics...));
        } catch (...) {
          promise->set_exception(std::current_exception());
        }
      });
  return result;
}

template <class F, class... S>
requires(!std::is_same_v<std::decay_t<F>, options>) auto compile_async(F fn, S... statics) {
  return gpu::compile_async(options{}, std::move(fn), std::move(statics)...);
}

}  // namespace jit::gpu
