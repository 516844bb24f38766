// Whether an integer division or remainder cannot trap: translation then
// needs no Demand to keep it in place, and reversion may compute it where
// the source does not (before a loop, say, instead of in a peeled first
// iteration).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "runtime/ir/type.h"
#include "runtime/ir/value.h"
#include "runtime/peg/peg_ops.h"

namespace augur::peg {

// The divisor is a constant other than 0 (and -1 when signed), or a φ that
// takes such a constant wherever its other arm could trap: the guard
// programs write around a division by a variable,
//   x / (d == 0 || d == -1 && x == MIN ? 1 : d)
// (`d == -1` alone, or a constant x other than MIN, also rules out the
// overflow). `View` reads a graph of nodes N:
//   std::optional<std::uint64_t> constant(N)  a constant's bits
//   bool any_node(N, F)  whether f(Kind, std::span<const N> children) holds
//                        for one of the ways N is computed
//   bool same(N, N)
// The disjunctions and conjunctions walked are bounded (kMaxTerms).
template <class View, class N>
bool division_cannot_trap(const View& g, N dividend, N divisor, ir::Type t) {
  constexpr int kMaxTerms = 8;
  const std::uint64_t minus_one = ir::canonical_bits(t, ~std::uint64_t{0});
  const std::uint64_t minimum = ir::canonical_bits(t, std::uint64_t{1} << (t.bits() - 1));
  const auto safe_constant = [&](N d) {
    const std::optional<std::uint64_t> bits = g.constant(d);
    return bits && *bits != 0 && (!t.is_signed() || *bits != minus_one);
  };
  if (safe_constant(divisor)) return true;
  const std::optional<std::uint64_t> x = g.constant(dividend);
  const bool may_overflow = t.is_signed() && (!x || *x == minimum);
  // Whether `c` is `v == bits`, either way round.
  const auto is_eq = [&](N c, N v, std::uint64_t bits) {
    return g.any_node(c, [&](Kind k, std::span<const N> ch) {
      return k == Kind::Eq && ((g.same(ch[0], v) && g.constant(ch[1]) == bits) ||
                               (g.same(ch[1], v) && g.constant(ch[0]) == bits));
    });
  };
  // Whether where `c` is false, d is neither 0 nor (when it matters) -1
  // with x MIN: one of c's disjuncts (φ(a, true, b) is a ∨ b) says so.
  const auto guards = [&](N c, N d) {
    bool nonzero = false, no_overflow = !may_overflow;
    std::array<N, kMaxTerms> todo{c};
    std::size_t pending = 1;
    for (int seen = 0; pending > 0 && seen < kMaxTerms; ++seen) {
      const N term = todo[--pending];
      nonzero = nonzero || is_eq(term, d, 0);
      no_overflow = no_overflow || is_eq(term, d, minus_one) ||
                    g.any_node(term, [&](Kind k, std::span<const N> ch) {
                      // d == -1 && x == MIN, either way round
                      if (k != Kind::Phi || g.constant(ch[2]) != 0u) return false;
                      return (is_eq(ch[0], d, minus_one) && is_eq(ch[1], dividend, minimum)) ||
                             (is_eq(ch[1], d, minus_one) && is_eq(ch[0], dividend, minimum));
                    });
      g.any_node(term, [&](Kind k, std::span<const N> ch) {
        if (k != Kind::Phi || g.constant(ch[1]) != 1u || pending + 2 > todo.size()) return false;
        todo[pending++] = ch[0];
        todo[pending++] = ch[2];
        return true;
      });
    }
    return nonzero && no_overflow;
  };
  return g.any_node(divisor, [&](Kind k, std::span<const N> ch) {
    return k == Kind::Phi && safe_constant(ch[1]) && guards(ch[0], ch[2]);
  });
}

}  // namespace augur::peg
