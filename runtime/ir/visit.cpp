#include "runtime/ir/visit.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace augur::ir {

std::size_t node_count(std::span<const Stmt> block, std::size_t cap) {
  // One stack of statements and one of expressions for the whole walk: this
  // runs on every statement a region planner looks at.
  std::size_t n = 0;
  std::vector<std::span<const Stmt>> blocks{block};
  std::vector<const Expr*> exprs;
  while (!blocks.empty() && n <= cap) {
    std::span<const Stmt>& top = blocks.back();
    if (top.empty()) {
      blocks.pop_back();
      continue;
    }
    const Stmt& s = top.front();
    top = top.subspan(1);
    ++n;
    for (const ExprPtr* root : {&s.expr, &s.ptr, &s.index}) {
      if (*root) exprs.push_back(root->get());
      while (!exprs.empty() && n <= cap) {
        const Expr* e = exprs.back();
        exprs.pop_back();
        ++n;
        for (const ExprPtr& a : e->args)
          if (a) exprs.push_back(a.get());
      }
      exprs.clear();
    }
    for (const Block* b : {&s.orelse, &s.step, &s.body, &s.init})
      if (!b->empty()) blocks.emplace_back(*b);
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
  // A node met again (a shared subexpression) reuses its depth, so a DAG is
  // measured in time proportional to its nodes. Only a node with more than
  // one owner can be met again, so only those are remembered (a map entry
  // per node was most of the cost).
  std::unordered_map<const Expr*, std::size_t> shared;
  struct Frame {
    const ExprPtr* expr;
    std::size_t next;     // the next argument to visit
    std::size_t deepest;  // the deepest argument so far
  };
  std::vector<Frame> stack;
  std::size_t depth = 0;
  const auto known = [&](const ExprPtr& e) -> const std::size_t* {
    if (e.use_count() < 2) return nullptr;
    const auto it = shared.find(e.get());
    return it == shared.end() ? nullptr : &it->second;
  };
  for_each_stmt(block, [&](const Stmt& s) {
    for (const ExprPtr* root : {&s.expr, &s.ptr, &s.index}) {
      if (!*root) continue;
      if (const std::size_t* d = known(*root)) {
        depth = std::max(depth, *d);
        continue;
      }
      stack.push_back({root, 0, 0});
      while (!stack.empty()) {
        Frame& top = stack.back();
        const Expr& e = **top.expr;
        if (top.next < e.args.size()) {
          const ExprPtr& arg = e.args[top.next++];
          if (!arg) continue;
          if (const std::size_t* d = known(arg)) {
            top.deepest = std::max(top.deepest, *d);
          } else {
            stack.push_back({&arg, 0, 0});  // may move `top`
          }
          continue;
        }
        const std::size_t d = top.deepest + 1;
        if (top.expr->use_count() > 1) shared.emplace(top.expr->get(), d);
        stack.pop_back();
        if (stack.empty()) {
          depth = std::max(depth, d);
        } else {
          stack.back().deepest = std::max(stack.back().deepest, d);
        }
      }
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
