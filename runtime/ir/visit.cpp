#include "runtime/ir/visit.h"

namespace augur::ir {

namespace {

// Thrown out of a walk to stop it.
struct Capped {};

}  // namespace

std::size_t node_count(std::span<const Stmt> block, std::size_t cap) {
  std::size_t n = 0;
  try {
    for_each_stmt(block, [&](const Stmt& s) {
      ++n;
      for_each_expr(s, [&](const Expr&) {
        if (++n > cap) throw Capped{};
      });
      if (n > cap) throw Capped{};
    });
  } catch (const Capped&) {
    return n;
  }
  return n;
}

std::size_t loop_count(const Block& block) {
  std::size_t n = 0;
  for_each_stmt(block, [&](const Stmt& s) {
    n += s.kind == StmtKind::While || s.kind == StmtKind::For ? 1 : 0;
  });
  return n;
}

}  // namespace augur::ir
