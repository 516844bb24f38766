#include <array>
#include <string>
#include <vector>

#include "runtime/ir/verify_function.h"

namespace augur::ir::verifier_detail {

namespace {

std::string signature(const ExternFn& fn) {
  std::string out = "(";
  for (std::size_t i = 0; i < fn.params.size(); ++i) {
    if (i > 0) out += ", ";
    out += fn.params[i].name();
  }
  return out + ") -> " + fn.ret.name() + " " + std::string(name_of(fn.effect));
}

// Number of operands each expression kind has; Call and Math/Atomic vary.
std::size_t fixed_arity(ExprKind kind) {
  switch (kind) {
    case ExprKind::Const:
    case ExprKind::Var:
    case ExprKind::GpuIndex:
    case ExprKind::Table:
      return 0;
    case ExprKind::Unary:
    case ExprKind::Cast:
      return 1;
    case ExprKind::Binary:
    case ExprKind::Load:
      return 2;
    case ExprKind::Select:
      return 3;
    default:
      return ~std::size_t{0};
  }
}

// The largest valid `op` value of each kind that has one.
int max_op(ExprKind kind) {
  switch (kind) {
    case ExprKind::Unary:
      return static_cast<int>(UnaryOp::Not);
    case ExprKind::Binary:
      return static_cast<int>(BinaryOp::Or);
    case ExprKind::Math:
      return static_cast<int>(MathOp::Fma);
    case ExprKind::GpuIndex:
      return static_cast<int>(GpuIndex::GridDim);
    case ExprKind::Atomic:
      return static_cast<int>(AtomicOp::Cas);
    default:
      return 0;
  }
}

std::string expr_name(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Const:
      return "constant";
    case ExprKind::Var:
      return "variable read";
    case ExprKind::Unary:
      return "operator " + quoted(name_of(e.unary_op()));
    case ExprKind::Binary:
      return "operator " + quoted(name_of(e.binary_op()));
    case ExprKind::Select:
      return "select";
    case ExprKind::Cast:
      return "cast";
    case ExprKind::Load:
      return "load";
    case ExprKind::Call:
      return e.callee ? "call to " + quoted(e.callee->name) : "call";
    case ExprKind::Math:
      return std::string(name_of(e.math_op()));
    case ExprKind::GpuIndex:
      return "GPU index";
    case ExprKind::Table:
      return "table";
    case ExprKind::Atomic:
      return std::string(name_of(e.atomic_op()));
  }
  return "expression of unknown kind " + std::to_string(static_cast<int>(e.kind));
}

}  // namespace

bool FunctionVerifier::check_expr(const ExprPtr& root, std::string_view what) {
  if (!root) {
    report("missing " + std::string(what));
    return false;
  }
  // What can be checked before the operands.
  const auto shape_ok = [&](const Expr& e) {
    if (const std::size_t n = fixed_arity(e.kind); n != ~std::size_t{0} && e.args.size() != n) {
      report(expr_name(e) + " has " + std::to_string(e.args.size()) + " operands, not " +
             std::to_string(n));
      return false;
    }
    if (static_cast<int>(e.op) > max_op(e.kind)) {
      report(expr_name(e) + " has an unknown operator " + std::to_string(e.op));
      return false;
    }
    return true;
  };
  // Operands first; a node is typed only when all its operands are well
  // formed.
  if (!shape_ok(*root)) return false;
  std::vector<ExprFrame>& stack = expr_stack_;
  stack.assign(1, ExprFrame{root.get(), 0, true});
  while (true) {
    ExprFrame& top = stack.back();
    if (top.next < top.e->args.size()) {
      const ExprPtr& arg = top.e->args[top.next++];
      if (!arg) {
        report("missing operand of " + expr_name(*top.e));
        top.operands_ok = false;
      } else if (!shape_ok(*arg)) {
        top.operands_ok = false;
      } else {
        stack.push_back({arg.get(), 0, true});
      }
      continue;
    }
    const bool ok = top.operands_ok && check_node(*top.e);
    stack.pop_back();
    if (stack.empty()) return ok;
    stack.back().operands_ok = ok && stack.back().operands_ok;
  }
}

bool FunctionVerifier::check_node(const Expr& e) {
  // Operand types without a heap allocation for the usual one to four operands.
  std::array<Type, 4> few;
  std::vector<Type> many;
  std::span<const Type> types;
  if (e.args.size() <= few.size()) {
    for (std::size_t i = 0; i < e.args.size(); ++i) few[i] = e.args[i]->type;
    types = std::span<const Type>(few.data(), e.args.size());
  } else {
    for (const ExprPtr& arg : e.args) many.push_back(arg->type);
    types = many;
  }
  switch (e.kind) {
    case ExprKind::Const:
      return check_const(e);
    case ExprKind::Var:
      return check_read(e);
    case ExprKind::Unary:
      return typed(e, check_unary(e.unary_op(), types[0]));
    case ExprKind::Binary:
      return typed(e, check_binary(e.binary_op(), types[0], types[1]));
    case ExprKind::Select:
      return typed(e, check_select(types[0], types[1], types[2]));
    case ExprKind::Cast:
      if (!well_formed(e.type)) return typed(e, {Type(), "cast to an invalid type"});
      return typed(e, check_cast(types[0], e.type));
    case ExprKind::Load:
      return typed(e, check_load(types[0], types[1]));
    case ExprKind::Call:
      return check_call_expr(e, types);
    case ExprKind::Math:
      return typed(e, check_math(e.math_op(), types));
    case ExprKind::GpuIndex:
      return check_gpu_index(e);
    case ExprKind::Table:
      return check_table(e);
    case ExprKind::Atomic:
      return typed(e, check_atomic(e.atomic_op(), types));
  }
  report(expr_name(e));
  return false;
}

bool FunctionVerifier::typed(const Expr& e, const TypeCheck& check) {
  if (!check.error.empty()) {
    report(check.error);
    return false;
  }
  if (check.type != e.type) {
    report(expr_name(e) + " is marked " + e.type.name() + " but its operands make it " +
           check.type.name());
    return false;
  }
  return true;
}

bool FunctionVerifier::check_const(const Expr& e) {
  if (!e.type.is_value() || !well_formed(e.type)) {
    report("constant of invalid type " + e.type.name());
    return false;
  }
  if (e.type.is_pointer() && e.bits != 0) {
    report("the only pointer constant is null");
    return false;
  }
  if (canonical_bits(e.type, e.bits) != e.bits) {
    report("constant of type " + e.type.name() + " has bits outside its width");
    return false;
  }
  return true;
}

bool FunctionVerifier::check_read(const Expr& e) {
  if (!visible(e.var, "used")) return false;
  const Variable& v = fn_.var(e.var);
  if (e.type != v.type) {
    report("read of variable " + quoted(v.name) + " is marked " + e.type.name() +
           " but the variable is " + v.type.name());
    return false;
  }
  return true;
}

bool FunctionVerifier::check_call_expr(const Expr& e, std::span<const Type> types) {
  if (!e.callee) {
    report("call without a callee");
    return false;
  }
  const ExternFn* declared = find_extern(module_, e.callee->name);
  if (!declared) {
    report("call to " + quoted(e.callee->name) + ", which the module does not declare");
    return false;
  }
  if (*declared != *e.callee) {
    report("call to " + quoted(e.callee->name) + " as " + signature(*e.callee) +
           " does not match its declaration " + signature(*declared));
    return false;
  }
  return typed(e, check_call(*e.callee, types));
}

bool FunctionVerifier::check_table(const Expr& e) {
  if (!e.table) {
    report("a table without its data");
    return false;
  }
  const TableData& t = *e.table;
  if (!t.element.is_value() || t.element.is_pointer() || t.bytes.empty() ||
      t.bytes.size() % t.element.size() != 0) {
    report("a table of " + std::to_string(t.bytes.size()) + " bytes is not a whole, nonzero " +
           "number of " + t.element.name());
    return false;
  }
  return typed(e, {Type::pointer_to(t.element.scalar()), {}});
}

bool FunctionVerifier::check_gpu_index(const Expr& e) {
  if (e.axis > 2) {
    report("GPU index axis must be 0, 1 or 2, not " + std::to_string(e.axis));
    return false;
  }
  if (!fn_.kernel) {
    report("GPU index " + std::string(name_of(e.gpu_index())) + "." + "xyz"[e.axis] +
           " used outside a kernel");
  }
  return typed(e, {Type::i32(), {}});
}

}  // namespace augur::ir::verifier_detail
