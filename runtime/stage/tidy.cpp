#include "runtime/stage/tidy.h"

#include <unordered_set>
#include <utility>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/stage/let_insertion.h"

namespace augur::stage {

namespace {

using ir::Block;
using ir::ExprKind;
using ir::Stmt;
using ir::StmtKind;

bool is_true(const ir::ExprPtr& e) {
  return e && e->kind == ExprKind::Const && e->type.is_bool() && e->bits == 1;
}

// Whether some node of `root` satisfies `pred`: each distinct node once (an
// expression is a DAG that may stand for an exponential tree), without
// recursion (expressions may be tall).
template <class Pred>
bool any_node(const ir::Expr& root, Pred&& pred) {
  std::unordered_set<const ir::Expr*> seen;
  std::vector<const ir::Expr*> stack{&root};
  while (!stack.empty()) {
    const ir::Expr* e = stack.back();
    stack.pop_back();
    if (pred(*e)) return true;
    for (const ir::ExprPtr& a : e->args) {
      if (a && seen.insert(a.get()).second) stack.push_back(a.get());
    }
  }
  return false;
}

bool has_calls(const ir::Expr& root) {
  return any_node(root, [](const ir::Expr& e) {
    return e.kind == ExprKind::Call || e.kind == ExprKind::Atomic;
  });
}

bool reads(const ir::Expr& root, ir::VarId v) {
  return any_node(root, [&](const ir::Expr& e) { return e.kind == ExprKind::Var && e.var == v; });
}

bool mentions(const Block& block, ir::VarId v);

bool mentions(const Stmt& s, ir::VarId v) {
  if (s.var == v) return true;
  for (const ir::ExprPtr* e : {&s.expr, &s.ptr, &s.index}) {
    if (*e && reads(**e, v)) return true;
  }
  return mentions(s.body, v) || mentions(s.orelse, v) || mentions(s.init, v) || mentions(s.step, v);
}

bool mentions(const Block& block, ir::VarId v) {
  for (const Stmt& s : block) {
    if (mentions(s, v)) return true;
  }
  return false;
}

bool is_jump(StmtKind k) {
  return k == StmtKind::Break || k == StmtKind::Continue || k == StmtKind::Return;
}

// Does control never fall off the end of `block`?
bool ends_in_jump(const Block& block) {
  if (block.empty()) return false;
  const Stmt& last = block.back();
  if (is_jump(last.kind)) return true;
  return last.kind == StmtKind::If && ends_in_jump(last.body) && ends_in_jump(last.orelse);
}

// Does `block` contain a continue of the loop it is the body of? `levels`:
// the loops between the block and that loop, counting it (1 in its body).
bool has_own_continue(const Block& block, std::uint32_t levels = 1) {
  for (const Stmt& s : block) {
    if (s.kind == StmtKind::Continue && s.levels == levels) return true;
    if (s.kind == StmtKind::If &&
        (has_own_continue(s.body, levels) || has_own_continue(s.orelse, levels))) {
      return true;
    }
    if ((s.kind == StmtKind::While || s.kind == StmtKind::For) &&
        has_own_continue(s.body, levels + 1)) {
      return true;
    }
  }
  return false;
}

// Removes a trailing `kind` statement reached by falling through to the end
// (directly, or at the end of the arms of a trailing if).
bool drop_trailing(Block& block, StmtKind kind) {
  if (block.empty()) return false;
  Stmt& last = block.back();
  if (last.kind == kind && last.levels == 1 && !(kind == StmtKind::Return && last.expr)) {
    block.pop_back();
    return true;
  }
  if (last.kind == StmtKind::If) {
    const bool a = drop_trailing(last.body, kind);
    const bool b = drop_trailing(last.orelse, kind);
    return a || b;
  }
  return false;
}

bool is_break_if(const Stmt& s) {
  return s.kind == StmtKind::If && s.orelse.empty() && s.body.size() == 1 &&
         s.body[0].kind == StmtKind::Break && s.body[0].levels == 1;
}

class Tidier {
 public:
  void block(Block& b) {
    for (Stmt& s : b) nested(s);
    bool changed = true;
    while (changed) {
      changed = false;
      for (std::size_t i = 0; i < b.size(); ++i) {
        if (rewrite(b, i)) changed = true;
      }
    }
    for (std::size_t i = 0; i < b.size(); ++i) to_for(b, i);
  }

 private:
  void nested(Stmt& s) {
    switch (s.kind) {
      case StmtKind::If:
        block(s.body);
        block(s.orelse);
        break;
      case StmtKind::While:
      case StmtKind::For:
        loop_body(s.body);
        break;
      default:
        break;
    }
  }

  void loop_body(Block& body) {
    block(body);
    if (drop_trailing(body, StmtKind::Continue)) block(body);
  }

  // One local rewrite at b[i]; true if the block changed.
  bool rewrite(Block& b, std::size_t i) {
    Stmt& s = b[i];
    if (s.kind == StmtKind::If) {
      if (s.body.empty() && s.orelse.empty() && !has_calls(*s.expr)) {
        b.erase(b.begin() + static_cast<std::ptrdiff_t>(i));
        return true;
      }
      if (s.body.empty() && !s.orelse.empty()) {
        s.expr = negate(s.expr);
        std::swap(s.body, s.orelse);
        return true;
      }
      if (!s.orelse.empty() && ends_in_jump(s.body)) {
        Block rest = std::move(s.orelse);
        s.orelse.clear();
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                 std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
        return true;
      }
      if (s.orelse.empty() && s.body.size() == 1 && rotate(s)) return true;
    }
    if (s.kind == StmtKind::While && is_true(s.expr) && !s.body.empty() &&
        is_break_if(s.body.front())) {
      s.expr = negate(s.body.front().expr);
      s.body.erase(s.body.begin());
      loop_body(s.body);
      return true;
    }
    return false;
  }

  // if (c) { while (true) { B; if (!c) break; } }  ->  while (c) { B }
  bool rotate(Stmt& s) {
    Stmt& loop = s.body[0];
    if (loop.kind != StmtKind::While || !is_true(loop.expr) || loop.body.empty() ||
        !is_break_if(loop.body.back()) || has_own_continue(loop.body)) {
      return false;
    }
    if (!ir::same_expr(negate(loop.body.back().expr), s.expr)) return false;
    Block body = std::move(loop.body);
    body.pop_back();
    Stmt rotated = Stmt::while_(s.expr, std::move(body));
    s = std::move(rotated);
    return true;
  }

  // init; while (c) { B; step }  ->  for (init; c; step) { B }
  void to_for(Block& b, std::size_t i) {
    if (i == 0 || b[i].kind != StmtKind::While || b[i].body.size() < 1) return;
    Stmt& loop = b[i];
    const Stmt& init = b[i - 1];
    const Stmt& step = loop.body.back();
    if (init.kind != StmtKind::Decl && init.kind != StmtKind::Assign) return;
    if (!init.expr) return;
    const ir::VarId v = init.var;
    // `v = v + 1; while (...)` is a step before the loop, not its start.
    if (reads(*init.expr, v)) return;
    if (step.kind != StmtKind::Assign || step.var != v || !reads(*step.expr, v)) return;
    // A for's step is one statement: no room for the lets its shared nodes need.
    if (shares_nodes(*step.expr)) return;
    if (!reads(*loop.expr, v) || has_own_continue(loop.body)) return;
    if (init.kind == StmtKind::Decl) {
      for (std::size_t k = i + 1; k < b.size(); ++k) {
        if (mentions(b[k], v)) return;
      }
    }
    Block body = std::move(loop.body);
    Block step_block{std::move(body.back())};
    body.pop_back();
    Block init_block{std::move(b[i - 1])};
    Stmt f = Stmt::for_(std::move(init_block), loop.expr, std::move(step_block), std::move(body));
    b[i] = std::move(f);
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(i) - 1);
  }
};

}  // namespace

ir::ExprPtr negate(const ir::ExprPtr& e) {
  if (e->kind == ExprKind::Unary && e->unary_op() == ir::UnaryOp::Not) return e->args[0];
  if (e->kind == ExprKind::Const && e->type.is_bool()) return ir::constant(e->bits == 0);
  if (e->kind == ExprKind::Binary && ir::is_comparison(e->binary_op())) {
    using ir::BinaryOp;
    const bool exact = !e->args[0]->type.is_float();
    BinaryOp flipped = e->binary_op();
    bool ok = true;
    switch (e->binary_op()) {
      case BinaryOp::Eq:
        flipped = BinaryOp::Ne;
        break;
      case BinaryOp::Ne:
        flipped = BinaryOp::Eq;
        break;
      case BinaryOp::Lt:
        flipped = BinaryOp::Ge;
        ok = exact;
        break;
      case BinaryOp::Le:
        flipped = BinaryOp::Gt;
        ok = exact;
        break;
      case BinaryOp::Gt:
        flipped = BinaryOp::Le;
        ok = exact;
        break;
      case BinaryOp::Ge:
        flipped = BinaryOp::Lt;
        ok = exact;
        break;
      default:
        ok = false;
    }
    if (ok) return ir::binary(flipped, e->args[0], e->args[1]);
  }
  return ir::unary(ir::UnaryOp::Not, e);
}

void tidy(ir::Function& fn) {
  Tidier().block(fn.body);
  if (fn.ret.is_void()) {
    while (drop_trailing(fn.body, StmtKind::Return)) Tidier().block(fn.body);
  }
}

}  // namespace augur::stage
