// Test helper: EGraphOptions::commutative takes a plain function, so a test
// names the operator that commutes here before it makes the e-graph.
#pragma once

#include "runtime/eqsat/language.h"

namespace augur::eqsat::test {

inline Op commutative_plus = 0;

inline bool plus_commutes(Op op) {
  return op == commutative_plus;
}

}  // namespace augur::eqsat::test
