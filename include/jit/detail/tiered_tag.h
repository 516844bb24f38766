// Whether a jit::compile call ends with the jit::tiered tag (tiering.h);
// compiler.h asks too, so that the cached compile() leaves such calls to
// tiered.h.
#pragma once

#include <tuple>
#include <type_traits>

#include "jit/tiering.h"

namespace jit::detail {

template <class... A>
constexpr bool ends_tiered() {
  if constexpr (sizeof...(A) == 0) {
    return false;
  } else {
    using last = std::tuple_element_t<sizeof...(A) - 1, std::tuple<std::decay_t<A>...>>;
    return std::is_same_v<last, tiered_t>;
  }
}

}  // namespace jit::detail
