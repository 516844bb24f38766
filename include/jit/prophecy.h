// jit::prophecy<L>: a first-stage value that predicts a fact the first stage
// only learns later (seed paper 000: BuildIt prophecy variables).
//
//   jit::prophecy<jit::flag_lattice> read;     // identity: where it is constructed
//   if (read.value()) emit_copy_to_device();   // use the prediction now
//   ...
//   read.require(true);                        // the fact, found later
//
// value() is the current prediction: bottom at first, the same in every run of
// one exploration. require(v) checks that v is below the prediction; if not,
// the first stage carries on (collecting every miss of the exploration) and
// then runs again with the prediction joined with v, until no run misses; then
// each prediction narrows to what the runs required of it while that still
// holds (dropping requirements only mispredicted runs made; docs/staging.md,
// "Prophecies"). A prophecy that keeps changing
// past extract_options::max_prophecy_runs raises jit::prophecy_error naming
// its construction site and the values it took.
//
// A lattice L is a type with a value_type and static bottom(), join(a, b) and
// leq(a, b) (the order); joins must be monotone and the lattice of finite
// height along any chain the program can produce. Give it a static
// describe(value) returning std::string to have values printed in errors.
#pragma once

#include <algorithm>
#include <concepts>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <typeinfo>
#include <utility>

#include "jit/detail/staging.h"

namespace jit {

template <class L>
concept lattice = requires(const typename L::value_type& a, const typename L::value_type& b) {
  { L::bottom() } -> std::convertible_to<typename L::value_type>;
  { L::join(a, b) } -> std::convertible_to<typename L::value_type>;
  { L::leq(a, b) } -> std::convertible_to<bool>;
}
&&std::copyable<typename L::value_type>;

namespace detail {

template <lattice L>
class lattice_slot final : public prophecy_slot {
 public:
  using value_type = typename L::value_type;

  bool commit() override {
    required_ = L::bottom();
    if (!missed_) return false;
    missed_ = false;
    const bool changed = !(L::leq(next_, current_) && L::leq(current_, next_));
    current_ = next_;
    return changed;
  }

  bool narrow() override {
    // required_ is below current_: every requirement was met.
    const bool changed = !L::leq(current_, required_);
    fallback_ = current_;
    current_ = required_;
    required_ = L::bottom();
    return changed;
  }

  void restore() override {
    current_ = fallback_;
    required_ = L::bottom();
    missed_ = false;
  }

  std::string describe() const override {
    if constexpr (requires {
                    { L::describe(current_) } -> std::convertible_to<std::string>;
                  }) {
      return L::describe(current_);
    } else {
      return {};
    }
  }

  const value_type& current() const { return current_; }

  void require(const value_type& v) {
    required_ = L::join(required_, v);
    if (L::leq(v, current_)) return;
    if (missed_ && L::leq(v, next_)) return;
    next_ = missed_ ? L::join(next_, v) : L::join(current_, v);
    missed_ = true;
    prophecy_missed(*this);
  }

 private:
  value_type current_ = L::bottom();
  value_type next_ = L::bottom();
  value_type required_ = L::bottom();  // every requirement of this exploration, joined
  value_type fallback_ = L::bottom();  // the prediction before narrow()
  bool missed_ = false;
};

}  // namespace detail

template <lattice L>
class prophecy {
 public:
  using value_type = typename L::value_type;

  // The prophecy constructed at `site` in the current static state: the same
  // one in every run and every exploration of this extraction.
  explicit prophecy(detail::source_site site = detail::source_site::current())
      : slot_(&static_cast<detail::lattice_slot<L>&>(
            detail::prophecy_at(typeid(L), site, &make_slot))),
        token_(detail::current_token()) {}

  // The prediction for this exploration.
  const value_type& value() const {
    detail::check_token(token_, "a jit::prophecy");
    return slot_->current();
  }

  // The fact that the prediction must cover.
  void require(const value_type& v) const {
    detail::check_token(token_, "a jit::prophecy");
    slot_->require(v);
  }

 private:
  static std::unique_ptr<detail::prophecy_slot> make_slot() {
    return std::make_unique<detail::lattice_slot<L>>();
  }

  detail::lattice_slot<L>* slot_;
  std::uint64_t token_;
};

// ---------------------------------------------------------------- shipped lattices

// false ⊑ true: "does it ever happen?" (a tensor is read on the GPU).
struct flag_lattice {
  using value_type = bool;
  static bool bottom() { return false; }
  static bool join(bool a, bool b) { return a || b; }
  static bool leq(bool a, bool b) { return !a || b; }
  static std::string describe(bool v) { return v ? "true" : "false"; }
};

namespace detail {
template <class T>
std::string describe_value(const T& v) {
  std::ostringstream out;
  if constexpr (std::is_same_v<T, char> || std::is_same_v<T, signed char> ||
                std::is_same_v<T, unsigned char>) {
    out << static_cast<int>(v);
  } else {
    out << v;
  }
  return out.str();
}
}  // namespace detail

// The largest value required (a buffer size, a maximum unroll depth).
template <class T>
requires std::totally_ordered<T>
struct max_lattice {
  using value_type = T;
  static T bottom() { return std::numeric_limits<T>::lowest(); }
  static T join(const T& a, const T& b) { return std::max(a, b); }
  static bool leq(const T& a, const T& b) { return !(b < a); }
  static std::string describe(const T& v) { return detail::describe_value(v); }
};

// The smallest value required (ordered by >=: bottom is the maximum of T).
template <class T>
requires std::totally_ordered<T>
struct min_lattice {
  using value_type = T;
  static T bottom() { return std::numeric_limits<T>::max(); }
  static T join(const T& a, const T& b) { return std::min(a, b); }
  static bool leq(const T& a, const T& b) { return !(a < b); }
  static std::string describe(const T& v) { return detail::describe_value(v); }
};

// "Nothing yet" ⊑ "always this value" ⊑ "conflict": every requirement gives
// the same value, or not (the paper's ReLU threshold).
template <class T>
class same_value {
 public:
  enum class kind : unsigned char { none, value, conflict };

  same_value() = default;
  static same_value of(T v) { return same_value(kind::value, std::move(v)); }
  static same_value conflict() { return same_value(kind::conflict, T{}); }

  kind state() const { return kind_; }
  bool is_none() const { return kind_ == kind::none; }
  bool is_value() const { return kind_ == kind::value; }
  bool is_conflict() const { return kind_ == kind::conflict; }
  // The value (only when is_value()).
  const T& get() const { return value_; }

  friend bool operator==(const same_value& a, const same_value& b) {
    return a.kind_ == b.kind_ && (a.kind_ != kind::value || a.value_ == b.value_);
  }

 private:
  same_value(kind k, T v) : kind_(k), value_(std::move(v)) {}

  kind kind_ = kind::none;
  T value_{};
};

template <class T>
requires std::equality_comparable<T>
struct same_value_lattice {
  using value_type = same_value<T>;
  static value_type bottom() { return {}; }
  static value_type join(const value_type& a, const value_type& b) {
    if (a.is_none()) return b;
    if (b.is_none()) return a;
    if (a == b) return a;
    return value_type::conflict();
  }
  static bool leq(const value_type& a, const value_type& b) {
    return a.is_none() || b.is_conflict() || a == b;
  }
  static std::string describe(const value_type& v) {
    if (v.is_none()) return "none";
    if (v.is_conflict()) return "conflict";
    return "value " + detail::describe_value(v.get());
  }
};

}  // namespace jit
