// Constructing IR: expression factories that compute result types and reject
// ill-typed operands (jit::verify_error), and a FunctionBuilder for statements.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/ir/ir.h"

namespace augur::ir {

// ---------------------------------------------------------------- expressions

ExprPtr constant(Type type, std::uint64_t bits);  // bits are canonicalized
template <class T>
ExprPtr constant(T value) {
  return constant(type_of<T>(), Value::of(value).bits);
}
ExprPtr null_pointer(Type pointer_type);

ExprPtr read(VarId var, Type type);
ExprPtr unary(UnaryOp op, ExprPtr operand);
ExprPtr binary(BinaryOp op, ExprPtr lhs, ExprPtr rhs);
ExprPtr select(ExprPtr cond, ExprPtr then_value, ExprPtr else_value);
ExprPtr cast(Type to, ExprPtr operand);
ExprPtr load(ExprPtr pointer, ExprPtr index);
ExprPtr call(ExternRef callee, std::vector<ExprPtr> args);
ExprPtr math(MathOp op, std::vector<ExprPtr> args);
ExprPtr gpu_index(GpuIndex which, unsigned axis);
ExprPtr atomic(AtomicOp op, std::vector<ExprPtr> args);
// A read-only table of `element`s (their bytes in the host's layout): a
// pointer to its first element. At least one element, at most kMaxTableBytes.
ExprPtr table(Type element, std::vector<std::byte> bytes);
// The table `data` (checked as above), shared rather than copied.
ExprPtr table(TableRef data);
inline constexpr std::size_t kMaxTableBytes = std::size_t{16} << 20;

// The checked nodes the functions above share, by value: for a caller that
// allocates its nodes itself (the first stage's expression pool).
Expr constant_node(Type type, std::uint64_t bits);
Expr read_node(VarId var, Type type);
Expr unary_node(UnaryOp op, ExprPtr operand);
Expr binary_node(BinaryOp op, ExprPtr lhs, ExprPtr rhs);
Expr select_node(ExprPtr cond, ExprPtr then_value, ExprPtr else_value);
Expr cast_node(Type to, ExprPtr operand);
Expr load_node(ExprPtr pointer, ExprPtr index);
Expr call_node(ExternRef callee, std::vector<ExprPtr> args);
Expr math_node(MathOp op, std::vector<ExprPtr> args);
Expr gpu_index_node(GpuIndex which, unsigned axis);

// The type `binary(op, lhs, rhs)` would have, or a message saying why it is ill-typed.
struct TypeCheck {
  Type type;
  std::string error;  // empty when well-typed
};
TypeCheck check_unary(UnaryOp op, Type operand);
TypeCheck check_binary(BinaryOp op, Type lhs, Type rhs);
TypeCheck check_cast(Type from, Type to);
TypeCheck check_math(MathOp op, std::span<const Type> args);
TypeCheck check_atomic(AtomicOp op, std::span<const Type> args);
TypeCheck check_select(Type cond, Type then_type, Type else_type);
TypeCheck check_load(Type pointer, Type index);  // also the target of a store
TypeCheck check_call(const ExternFn& callee, std::span<const Type> args);

// ---------------------------------------------------------------- functions

// Builds one function. Statements go to the innermost open block; the lambda
// forms of if_/while_/for_ open nested blocks.
//
//   FunctionBuilder b("twice", Type::i32());
//   VarId x = b.param("x", Type::i32());
//   b.return_(binary(BinaryOp::Add, b.read(x), b.read(x)));
//   Function f = std::move(b).finish();
class FunctionBuilder {
 public:
  FunctionBuilder(std::string name, Type ret, bool kernel = false);

  VarId param(std::string name, Type type);
  // A new local variable; the name is made unique if taken ("x", "x.1", ...).
  // It must still be declared (declare() does both).
  VarId new_local(std::string name, Type type);
  VarId declare(std::string name, Type type, ExprPtr init = nullptr);
  VarId shared_array(std::string name, Scalar element, std::uint32_t count);

  ExprPtr read(VarId var) const;
  const Function& function() const { return fn_; }

  void emit(Stmt stmt);
  void assign(VarId var, ExprPtr value);
  void store(ExprPtr pointer, ExprPtr index, ExprPtr value);
  void eval(ExprPtr expr);
  void if_(ExprPtr cond, const std::function<void()>& then_body,
           const std::function<void()>& else_body = {});
  void while_(ExprPtr cond, const std::function<void()>& body);
  // init and step each emit at most one statement.
  void for_(const std::function<void()>& init, ExprPtr cond, const std::function<void()>& step,
            const std::function<void()>& body);
  void break_(std::uint32_t levels = 1);  // levels: loops it leaves (docs/ir.md)
  void continue_(std::uint32_t levels = 1);
  void return_(ExprPtr value = nullptr);
  void barrier();

  // Captures the statements `body` emits into a block instead of the current one.
  Block capture(const std::function<void()>& body);

  Function finish() &&;

 private:
  Block& current();

  Function fn_;
  std::vector<Block> open_;  // open_.back() receives statements; open_[0] is the body
};

}  // namespace augur::ir
