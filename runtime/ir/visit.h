// Walking IR without recursion: statement nesting and expression depth are
// the user's (a staged program can nest ifs or chain `e = e + 1` as deep as
// it likes), so these walks keep their own stacks.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "runtime/ir/ir.h"

namespace augur::ir {

// Calls f(stmt) for every statement of `block`, nested blocks included, in
// source order (a statement before the statements it holds).
template <class F>
void for_each_stmt(std::span<const Stmt> block, F&& f) {
  std::vector<std::span<const Stmt>> stack{block};
  while (!stack.empty()) {
    std::span<const Stmt>& top = stack.back();
    if (top.empty()) {
      stack.pop_back();
      continue;
    }
    const Stmt& s = top.front();
    top = top.subspan(1);
    f(s);
    // Pushed in reverse, so that init, body, step and orelse come in that order.
    for (const Block* b : {&s.orelse, &s.step, &s.body, &s.init})
      if (!b->empty()) stack.emplace_back(*b);
  }
}

// Calls f(expr) for every expression node of `root` (each use of a shared
// subexpression again), parents before children.
template <class F>
void for_each_expr(const ExprPtr& root, F&& f) {
  if (!root) return;
  std::vector<const Expr*> stack{root.get()};
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    f(*e);
    for (auto it = e->args.rbegin(); it != e->args.rend(); ++it) stack.push_back(it->get());
  }
}

// The expressions a statement holds itself (not those of nested statements).
template <class F>
void for_each_expr(const Stmt& s, F&& f) {
  for (const ExprPtr* e : {&s.expr, &s.ptr, &s.index}) for_each_expr(*e, f);
}

// Statements and expression nodes of `block`, nested ones included; stops
// counting past `cap` (a shared subexpression counts once per use, so a DAG
// can stand for an exponential tree).
std::size_t node_count(std::span<const Stmt> block, std::size_t cap = ~std::size_t{0});

// Loop statements (while, for) in `block`, nested ones included.
std::size_t loop_count(const Block& block);

}  // namespace augur::ir
