// Walking IR without recursion: statement nesting and expression depth are
// the user's (a staged program can nest ifs or chain `e = e + 1` as deep as
// it likes), so these walks keep their own stacks.
#pragma once

#include <cstddef>
#include <span>
#include <unordered_map>
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
// subexpression again), parents before children. `stack` is scratch space
// the caller may keep from one walk to the next, so that walking every
// statement of a large function allocates once.
template <class F>
void for_each_expr(const Expr& root, std::vector<const Expr*>& stack, F&& f) {
  stack.assign(1, &root);
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    f(*e);
    for (auto it = e->args.rbegin(); it != e->args.rend(); ++it)
      if (*it) stack.push_back(it->get());
  }
}
template <class F>
void for_each_expr(const Expr& root, F&& f) {
  std::vector<const Expr*> stack;
  for_each_expr(root, stack, f);
}

// Folds `root` bottom-up without recursion: `f(e, results)` gets each node
// (as its ExprPtr) after the results of its arguments, in order, and returns
// its own. With `memo`, a node reached again (a shared subexpression) reuses
// its result; memo also keeps results across calls. A missing argument (IR
// that does not verify) gives R{}.
template <class R, class F>
R fold_expr(const ExprPtr& root, F&& f, std::unordered_map<const Expr*, R>* memo = nullptr) {
  struct Frame {
    const ExprPtr* e;
    std::size_t next;  // the next argument to visit
    std::size_t base;  // where its arguments' results start in `results`
  };
  std::vector<Frame> stack;
  std::vector<R> results;
  const auto enter = [&](const ExprPtr& e) {
    if (!e) {
      results.emplace_back();
      return;
    }
    if (memo) {
      if (auto it = memo->find(e.get()); it != memo->end()) {
        results.push_back(it->second);
        return;
      }
    }
    stack.push_back({&e, 0, results.size()});
  };
  enter(root);
  while (!stack.empty()) {
    Frame& top = stack.back();
    const Expr& e = **top.e;
    if (top.next < e.args.size()) {
      enter(e.args[top.next++]);
      continue;
    }
    const std::size_t base = top.base;
    R r = f(*top.e, std::span<R>(results).subspan(base));
    if (memo) memo->emplace(top.e->get(), r);
    stack.pop_back();
    results.erase(results.begin() + static_cast<std::ptrdiff_t>(base), results.end());
    results.push_back(std::move(r));
  }
  return std::move(results.back());
}

template <class F>
void for_each_expr(const ExprPtr& root, F&& f) {
  if (root) for_each_expr(*root, f);
}

// The expressions a statement holds itself (not those of nested statements).
template <class F>
void for_each_expr(const Stmt& s, F&& f) {
  for (const ExprPtr* e : {&s.expr, &s.ptr, &s.index}) for_each_expr(*e, f);
}
// The same on a stack the caller keeps: a walk over a million statements
// allocates nothing per statement.
template <class F>
void for_each_expr(const Stmt& s, std::vector<const Expr*>& stack, F&& f) {
  for (const ExprPtr* e : {&s.expr, &s.ptr, &s.index})
    if (*e) for_each_expr(**e, stack, f);
}

// Statements and expression nodes of `block`, nested ones included; stops
// counting past `cap` (a shared subexpression counts once per use, so a DAG
// can stand for an exponential tree).
std::size_t node_count(std::span<const Stmt> block, std::size_t cap = ~std::size_t{0});

// Loop statements (while, for) in `block`, nested ones included.
std::size_t loop_count(const Block& block);

// The most expression nodes on one path from a statement's expression down to
// a leaf, over all of `block` (0: no expressions).
std::size_t expr_depth(std::span<const Stmt> block);

// How deep statements nest in `block` (1: none holds another; 0: empty).
std::size_t nesting_depth(std::span<const Stmt> block);

}  // namespace augur::ir
