// The IR's float → integer conversion (docs/ir.md): truncation toward zero,
// saturating at the target's bounds, NaN to 0. One definition for the
// interpreter and the PEG optimizer's constant folding, which must agree.
#pragma once

#include <limits>

namespace augur::ir {

// A bound that F cannot represent rounds up to the next power of two, which is
// exactly where the conversion starts to overflow.
template <class I, class F>
[[gnu::always_inline]] inline I saturate(F x) {
  constexpr F lo = static_cast<F>(std::numeric_limits<I>::min());
  constexpr F hi = static_cast<F>(std::numeric_limits<I>::max());
  if (x != x) return 0;
  if (x <= lo) return std::numeric_limits<I>::min();
  if (x >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(x);
}

}  // namespace augur::ir
