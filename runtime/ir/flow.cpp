#include "runtime/ir/flow.h"

namespace augur::ir {

namespace {

struct Flow {
  bool falls_through = true;
  bool breaks = false;  // a reachable break leaves the innermost enclosing loop
};

Flow flow_of(const Block& block);

Flow flow_of(const Stmt& stmt) {
  switch (stmt.kind) {
    case StmtKind::Break:
      return {false, true};
    case StmtKind::Continue:
    case StmtKind::Return:
      return {false, false};
    case StmtKind::If: {
      const Flow then_flow = flow_of(stmt.body);
      const Flow else_flow = flow_of(stmt.orelse);
      return {then_flow.falls_through || else_flow.falls_through,
              then_flow.breaks || else_flow.breaks};
    }
    case StmtKind::While:
    case StmtKind::For:
      // Breaks inside the body leave this loop, not the enclosing one.
      return {!is_constant_true(stmt.expr) || flow_of(stmt.body).breaks, false};
    default:
      return {true, false};
  }
}

Flow flow_of(const Block& block) {
  Flow flow;
  for (const Stmt& stmt : block) {
    const Flow s = flow_of(stmt);
    flow.breaks = flow.breaks || s.breaks;
    if (!s.falls_through) {
      flow.falls_through = false;
      break;  // the rest of the block is unreachable
    }
  }
  return flow;
}

}  // namespace

bool is_constant_true(const ExprPtr& cond) {
  return cond && cond->kind == ExprKind::Const && cond->type.is_bool() && cond->bits == 1;
}

bool can_fall_through(const Block& block) {
  return flow_of(block).falls_through;
}

}  // namespace augur::ir
