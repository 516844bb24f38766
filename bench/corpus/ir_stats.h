// Shape figures of an IR function, for the corpus tables: statements as
// staging counts them (every statement, nested ones included), loops,
// branches, memory operations and the deepest nesting.
#pragma once

#include <cstddef>

#include "runtime/ir/ir.h"

namespace augur::bench::corpus {

struct IrStats {
  std::size_t statements = 0;
  std::size_t loops = 0;     // while and for
  std::size_t branches = 0;  // if
  std::size_t stores = 0;
  std::size_t loads = 0;
  std::size_t depth = 0;  // deepest nesting of if / while / for
};

// Iterative: the nesting of the function does not become recursion.
IrStats ir_stats(const ir::Function& function);

}  // namespace augur::bench::corpus
