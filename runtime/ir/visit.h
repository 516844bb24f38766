// Walking IR without recursion: statement nesting and expression depth are
// the user's (a staged program can nest ifs or chain `e = e + 1` as deep as
// it likes), so these walks keep their own stacks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/ir/ir.h"

namespace augur::ir {

// Where for_each_stmt_at finds a statement, counted within the walk's root
// block: the loops around it (a loop's init, body and step are inside it)
// and the statements around it (0 for the root block's own).
struct StmtDepth {
  std::uint32_t loops = 0;
  std::uint32_t nesting = 0;
};

// Calls f(stmt, depth) for every statement of `block`, nested blocks
// included, in source order (a statement before the statements it holds):
// for what needs to know which loop a `break` or `continue` leaves, or how
// deep a statement nests. An `f` that returns bool stops the walk by
// returning false.
template <class F>
void for_each_stmt_at(std::span<const Stmt> block, F&& f) {
  struct Level {
    std::span<const Stmt> stmts;
    StmtDepth depth;
  };
  std::vector<Level> stack{{block, {}}};
  while (!stack.empty()) {
    Level& top = stack.back();
    if (top.stmts.empty()) {
      stack.pop_back();
      continue;
    }
    const Stmt& s = top.stmts.front();
    top.stmts = top.stmts.subspan(1);
    const StmtDepth depth = top.depth;
    if constexpr (std::is_same_v<std::invoke_result_t<F&, const Stmt&, StmtDepth>, bool>) {
      if (!f(s, depth)) return;
    } else {
      f(s, depth);
    }
    const bool loop = s.kind == StmtKind::While || s.kind == StmtKind::For;
    // Pushed in reverse, so that init, body, step and orelse come in that order.
    for (const Block* b : {&s.orelse, &s.step, &s.body, &s.init})
      if (!b->empty())
        stack.push_back(
            {*b, {depth.loops + (loop && b != &s.orelse ? 1u : 0u), depth.nesting + 1}});
  }
}

// Calls f(stmt) for every statement of `block`, nested blocks included, in
// source order (a statement before the statements it holds). An `f` that
// returns bool stops the walk by returning false.
template <class F>
void for_each_stmt(std::span<const Stmt> block, F&& f) {
  for_each_stmt_at(block, [&](const Stmt& s, StmtDepth) {
    if constexpr (std::is_same_v<std::invoke_result_t<F&, const Stmt&>, bool>) {
      return f(s);
    } else {
      f(s);
      return true;
    }
  });
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

// Folds expressions bottom-up without recursion: `f(e, results)` gets each
// node (as its ExprPtr) after the results of its arguments, in order, and
// returns its own. A missing argument (IR that does not verify) gives R{}.
// A folder keeps its stacks from one fold to the next, and remembers results
// across folds as its `Remember` says: a node reached again (a shared
// subexpression) reuses its result, so a DAG costs its nodes, not its tree.
template <class R>
class ExprFolder {
 public:
  enum class Remember {
    shared_nodes,  // nodes with more than one owner: in IR that does not
                   // change between folds, the only ones met twice
    every_node,    // for a caller that folds the same subtree from elsewhere
  };
  explicit ExprFolder(Remember remember) : remember_(remember) {}

  template <class F>
  R fold(const ExprPtr& root, F&& f) {
    stack_.clear();
    results_.clear();
    enter(root);
    while (!stack_.empty()) {
      Frame& top = stack_.back();
      const Expr& e = **top.e;
      if (top.next < e.args.size()) {
        enter(e.args[top.next++]);  // may move `top`
        continue;
      }
      const std::size_t base = top.base;
      R r = f(*top.e, std::span<R>(results_).subspan(base));
      if (remembers(*top.e)) memo_.emplace(top.e->get(), r);
      stack_.pop_back();
      results_.erase(results_.begin() + static_cast<std::ptrdiff_t>(base), results_.end());
      results_.push_back(std::move(r));
    }
    return std::move(results_.back());
  }

 private:
  struct Frame {
    const ExprPtr* e;
    std::size_t next;  // the next argument to visit
    std::size_t base;  // where its arguments' results start in `results_`
  };

  bool remembers(const ExprPtr& e) const {
    return remember_ == Remember::every_node ||
           (remember_ == Remember::shared_nodes && e.use_count() > 1);
  }
  void enter(const ExprPtr& e) {
    if (!e) {
      results_.emplace_back();
      return;
    }
    if (remembers(e)) {
      if (auto it = memo_.find(e.get()); it != memo_.end()) {
        results_.push_back(it->second);
        return;
      }
    }
    stack_.push_back({&e, 0, results_.size()});
  }

  Remember remember_;
  std::unordered_map<const Expr*, R> memo_;
  std::vector<Frame> stack_;
  std::vector<R> results_;
};

template <class F>
void for_each_expr(const ExprPtr& root, F&& f) {
  if (root) for_each_expr(*root, f);
}

// Renames variables in place, `rename(v)` giving each variable's new name. A
// node none of whose variables changes is kept, so renaming allocates only
// along changed paths. Every node's result is remembered for the renamer's
// life: rewriting a statement drops its old expression's owners, so a node
// shared with a later statement may no longer look shared. The renaming must
// not change while a renamer lives.
class VarRenamer {
 public:
  template <class Rename>
  ExprPtr expr(const ExprPtr& root, Rename&& rename) {
    return folder_.fold(root, [&](const ExprPtr& e, std::span<ExprPtr> args) {
      const bool var = e->kind == ExprKind::Var;
      const VarId to = var ? rename(e->var) : VarId{};
      bool changed = var && to != e->var;
      for (std::size_t i = 0; i < args.size(); ++i) changed = changed || args[i] != e->args[i];
      if (!changed) return e;
      Expr copy = *e;
      if (var) copy.var = to;
      std::move(args.begin(), args.end(), copy.args.begin());
      return ExprPtr(std::make_shared<const Expr>(std::move(copy)));
    });
  }

  // Every statement of `block`, nested ones included: the variable it
  // declares or assigns and its expressions.
  template <class Rename>
  void block(Block& block, Rename&& rename) {
    std::vector<Block*> todo{&block};
    while (!todo.empty()) {
      Block* b = todo.back();
      todo.pop_back();
      for (Stmt& s : *b) {
        if (s.var.valid()) s.var = rename(s.var);
        for (ExprPtr* e : {&s.expr, &s.ptr, &s.index})
          if (*e) *e = expr(*e, rename);
        for (Block* nested : {&s.body, &s.orelse, &s.init, &s.step})
          if (!nested->empty()) todo.push_back(nested);
      }
    }
  }

 private:
  ExprFolder<ExprPtr> folder_{ExprFolder<ExprPtr>::Remember::every_node};
};

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

// For a caller that declares the variables `hoist` marks (by index) at the
// top of `fn`: turns their declarations in the body into assignments of
// their values (zero for a declaration without one, which zeroes its
// variable) and drops a marked shared array's (it is zero at block start).
// Returns, by index, whether a declaration of each was found.
std::vector<std::uint8_t> declarations_to_assignments(Function& fn,
                                                      std::span<const std::uint8_t> hoist);

}  // namespace augur::ir
