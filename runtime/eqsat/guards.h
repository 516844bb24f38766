// Guards on analysis facts, for conditional rules. Each finds its analysis
// in the e-graph it is given (jit::error if absent), so one rule set serves
// any number of e-graphs, and reads only the classes the match binds
// (Reads::Match), so a rule guarded by them is searched incrementally.
#pragma once

#include <cstdint>
#include <functional>

#include "runtime/eqsat/rewrite.h"

namespace augur::eqsat {

// The class bound to `var` has a known constant.
Guard is_constant(std::uint32_t var);
// The class bound to `var` has a constant satisfying `test`; a class with no
// known constant passes iff `unknown_passes` ("≠ 0" usually holds for an
// unknown in egg's math rules, "= 0" does not).
Guard constant_where(std::uint32_t var, std::function<bool(Label)> test, bool unknown_passes);
// The class bound to `var` is invariant in loop `loop`.
Guard invariant_in(std::uint32_t var, unsigned loop);
// ... in the loop whose index the payload variable `loop_var` bound.
Guard invariant_in_bound_loop(std::uint32_t var, std::uint32_t loop_var);
// The class bound to `var` varies only in loops shallower than the one
// `loop_var` bound (loops nest by index): it may be an operand of that
// loop's θ, which an inner loop's value may not be.
Guard outside_bound_loop(std::uint32_t var, std::uint32_t loop_var);
// The classes bound to a and b differ.
Guard distinct(std::uint32_t a, std::uint32_t b);

}  // namespace augur::eqsat
