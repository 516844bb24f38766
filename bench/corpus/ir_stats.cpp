#include "bench/corpus/ir_stats.h"

#include <utility>
#include <vector>

namespace augur::bench::corpus {

namespace {

std::size_t count_loads(const ir::ExprPtr& root) {
  std::size_t loads = 0;
  std::vector<const ir::Expr*> stack;
  if (root) stack.push_back(root.get());
  while (!stack.empty()) {
    const ir::Expr* e = stack.back();
    stack.pop_back();
    if (e->kind == ir::ExprKind::Load) ++loads;
    for (const ir::ExprPtr& a : e->args) stack.push_back(a.get());
  }
  return loads;
}

}  // namespace

IrStats ir_stats(const ir::Function& function) {
  IrStats stats;
  // Blocks still to walk, with the nesting depth of their statements.
  std::vector<std::pair<const ir::Block*, std::size_t>> stack = {{&function.body, 0}};
  while (!stack.empty()) {
    const auto [block, depth] = stack.back();
    stack.pop_back();
    for (const ir::Stmt& s : *block) {
      ++stats.statements;
      stats.loads += count_loads(s.expr) + count_loads(s.ptr) + count_loads(s.index);
      switch (s.kind) {
        case ir::StmtKind::Store:
          ++stats.stores;
          break;
        case ir::StmtKind::If:
          ++stats.branches;
          break;
        case ir::StmtKind::While:
        case ir::StmtKind::For:
          ++stats.loops;
          break;
        default:
          break;
      }
      const bool nests = s.kind == ir::StmtKind::If || s.kind == ir::StmtKind::While ||
                         s.kind == ir::StmtKind::For;
      if (nests && depth + 1 > stats.depth) stats.depth = depth + 1;
      for (const ir::Block* inner : {&s.body, &s.orelse, &s.init, &s.step})
        if (!inner->empty()) stack.push_back({inner, depth + (nests ? 1 : 0)});
    }
  }
  return stats;
}

}  // namespace augur::bench::corpus
