#include "bench/egraph/math.h"

#include <cmath>
#include <string>
#include <vector>

#include "runtime/eqsat/constant_folding.h"

namespace augur::eqsat::math {

void add_constant_folding(EGraph& egraph, SymbolLanguage& language) {
  const Op add = language.op("+"), sub = language.op("-"), mul = language.op("*"),
           div = language.op("/");
  egraph.add_analysis<ConstantFolding>(
      [=](Label node, std::span<const Label> c) -> std::optional<Label> {
        if (c.empty()) {
          if (SymbolLanguage::number_value(node)) return node;
          return std::nullopt;
        }
        if (c.size() != 2) return std::nullopt;
        const double a = *SymbolLanguage::number_value(c[0]);
        const double b = *SymbolLanguage::number_value(c[1]);
        double r;
        if (node.op == add)
          r = a + b;
        else if (node.op == sub)
          r = a - b;
        else if (node.op == mul)
          r = a * b;
        else if (node.op == div && b != 0)
          r = a / b;
        else
          return std::nullopt;
        if (!std::isfinite(r)) return std::nullopt;
        return SymbolLanguage::number(r);
      });
}

namespace {

std::optional<double> constant(const EGraph& g, Id cls) {
  const std::optional<Label> c = g.analysis<ConstantFolding>().constant(cls);
  return c ? SymbolLanguage::number_value(*c) : std::nullopt;
}

bool has_symbol(const EGraph& g, Id cls) {
  for (Id n : g.nodes_of(cls)) {
    const ENodeView v = g.node(n);
    if (v.children.empty() && v.label.op != SymbolLanguage::kNumber) return true;
  }
  return false;
}

}  // namespace

GuardFactory guards(const SymbolLanguage&) {
  return [](std::string_view name, std::span<const std::uint32_t> vars) -> std::optional<Guard> {
    if (name == "not-zero" && vars.size() == 1) {
      const std::uint32_t v = vars[0];
      return [v](const EGraph& g, Id, const Subst& s) {
        const std::optional<double> c = constant(g, s[v]);
        return !c || *c != 0;
      };
    }
    if (name == "is-const" && vars.size() == 1) {
      const std::uint32_t v = vars[0];
      return [v](const EGraph& g, Id, const Subst& s) { return constant(g, s[v]).has_value(); };
    }
    if (name == "is-sym" && vars.size() == 1) {
      const std::uint32_t v = vars[0];
      return [v](const EGraph& g, Id, const Subst& s) { return has_symbol(g, s[v]); };
    }
    if (name == "const-or-distinct" && vars.size() == 2) {
      const std::uint32_t c = vars[0], x = vars[1];
      return [c, x](const EGraph& g, Id, const Subst& s) {
        return g.find(s[c]) != g.find(s[x]) &&
               (constant(g, s[c]).has_value() || has_symbol(g, s[c]));
      };
    }
    return std::nullopt;
  };
}

}  // namespace augur::eqsat::math
