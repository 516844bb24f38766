#include "runtime/peg/axioms.h"

namespace augur::peg {

void add_loop_axioms(std::vector<eqsat::Rewrite>&, PegLanguage&) {}

}  // namespace augur::peg
