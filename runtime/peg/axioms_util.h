// Helpers the axiom families share: the types rules are instantiated for,
// rule construction from text, and guards on PEG facts.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/eqsat/guards.h"
#include "runtime/eqsat/rewrite.h"
#include "runtime/peg/peg_language.h"

namespace augur::peg::axioms {

inline const std::vector<std::string>& int_types() {
  static const std::vector<std::string> types = {"i8", "i16", "i32", "i64",
                                                 "u8", "u16", "u32", "u64"};
  return types;
}
inline const std::vector<std::string>& float_types() {
  static const std::vector<std::string> types = {"f32", "f64"};
  return types;
}
// Every IR value type, pointers included.
const std::vector<std::string>& value_types();

// `text` with every `$T` replaced by `type`.
std::string typed(std::string_view text, std::string_view type);

// Adds `lhs => rhs` (each with `$T` replaced by `type`) named `name.type`;
// returns it so that guards can be attached.
eqsat::Rewrite& add(std::vector<eqsat::Rewrite>& rules, PegLanguage& language,
                    std::string_view name, std::string_view type, std::string_view lhs,
                    std::string_view rhs);

// Adds `lhs` (with `$T` replaced) whose matches `build` turns into the class
// to merge with (or nothing).
eqsat::Rewrite& add(std::vector<eqsat::Rewrite>& rules, PegLanguage& language,
                    std::string_view name, std::string_view type, std::string_view lhs,
                    eqsat::Builder build, eqsat::Reads reads = eqsat::Reads::Anything);

// Whether `op` on `type` (names as in rules: "mul", "i32") commutes, so that
// e-matching tries both orders of its operands (peg::commutative) and a
// rule needs no mirror.
bool commutes(std::string_view op, std::string_view type);

// The payload variable `name` of a rule (e.g. "?l").
std::uint32_t payload_var(const eqsat::Rewrite& rule, std::string_view name);

// The class bound to `var` is the matched class itself (x = θ(A, x)).
eqsat::Guard is_root(std::uint32_t var);
// The class bound to `var` is invariant in the loop the payload variable binds.
eqsat::Guard invariant(const eqsat::Rewrite& rule, std::string_view var,
                       std::string_view loop = "?l");
// The class bound to `var` varies in no loop as deep as the one the payload
// variable binds: it may go inside that loop's θ.
eqsat::Guard outside(const eqsat::Rewrite& rule, std::string_view var,
                     std::string_view loop = "?l");
// The class bound to `var` holds a constant that `test` accepts.
eqsat::Guard constant_where(const eqsat::Rewrite& rule, std::string_view var,
                            std::function<bool(const eqsat::Label&)> test);
// The class bound to `var` holds a constant whose value, zero-extended, is a power of two.
eqsat::Guard power_of_two(const eqsat::Rewrite& rule, std::string_view var);
// The class bound to `var` has no e-node of kind `kind`.
eqsat::Guard lacks(const eqsat::Rewrite& rule, std::string_view var, Kind kind);

}  // namespace augur::peg::axioms
