// Tiered compilation of a staged generator into a jit::handle.
//
//   jit::handle<double(double)> h = jit::compile(power, 13, jit::tiered);
//   h(2.0);             // served at once by an O0 version
//                       // ... the O2 version is swapped in when its compile ends
//   h.respecialize(7);  // O2 for n = 7, compiled in the background
//
// jit::compile(fn, statics..., jit::tiered) runs the first stage and compiles
// the program at O0 on the calling thread (about 1 ms), returns a handle that
// serves it, and compiles it at O2 on the TBB pool; the O2 version replaces the
// O0 one when ready. jit::tiered_by(policy) in place of jit::tiered decides
// when the O2 compile starts instead: after a number of calls, or on
// handle::promote().
//
// Each tier's version comes from jit::compile's specialization cache, as
// jit::compile(options, fn, statics...) with default options at O0 or O2
// would give it: handles and plain requests of one specialization share one
// compiled version. So the statics need a jit::key, as for jit::compile.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "jit/compile_options.h"
#include "jit/compiler.h"
#include "jit/detail/tiered_tag.h"
#include "jit/error.h"
#include "jit/extract.h"
#include "jit/handle.h"
#include "jit/tiering.h"

namespace jit {

namespace detail {

// What a tier compiles with: jit::compile's default options at O0 (quick) or
// O2 (optimized).
const compile_options& tier_options(jit::tier tier);

[[noreturn]] void throw_static_types_differ(const std::type_info& expected,
                                            const std::type_info& given);

// R(V...) for a generator: V the values of its dyn parameters, in order.
template <class R, class Values, class Params>
struct dyn_signature;
template <class R, class... V>
struct dyn_signature<R, type_list<V...>, type_list<>> {
  using type = R(V...);
};
template <class R, class... V, class P, class... Ps>
struct dyn_signature<R, type_list<V...>, type_list<P, Ps...>>
    : dyn_signature<
          R, std::conditional_t<is_dyn_param<P>, type_list<V..., value_t<P>>, type_list<V...>>,
          type_list<Ps...>> {};

template <class F>
using staged_signature =
    typename dyn_signature<typename result_of_generator<typename signature_of<F>::result>::type,
                           type_list<>, typename signature_of<F>::args>::type;

// The generator `F` bound to static values of types S...
template <class F, class... S>
class staged_specialization final : public specialization {
 public:
  staged_specialization(F fn, std::tuple<S...> statics)
      : fn_(std::move(fn)), statics_(std::move(statics)) {}

  compiled_version compile(jit::tier tier) const override {
    const auto compiled = std::apply(
        [&](const S&... s) { return jit::compile(tier_options(tier), fn_, s...); }, statics_);
    return {reinterpret_cast<erased_entry>(compiled.pointer()), compiled.keep_alive()};
  }

  std::shared_ptr<const specialization> with(const void* statics,
                                             const std::type_info& type) const override {
    if (type != typeid(std::tuple<S...>)) throw_static_types_differ(typeid(std::tuple<S...>), type);
    return std::make_shared<staged_specialization>(fn_,
                                                   *static_cast<const std::tuple<S...>*>(statics));
  }

 private:
  F fn_;
  std::tuple<S...> statics_;
};

template <class F, class Statics, std::size_t... I>
auto compile_tiered(F&& fn, Statics&& args, tiering policy, std::index_sequence<I...>) {
  using G = std::decay_t<F>;
  using spec = staged_specialization<G, std::decay_t<std::tuple_element_t<I, Statics>>...>;
  handle<staged_signature<G>> h;
  h.core().start_tiered(
      std::make_shared<spec>(G(std::forward<F>(fn)),
                             std::tuple<std::decay_t<std::tuple_element_t<I, Statics>>...>(
                                 std::get<I>(std::move(args))...)),
      policy);
  return h;
}

}  // namespace detail

// fn's static arguments, then jit::tiered (or jit::tiered_by(policy)): a
// handle served by O0 code at once and by O2 code once it is compiled in the
// background. Throws what extraction and the O0 compile throw.
template <class F, class... A>
requires(detail::ends_tiered<A...>()) auto compile(F&& fn, A&&... args) {
  constexpr std::size_t statics = sizeof...(A) - 1;
  auto all = std::forward_as_tuple(std::forward<A>(args)...);
  const tiering policy = std::get<statics>(all).policy;
  return detail::compile_tiered(std::forward<F>(fn), std::move(all), policy,
                                std::make_index_sequence<statics>{});
}

}  // namespace jit
