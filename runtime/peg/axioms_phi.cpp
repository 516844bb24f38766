#include "runtime/peg/axioms.h"

namespace augur::peg {

void add_phi_axioms(std::vector<eqsat::Rewrite>&, PegLanguage&) {}

}  // namespace augur::peg
