#include "runtime/ir/flow.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace augur::ir {

namespace {

struct Flow {
  bool falls_through = true;
  // The reachable breaks that leave loops around the statement, by how many
  // loops each leaves counted from the innermost enclosing one (1: that loop).
  std::vector<std::uint32_t> breaks;

  void add_breaks(const std::vector<std::uint32_t>& more) {
    for (std::uint32_t levels : more) {
      if (std::find(breaks.begin(), breaks.end(), levels) == breaks.end()) breaks.push_back(levels);
    }
  }
};

Flow flow_of(const Block& block);

Flow flow_of(const Stmt& stmt) {
  switch (stmt.kind) {
    case StmtKind::Break:
      return {false, {stmt.levels}};
    case StmtKind::Continue:
    case StmtKind::Return:
      return {false, {}};
    case StmtKind::If: {
      Flow flow = flow_of(stmt.body);
      const Flow else_flow = flow_of(stmt.orelse);
      flow.falls_through = flow.falls_through || else_flow.falls_through;
      flow.add_breaks(else_flow.breaks);
      return flow;
    }
    case StmtKind::While:
    case StmtKind::For: {
      // A break of one level leaves this loop; the others leave one loop fewer
      // once outside it.
      const Flow body = flow_of(stmt.body);
      Flow flow{!is_constant_true(stmt.expr), {}};
      for (std::uint32_t levels : body.breaks) {
        if (levels == 1) {
          flow.falls_through = true;
        } else {
          flow.breaks.push_back(levels - 1);
        }
      }
      return flow;
    }
    default:
      return {true, {}};
  }
}

Flow flow_of(const Block& block) {
  Flow flow;
  for (const Stmt& stmt : block) {
    const Flow s = flow_of(stmt);
    flow.add_breaks(s.breaks);
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
