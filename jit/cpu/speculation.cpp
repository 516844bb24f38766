#include "jit/cpu/speculation.h"

#include <algorithm>
#include <span>

#include "runtime/ir/visit.h"

namespace augur::cpu {

namespace {

// The node itself, its operands aside.
bool speculable_node(const ir::Expr& expr) {
  switch (expr.kind) {
    case ir::ExprKind::Load:
    case ir::ExprKind::Call:
    case ir::ExprKind::Atomic:
      return false;
    case ir::ExprKind::Binary: {
      const ir::BinaryOp op = expr.binary_op();
      const bool divides = op == ir::BinaryOp::Div || op == ir::BinaryOp::Rem;
      return !divides || expr.type.is_float();
    }
    default:
      return true;
  }
}

}  // namespace

bool Speculation::speculable(const ir::ExprPtr& expr) {
  // 0 or 1: the folder keeps its results in a vector, and vector<bool> has
  // no span.
  const auto speculable = [](const ir::ExprPtr& e, std::span<unsigned char> args) -> unsigned char {
    const bool all = std::find(args.begin(), args.end(), 0) == args.end();
    return all && speculable_node(*e) ? 1 : 0;
  };
  return folder_.fold(expr, speculable) != 0;
}

std::size_t Speculation::eager_operands(const ir::Expr& expr) {
  switch (expr.kind) {
    case ir::ExprKind::Binary:
      if (expr.binary_op() == ir::BinaryOp::And || expr.binary_op() == ir::BinaryOp::Or)
        return speculable(expr.args.at(1)) ? 2 : 1;
      break;
    case ir::ExprKind::Select:
      return speculable(expr.args.at(1)) && speculable(expr.args.at(2)) ? 3 : 1;
    default:
      break;
  }
  return expr.args.size();
}

}  // namespace augur::cpu
