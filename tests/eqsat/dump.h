// Test helper: a canonical text dump of an e-graph, for comparing two runs.
#pragma once

#include <string>

#include "runtime/eqsat/egraph.h"

namespace augur::eqsat {

inline std::string dump(const EGraph& g) {
  std::string out;
  for (Id c : g.classes()) {
    out += std::to_string(index(c)) + ":";
    for (Id n : g.nodes_of(c)) {
      const ENodeView v = g.node(n);
      out += " " + std::to_string(v.label.op) + "/" + std::to_string(v.label.payload) + "(";
      for (Id child : v.children) out += std::to_string(index(child)) + ",";
      out += ")";
    }
    out += "\n";
  }
  return out;
}

}  // namespace augur::eqsat
