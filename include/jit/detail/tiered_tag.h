// jit::tiered, the tag that asks jit::compile for a tiered jit::handle
// (tiered.h); compiler.h sees it too, so that the cached compile() leaves such
// calls to tiered.h.
#pragma once

#include <tuple>
#include <type_traits>

#include "jit/detail/handle_core.h"

namespace jit {

// The tag that asks jit::compile for a tiered handle, with its policy.
struct tiered_t {
  tiering policy;
};
// O2 compile started at once.
inline constexpr tiered_t tiered{};
// O2 compile started as `policy` says: jit::tiered_by({.promote_after_calls = 1000}).
constexpr tiered_t tiered_by(tiering policy) {
  return tiered_t{policy};
}

namespace detail {

template <class... A>
constexpr bool ends_tiered() {
  if constexpr (sizeof...(A) == 0) {
    return false;
  } else {
    using last = std::tuple_element_t<sizeof...(A) - 1, std::tuple<std::decay_t<A>...>>;
    return std::is_same_v<last, tiered_t>;
  }
}

}  // namespace detail
}  // namespace jit
