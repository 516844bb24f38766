// Extraction: running the first stage of a staged function and getting the
// IR program it builds.
//
//   jit::dyn<double> power(jit::dyn<double> x, int n);   // see dyn.h
//
//   jit::extraction e = jit::extract(power, 13);
//   std::cout << e.ir();                 // fn staged(arg0: f64) -> f64 { ... }
//   std::cout << e.report().str();       // runs, prophecy runs, time, IR size
//
// The generator's jit::dyn<T> parameters (by value or reference) become the
// IR function's parameters, in order; its other parameters are static: they
// take the extra arguments of extract(), in order, and are constants of the
// program. It returns a dyn value (the IR function's result), a plain value
// (a constant result) or void. Set AUGUR_DUMP=stage to print every
// extraction's IR and report to stderr.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jit/detail/staging.h"
#include "jit/dyn.h"

namespace jit {

// How the call chain of a static tag is read.
enum class tag_source : std::uint8_t {
  frame_pointers,  // walk the frame-pointer chain (fast; needs -fno-omit-frame-pointer)
  backtrace,       // glibc backtrace(): slower, works without frame pointers
};

struct extract_options {
  std::string name = "staged";           // the IR function's name
  std::vector<std::string> param_names;  // default: arg0, arg1, ...
  tag_source tags = tag_source::frame_pointers;
  // Explorations at most (1 + restarts for prophecies); past it, prophecy_error.
  std::uint32_t max_prophecy_runs = 32;
  // Budgets that stop runaway first stages with a staging_error naming the site
  // (a dyn loop whose static state changes every iteration unrolls forever).
  std::uint64_t max_runs = 1'000'000;   // first-stage executions in one exploration
  std::uint64_t max_nodes = 1'000'000;  // statements and branches recorded
  std::uint32_t max_depth = 512;        // frames between extract() and an operation
  std::uint64_t max_ir_statements = 4'000'000;
  // A loop the first stage enters at more than one point (irreducible control
  // flow) is made single-entry by copying the code it reaches from the other
  // entries (node splitting) while the copies, in all, stay within this many
  // first-stage nodes and within the number recorded (so the graph at most
  // doubles); past it, by a dispatch loop on a dyn state variable,
  // which copies nothing (docs/staging.md, "Control flow"). 0: always a
  // dispatch loop.
  std::uint64_t max_split_nodes = 4096;
  // Extract a GPU kernel (`kernel fn`, returning void): the GPU intrinsics of
  // jit/gpu.h (thread indices, shared arrays, barriers) may be used.
  bool kernel = false;
};

// What one extraction cost and produced.
struct stage_report {
  std::uint64_t control_flow_runs = 0;           // first-stage executions, all explorations
  std::uint32_t prophecy_runs = 0;               // explorations: 1 + restarts for prophecies
  std::chrono::nanoseconds first_stage_time{0};  // extraction, structuring included
  std::uint64_t ir_statements = 0;               // statements in the extracted function
  // Expression nodes in it, each statement's shared subexpressions once
  // (docs/staging.md, "Shared subexpressions").
  std::uint64_t ir_expression_nodes = 0;
  // Nodes the first stage folded away while building: constants folded and
  // identities applied, each distinct node once (docs/staging.md, "What the
  // first stage simplifies while it builds").
  std::uint64_t simplified_nodes = 0;
  std::uint64_t nodes = 0;   // statements and branches recorded (last exploration)
  std::uint64_t events = 0;  // first-stage operations executed, all runs
  std::uint64_t tags = 0;    // call chains read (replayed events reuse recorded tags)
  tag_source tags_used = tag_source::frame_pointers;
  // Loops entered at more than one point, and how each was made single-entry
  // (extract_options::max_split_nodes): by node splitting, copying
  // `split_copies` nodes in all, or by a dispatch loop.
  std::uint32_t irreducible_split = 0;
  std::uint32_t irreducible_dispatched = 0;
  std::uint64_t split_copies = 0;

  // One line: "control-flow runs 33, prophecy runs 1, first stage 1.20 ms, ...".
  std::string str() const;
};

namespace detail {
struct extraction_result;
}

// The result of an extraction: the IR program and its report.
class extraction {
 public:
  explicit extraction(std::shared_ptr<const detail::extraction_result> result);

  // The program in the IR's text form (docs/ir.md).
  std::string ir() const;
  const stage_report& report() const;
  // The name of the extracted function.
  const std::string& name() const;

  const detail::extraction_result& result() const { return *result_; }

 private:
  std::shared_ptr<const detail::extraction_result> result_;
};

namespace detail {

extraction extract_generator(const generator& gen, const extract_options& options);

template <class... T>
struct type_list {
  static constexpr std::size_t size = sizeof...(T);
};

template <class F>
struct signature_of : signature_of<decltype(&F::operator())> {};
template <class R, class... A>
struct signature_of<R (*)(A...)> {
  using result = R;
  using args = type_list<A...>;
};
template <class R, class... A>
struct signature_of<R(A...)> : signature_of<R (*)(A...)> {};
template <class C, class R, class... A>
struct signature_of<R (C::*)(A...)> : signature_of<R (*)(A...)> {};
template <class C, class R, class... A>
struct signature_of<R (C::*)(A...) const> : signature_of<R (*)(A...)> {};
template <class C, class R, class... A>
struct signature_of<R (C::*)(A...) noexcept> : signature_of<R (*)(A...)> {};
template <class C, class R, class... A>
struct signature_of<R (C::*)(A...) const noexcept> : signature_of<R (*)(A...)> {};
template <class R, class... A>
struct signature_of<R (*)(A...) noexcept> : signature_of<R (*)(A...)> {};

template <class X>
struct is_dyn_variable : std::false_type {};
template <class T>
struct is_dyn_variable<dyn<T>> : std::true_type {};
template <class A>
constexpr bool is_dyn_param = is_dyn_variable<std::remove_cvref_t<A>>::value;

// The result type of the IR function for a generator returning R.
template <class R>
struct result_of_generator {
  using type = value_t<R>;
};
template <>
struct result_of_generator<void> {
  using type = void;
};

template <class Args>
struct parameter_layout;
template <class... A>
struct parameter_layout<type_list<A...>> {
  static constexpr std::size_t count = sizeof...(A);
  static constexpr std::array<bool, count + 1> dynamic{is_dyn_param<A>..., false};
  static constexpr std::size_t dyn_count = (std::size_t{0} + ... + (is_dyn_param<A> ? 1 : 0));
  static constexpr std::size_t static_count = count - dyn_count;

  // The position of argument i among the dyn (or static) parameters.
  static constexpr std::size_t rank(std::size_t i) {
    std::size_t r = 0;
    for (std::size_t k = 0; k < i; ++k) r += dynamic[k] == dynamic[i] ? 1 : 0;
    return r;
  }
};

// The first stage of `fn` bound to its static arguments.
template <class F, class... S>
class generator_closure {
  using signature = signature_of<F>;
  using args = typename signature::args;
  using layout = parameter_layout<args>;
  using result = typename result_of_generator<typename signature::result>::type;

  static_assert(layout::static_count == sizeof...(S),
                "jit::extract: give one argument for each static (non-dyn) parameter");

 public:
  template <class G, class... T>
  explicit generator_closure(G&& fn, T&&... statics)
      : fn_(std::forward<G>(fn)), statics_(std::forward<T>(statics)...) {
    fill_types(args{});
  }

  generator get() const {
    return {std::span<const ir_type>(param_types_.data(), layout::dyn_count), ir_type_of<result>(),
            &run, this};
  }

 private:
  template <class... A>
  void fill_types(type_list<A...>) {
    std::size_t k = 0;
    (add_type<A>(k), ...);
  }
  template <class A>
  void add_type(std::size_t& k) {
    if constexpr (is_dyn_param<A>)
      param_types_[k++] = ir_type_of<value_t<std::remove_cvref_t<A>>>();
  }

  static void run(const void* self) { static_cast<const generator_closure*>(self)->invoke(args{}); }

  template <class... A>
  void invoke(type_list<A...>) const {
    auto params = make_params(std::make_index_sequence<sizeof...(A)>{}, type_list<A...>{});
    call(params, std::make_index_sequence<sizeof...(A)>{}, type_list<A...>{});
  }

  // One dyn<T> per dyn parameter, bound to the IR parameter of the same rank.
  template <std::size_t... I, class... A>
  static auto make_params(std::index_sequence<I...>, type_list<A...>) {
    return std::tuple_cat(param_if<I, A>()...);
  }
  template <std::size_t I, class A>
  static auto param_if() {
    if constexpr (is_dyn_param<A>) {
      using D = std::remove_cvref_t<A>;
      return std::tuple<D>(D(parameter_tag{}, static_cast<std::uint32_t>(layout::rank(I))));
    } else {
      return std::tuple<>();
    }
  }

  template <class Params, std::size_t... I, class... A>
  void call(Params& params, std::index_sequence<I...>, type_list<A...>) const {
    if constexpr (std::is_void_v<result>) {
      std::invoke(fn_, argument<I, A>(params)...);
      finish(nullptr);
    } else {
      decltype(auto) r = std::invoke(fn_, argument<I, A>(params)...);
      finish(as<result>(r));
    }
  }

  template <std::size_t I, class A, class Params>
  decltype(auto) argument(Params& params) const {
    if constexpr (is_dyn_param<A>) {
      auto& p = std::get<layout::rank(I)>(params);
      if constexpr (std::is_lvalue_reference_v<A>) {
        return (p);
      } else {
        return std::move(p);  // by value: the parameter itself, not a copy
      }
    } else {
      return std::as_const(std::get<layout::rank(I)>(statics_));
    }
  }

  F fn_;
  std::tuple<S...> statics_;
  std::array<ir_type, layout::dyn_count + 1> param_types_{};
};

}  // namespace detail

template <class F, class... S>
extraction extract(const extract_options& options, F&& fn, S&&... statics) {
  const detail::generator_closure<std::decay_t<F>, std::decay_t<S>...> closure(
      std::forward<F>(fn), std::forward<S>(statics)...);
  return detail::extract_generator(closure.get(), options);
}

template <class F, class... S>
requires(!std::is_same_v<std::decay_t<F>, extract_options>) extraction
    extract(F&& fn, S&&... statics) {
  return extract(extract_options{}, std::forward<F>(fn), std::forward<S>(statics)...);
}

}  // namespace jit
