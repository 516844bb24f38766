#include "runtime/peg/axioms_util.h"

#include <bit>

#include "jit/error.h"
#include "runtime/peg/peg_egraph.h"

namespace augur::peg::axioms {

bool commutes(std::string_view op, std::string_view type) {
  const std::optional<Kind> kind = kind_named(op);
  const std::optional<ir::Type> t = ir::Type::parse(type);
  if (!kind || !t)
    throw jit::error("axioms: no operator '" + std::string(op) + "' on '" + std::string(type) +
                     "'");
  return commutative(op_of(*kind, PegType(*t)));
}

const std::vector<std::string>& value_types() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> t = {"bool"};
    for (const std::string& s : int_types()) t.push_back(s);
    for (const std::string& s : float_types()) t.push_back(s);
    for (const char* s :
         {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"})
      t.push_back(std::string(s) + "*");
    return t;
  }();
  return types;
}

std::string typed(std::string_view text, std::string_view type) {
  std::string out;
  out.reserve(text.size() + 4 * type.size());
  for (std::size_t at; (at = text.find("$T")) != std::string_view::npos;) {
    out.append(text.substr(0, at)).append(type);
    text.remove_prefix(at + 2);
  }
  return out.append(text);
}

eqsat::Rewrite& add(std::vector<eqsat::Rewrite>& rules, PegLanguage& language,
                    std::string_view name, std::string_view type, std::string_view lhs,
                    std::string_view rhs) {
  std::string full(name);
  if (!type.empty()) full += "." + std::string(type);
  rules.push_back(eqsat::Rewrite::parse(full, typed(lhs, type), typed(rhs, type), language));
  return rules.back();
}

eqsat::Rewrite& add(std::vector<eqsat::Rewrite>& rules, PegLanguage& language,
                    std::string_view name, std::string_view type, std::string_view lhs,
                    eqsat::Builder build, eqsat::Reads reads) {
  std::string full(name);
  if (!type.empty()) full += "." + std::string(type);
  rules.emplace_back(full, eqsat::Query::parse(typed(lhs, type), language), std::move(build),
                     reads);
  return rules.back();
}

std::uint32_t payload_var(const eqsat::Rewrite& rule, std::string_view name) {
  const std::optional<std::uint32_t> v = rule.query().vars().find_payload(name);
  if (!v)
    throw jit::error("rule '" + rule.name() + "' has no payload variable " + std::string(name));
  return *v;
}

eqsat::Guard is_root(std::uint32_t var) {
  return {[var](const eqsat::EGraph& g, eqsat::Id root, const eqsat::Subst& s) {
            return g.find(s[var]) == g.find(root);
          },
          eqsat::Reads::Match};
}

eqsat::Guard invariant(const eqsat::Rewrite& rule, std::string_view var, std::string_view loop) {
  return eqsat::invariant_in_bound_loop(rule.var(var), payload_var(rule, loop));
}

eqsat::Guard outside(const eqsat::Rewrite& rule, std::string_view var, std::string_view loop) {
  return eqsat::outside_bound_loop(rule.var(var), payload_var(rule, loop));
}

eqsat::Guard constant_where(const eqsat::Rewrite& rule, std::string_view var,
                            std::function<bool(const eqsat::Label&)> test) {
  return eqsat::constant_where(rule.var(var), std::move(test), false);
}

eqsat::Guard not_constant(const eqsat::Rewrite& rule, std::string_view var) {
  return eqsat::constant_where(
      rule.var(var), [](eqsat::Label) { return false; }, true);
}

eqsat::Guard power_of_two(const eqsat::Rewrite& rule, std::string_view var) {
  return constant_where(rule, var,
                        [](const eqsat::Label& c) { return std::has_single_bit(c.payload); });
}

eqsat::Guard lacks(const eqsat::Rewrite& rule, std::string_view var, Kind kind) {
  const std::uint32_t v = rule.var(var);
  return {[v, kind](const eqsat::EGraph& g, eqsat::Id, const eqsat::Subst& s) {
            for (eqsat::Id n : g.nodes_of(s[v]))
              if (kind_of(g.node(n).label.op) == kind) return false;
            return true;
          },
          eqsat::Reads::Classes};
}

}  // namespace augur::peg::axioms
