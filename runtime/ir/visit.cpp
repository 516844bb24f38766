#include "runtime/ir/visit.h"

#include <algorithm>
#include <utility>

#include "runtime/ir/builder.h"

namespace augur::ir {

std::size_t node_count(std::span<const Stmt> block, std::size_t cap) {
  // One expression stack for the whole walk (this runs on every statement a
  // region planner looks at), and each expression walk stops at the cap too:
  // a DAG can stand for an exponential tree.
  std::size_t n = 0;
  std::vector<const Expr*> exprs;
  for_each_stmt(block, [&](const Stmt& s) {
    ++n;
    for (const ExprPtr* root : {&s.expr, &s.ptr, &s.index}) {
      exprs.clear();
      if (*root) exprs.push_back(root->get());
      while (!exprs.empty() && n <= cap) {
        const Expr* e = exprs.back();
        exprs.pop_back();
        ++n;
        for (const ExprPtr& a : e->args)
          if (a) exprs.push_back(a.get());
      }
    }
    return n <= cap;
  });
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
  ExprFolder<std::size_t> folder(ExprFolder<std::size_t>::Remember::shared_nodes);
  const auto depth_of = [](const ExprPtr&, std::span<std::size_t> args) {
    return 1 + (args.empty() ? 0 : *std::max_element(args.begin(), args.end()));
  };
  std::size_t depth = 0;
  for_each_stmt(block, [&](const Stmt& s) {
    for (const ExprPtr* root : {&s.expr, &s.ptr, &s.index})
      if (*root) depth = std::max(depth, folder.fold(*root, depth_of));
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

std::vector<std::uint8_t> declarations_to_assignments(Function& fn,
                                                      std::span<const std::uint8_t> hoist) {
  std::vector<std::uint8_t> found(fn.vars.size(), 0);
  std::vector<Block*> todo{&fn.body};
  while (!todo.empty()) {
    Block& b = *todo.back();
    todo.pop_back();
    std::erase_if(b, [&](const Stmt& s) {
      const bool dropped =
          s.kind == StmtKind::Decl && hoist[s.var.index] && fn.var(s.var).kind == VarKind::Shared;
      if (dropped) found[s.var.index] = 1;
      return dropped;
    });
    for (Stmt& s : b) {
      if (s.kind == StmtKind::Decl && hoist[s.var.index]) {
        ExprPtr value = s.expr ? s.expr : constant(fn.var(s.var).type, 0);
        s = Stmt::assign(s.var, std::move(value));
        found[s.var.index] = 1;
      }
      for (Block* inner : {&s.init, &s.body, &s.step, &s.orelse})
        if (!inner->empty()) todo.push_back(inner);
    }
  }
  return found;
}

}  // namespace augur::ir
