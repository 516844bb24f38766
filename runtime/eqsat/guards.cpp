#include "runtime/eqsat/guards.h"

#include <utility>

#include "runtime/eqsat/constant_folding.h"
#include "runtime/eqsat/loop_invariance.h"

namespace augur::eqsat {

Guard is_constant(std::uint32_t var) {
  return {[var](const EGraph& g, Id, const Subst& s) {
            return g.analysis<ConstantFolding>().constant(s[var]).has_value();
          },
          Reads::Match};
}

Guard constant_where(std::uint32_t var, std::function<bool(Label)> test, bool unknown_passes) {
  return {[var, test = std::move(test), unknown_passes](const EGraph& g, Id, const Subst& s) {
            const std::optional<Label> c = g.analysis<ConstantFolding>().constant(s[var]);
            return c ? test(*c) : unknown_passes;
          },
          Reads::Match};
}

Guard invariant_in(std::uint32_t var, unsigned loop) {
  return {[var, loop](const EGraph& g, Id, const Subst& s) {
            return g.analysis<LoopInvariance>().invariant(s[var], loop);
          },
          Reads::Match};
}

Guard invariant_in_bound_loop(std::uint32_t var, std::uint32_t loop_var) {
  return {[var, loop_var](const EGraph& g, Id, const Subst& s) {
            return g.analysis<LoopInvariance>().invariant(
                s[var], static_cast<unsigned>(s.payloads[loop_var]));
          },
          Reads::Match};
}

Guard outside_bound_loop(std::uint32_t var, std::uint32_t loop_var) {
  return {[var, loop_var](const EGraph& g, Id, const Subst& s) {
            return g.analysis<LoopInvariance>().depth(s[var]) <
                   static_cast<unsigned>(s.payloads[loop_var]);
          },
          Reads::Match};
}

Guard distinct(std::uint32_t a, std::uint32_t b) {
  return {[a, b](const EGraph& g, Id, const Subst& s) { return g.find(s[a]) != g.find(s[b]); },
          Reads::Match};
}

}  // namespace augur::eqsat
