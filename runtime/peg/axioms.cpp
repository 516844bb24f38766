#include "runtime/peg/axioms.h"

namespace augur::peg {

std::span<const eqsat::Rewrite> builtin_rules() {
  // Built on first use and never destroyed: compiles may run at exit.
  static const std::vector<eqsat::Rewrite>* rules = [] {
    auto* r = new std::vector<eqsat::Rewrite>;
    PegLanguage language;
    add_loop_axioms(*r, language);
    add_peel_axioms(*r, language);
    add_phi_axioms(*r, language);
    add_arith_axioms(*r, language);
    add_heap_axioms(*r, language);
    return r;
  }();
  return *rules;
}

const eqsat::RuleIndex& builtin_rule_index() {
  static const eqsat::RuleIndex* index = new eqsat::RuleIndex(builtin_rules());
  return *index;
}

}  // namespace augur::peg
