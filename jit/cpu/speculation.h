// Which operands of an expression code generation evaluates before the
// expression itself. `&&`, `||` and `?:` evaluate only what they need, with
// branches, unless the operand they may skip can be evaluated for nothing (no
// loads, calls, atomics or integer division: nothing that can trap or has an
// effect), where a select does.
#pragma once

#include <cstddef>

#include "runtime/ir/ir.h"
#include "runtime/ir/visit.h"

namespace augur::cpu {

// Decided once per expression node: a chain of `?:` asks about each
// operand at every level, which would walk the chain's tail again each time.
class Speculation {
 public:
  // Whether `expr` can be evaluated for nothing, operands and all.
  bool speculable(const ir::ExprPtr& expr);
  // How many of `expr`'s operands, from the first, are evaluated before it;
  // the others only when needed.
  std::size_t eager_operands(const ir::Expr& expr);

 private:
  // Every node: later questions may be about any subexpression of an
  // earlier one.
  ir::ExprFolder<unsigned char> folder_{ir::ExprFolder<unsigned char>::Remember::every_node};
};

}  // namespace augur::cpu
