#include "runtime/peg/axioms.h"

namespace augur::peg {

void add_heap_axioms(std::vector<eqsat::Rewrite>&, PegLanguage&) {}

}  // namespace augur::peg
