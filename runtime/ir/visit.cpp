#include "runtime/ir/visit.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

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

std::size_t expr_depth(std::span<const Stmt> block) {
  // Memoized by node: a DAG is measured in time proportional to its nodes.
  std::unordered_map<const Expr*, std::size_t> memo;
  std::size_t depth = 0;
  for_each_stmt(block, [&](const Stmt& s) {
    for (const ExprPtr* e : {&s.expr, &s.ptr, &s.index}) {
      if (!*e) continue;
      const std::size_t d = fold_expr<std::size_t>(
          *e,
          [](const ExprPtr&, std::span<std::size_t> args) {
            return 1 + (args.empty() ? 0 : *std::max_element(args.begin(), args.end()));
          },
          &memo);
      depth = std::max(depth, d);
    }
  });
  return depth;
}

std::size_t nesting_depth(std::span<const Stmt> block) {
  std::vector<std::pair<std::span<const Stmt>, std::size_t>> stack{{block, 1}};
  std::size_t depth = 0;
  while (!stack.empty()) {
    const auto [b, d] = stack.back();
    stack.pop_back();
    if (b.empty()) continue;
    depth = std::max(depth, d);
    for (const Stmt& s : b) {
      for (const Block* inner : {&s.init, &s.body, &s.orelse, &s.step})
        if (!inner->empty()) stack.emplace_back(*inner, d + 1);
    }
  }
  return depth;
}

}  // namespace augur::ir
