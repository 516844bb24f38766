#include "runtime/ir/builder.h"

#include "jit/error.h"

namespace augur::ir {

namespace {

TypeCheck ok(Type t) {
  return {t, {}};
}
TypeCheck bad(std::string message) {
  return {Type(), std::move(message)};
}

std::string mismatch(std::string_view op, Type a, Type b) {
  return "operator '" + std::string(op) + "' needs operands of one type, got " + a.name() +
         " and " + b.name();
}

Expr checked(const TypeCheck& check, Expr e) {
  if (!check.error.empty()) throw jit::verify_error(check.error);
  e.type = check.type;
  return e;
}

ExprPtr shared(Expr e) {
  return std::make_shared<const Expr>(std::move(e));
}

void require_operands(const std::vector<ExprPtr>& args, std::string_view what) {
  for (const ExprPtr& a : args) {
    if (!a) throw jit::verify_error(std::string(what) + ": missing operand");
  }
}

std::vector<Type> types_of(const std::vector<ExprPtr>& args) {
  std::vector<Type> types;
  types.reserve(args.size());
  for (const ExprPtr& a : args) types.push_back(a->type);
  return types;
}

}  // namespace

TypeCheck check_unary(UnaryOp op, Type t) {
  switch (op) {
    case UnaryOp::Neg:
      if (t.is_arithmetic()) return ok(t);
      return bad("operator '-' needs an integer or float operand, got " + t.name());
    case UnaryOp::BitNot:
      if (t.is_integer()) return ok(t);
      return bad("operator '~' needs an integer operand, got " + t.name());
    case UnaryOp::Not:
      if (t.is_bool()) return ok(t);
      return bad("operator '!' needs a bool operand, got " + t.name());
  }
  return bad("unknown unary operator");
}

TypeCheck check_binary(BinaryOp op, Type a, Type b) {
  const std::string_view name = name_of(op);
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
      if (a.is_pointer() && b.is_integer()) return ok(a);
      [[fallthrough]];
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem:
      if (!a.is_arithmetic()) {
        return bad("operator '" + std::string(name) + "' needs integer or float operands, got " +
                   a.name());
      }
      if (a != b) return bad(mismatch(name, a, b));
      return ok(a);
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor:
      if (!a.is_integer() && !a.is_bool()) {
        return bad("operator '" + std::string(name) + "' needs integer or bool operands, got " +
                   a.name());
      }
      if (a != b) return bad(mismatch(name, a, b));
      return ok(a);
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      if (!a.is_integer()) {
        return bad("operator '" + std::string(name) + "' needs integer operands, got " + a.name());
      }
      if (a != b) return bad(mismatch(name, a, b));
      return ok(a);
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      if (!a.is_value()) return bad("operator '" + std::string(name) + "' on void");
      if (a != b) return bad(mismatch(name, a, b));
      return ok(Type::bool_());
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      if (!a.is_arithmetic() && !a.is_pointer()) {
        return bad("operator '" + std::string(name) +
                   "' needs integer, float or pointer operands, got " + a.name());
      }
      if (a != b) return bad(mismatch(name, a, b));
      return ok(Type::bool_());
    case BinaryOp::And:
    case BinaryOp::Or:
      if (!a.is_bool() || !b.is_bool()) {
        return bad("operator '" + std::string(name) + "' needs bool operands, got " + a.name() +
                   " and " + b.name());
      }
      return ok(Type::bool_());
  }
  return bad("unknown binary operator");
}

TypeCheck check_cast(Type from, Type to) {
  const bool from_num = from.is_arithmetic() || from.is_bool();
  const bool to_num = to.is_arithmetic() || to.is_bool();
  if (from_num && to_num) return ok(to);
  if (from.is_pointer() && to.is_pointer()) return ok(to);
  const auto is_word = [](Type t) { return t == Type::i64() || t == Type::u64(); };
  if ((from.is_pointer() && is_word(to)) || (is_word(from) && to.is_pointer())) return ok(to);
  return bad("cannot cast " + from.name() + " to " + to.name());
}

TypeCheck check_math(MathOp op, std::span<const Type> args) {
  const std::string name(name_of(op));
  if (args.size() != arity(op)) {
    return bad(name + " takes " + std::to_string(arity(op)) + " operands, got " +
               std::to_string(args.size()));
  }
  for (Type t : args) {
    if (t != args[0])
      return bad(name + " needs operands of one type, got " + args[0].name() + " and " + t.name());
  }
  const Type t = args[0];
  if (op == MathOp::Min || op == MathOp::Max) {
    if (t.is_arithmetic()) return ok(t);
    return bad(name + " needs integer or float operands, got " + t.name());
  }
  if (t.is_float()) return ok(t);
  return bad(name + " needs float operands, got " + t.name());
}

TypeCheck check_atomic(AtomicOp op, std::span<const Type> args) {
  const std::string name(name_of(op));
  if (args.size() != arity(op)) {
    return bad(name + " takes " + std::to_string(arity(op)) + " operands, got " +
               std::to_string(args.size()));
  }
  if (!args[0].is_pointer()) return bad(name + " needs a pointer, got " + args[0].name());
  const Type elem = args[0].pointee();
  if (elem.bits() != 32 && elem.bits() != 64) {
    return bad(name + " works on 32- and 64-bit elements, got " + elem.name());
  }
  const bool integer_only = op == AtomicOp::Min || op == AtomicOp::Max || op == AtomicOp::Cas;
  if (integer_only ? !elem.is_integer() : !elem.is_arithmetic()) {
    return bad(name + " does not support " + elem.name() + " elements");
  }
  if (!args[1].is_integer()) return bad(name + " needs an integer index, got " + args[1].name());
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (args[i] != elem)
      return bad(name + " needs " + elem.name() + " values, got " + args[i].name());
  }
  return ok(elem);
}

TypeCheck check_select(Type cond, Type then_type, Type else_type) {
  if (!cond.is_bool()) return bad("select needs a bool condition, got " + cond.name());
  if (then_type != else_type) return bad(mismatch("?:", then_type, else_type));
  if (!then_type.is_value()) return bad("select of void values");
  return ok(then_type);
}

TypeCheck check_load(Type pointer, Type index) {
  if (!pointer.is_pointer()) return bad("indexing needs a pointer, got " + pointer.name());
  if (!index.is_integer()) return bad("index must be an integer, got " + index.name());
  return ok(pointer.pointee());
}

TypeCheck check_call(const ExternFn& callee, std::span<const Type> args) {
  if (args.size() != callee.params.size()) {
    return bad("call to '" + callee.name + "' passes " + std::to_string(args.size()) +
               " arguments, it takes " + std::to_string(callee.params.size()));
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != callee.params[i]) {
      return bad("argument " + std::to_string(i + 1) + " of '" + callee.name + "' is " +
                 args[i].name() + ", expected " + callee.params[i].name());
    }
  }
  return ok(callee.ret);
}

Expr constant_node(Type type, std::uint64_t bits) {
  if (!type.is_value()) throw jit::verify_error("a constant cannot have type void");
  if (type.is_pointer() && bits != 0) {
    throw jit::verify_error("pointer constants must be null");
  }
  Expr e;
  e.kind = ExprKind::Const;
  e.type = type;
  e.bits = canonical_bits(type, bits);
  return e;
}

ExprPtr constant(Type type, std::uint64_t bits) {
  return shared(constant_node(type, bits));
}

ExprPtr table(Type element, std::vector<std::byte> bytes) {
  if (element.is_bool()) {
    for (std::byte& b : bytes) b = (b != std::byte{0}) ? std::byte{1} : std::byte{0};
  }
  return table(std::make_shared<const TableData>(TableData{element, std::move(bytes)}));
}

ExprPtr table(TableRef data) {
  const Type element = data->element;
  const std::vector<std::byte>& bytes = data->bytes;
  if (!element.is_value() || element.is_pointer()) {
    throw jit::verify_error("a table's elements must be scalars, not " + element.name());
  }
  if (bytes.empty() || bytes.size() % element.size() != 0) {
    throw jit::verify_error("a table of " + element.name() + " needs a whole, nonzero number of " +
                            "elements; got " + std::to_string(bytes.size()) + " bytes");
  }
  if (bytes.size() > kMaxTableBytes) {
    throw jit::verify_error("a table of " + std::to_string(bytes.size()) + " bytes; the limit is " +
                            std::to_string(kMaxTableBytes));
  }
  Expr e;
  e.kind = ExprKind::Table;
  e.type = Type::pointer_to(element.scalar());
  e.table = std::move(data);
  return std::make_shared<const Expr>(std::move(e));
}

ExprPtr null_pointer(Type pointer_type) {
  if (!pointer_type.is_pointer()) {
    throw jit::verify_error("null needs a pointer type, got " + pointer_type.name());
  }
  return constant(pointer_type, 0);
}

Expr read_node(VarId var, Type type) {
  if (!var.valid()) throw jit::verify_error("read of an invalid variable");
  Expr e;
  e.kind = ExprKind::Var;
  e.var = var;
  e.type = type;
  return e;
}

ExprPtr read(VarId var, Type type) {
  return shared(read_node(var, type));
}

Expr unary_node(UnaryOp op, ExprPtr operand) {
  require_operands({operand}, name_of(op));
  Expr e;
  e.kind = ExprKind::Unary;
  e.op = static_cast<std::uint8_t>(op);
  TypeCheck check = check_unary(op, operand->type);
  e.args = {std::move(operand)};
  return checked(check, std::move(e));
}

ExprPtr unary(UnaryOp op, ExprPtr operand) {
  return shared(unary_node(op, std::move(operand)));
}

Expr binary_node(BinaryOp op, ExprPtr lhs, ExprPtr rhs) {
  require_operands({lhs, rhs}, name_of(op));
  Expr e;
  e.kind = ExprKind::Binary;
  e.op = static_cast<std::uint8_t>(op);
  TypeCheck check = check_binary(op, lhs->type, rhs->type);
  e.args = {std::move(lhs), std::move(rhs)};
  return checked(check, std::move(e));
}

ExprPtr binary(BinaryOp op, ExprPtr lhs, ExprPtr rhs) {
  return shared(binary_node(op, std::move(lhs), std::move(rhs)));
}

Expr select_node(ExprPtr cond, ExprPtr then_value, ExprPtr else_value) {
  require_operands({cond, then_value, else_value}, "select");
  TypeCheck check = check_select(cond->type, then_value->type, else_value->type);
  Expr e;
  e.kind = ExprKind::Select;
  e.args = {std::move(cond), std::move(then_value), std::move(else_value)};
  return checked(check, std::move(e));
}

ExprPtr select(ExprPtr cond, ExprPtr then_value, ExprPtr else_value) {
  return shared(select_node(std::move(cond), std::move(then_value), std::move(else_value)));
}

Expr cast_node(Type to, ExprPtr operand) {
  require_operands({operand}, "cast");
  Expr e;
  e.kind = ExprKind::Cast;
  TypeCheck check = check_cast(operand->type, to);
  e.args = {std::move(operand)};
  return checked(check, std::move(e));
}

ExprPtr cast(Type to, ExprPtr operand) {
  return shared(cast_node(to, std::move(operand)));
}

Expr load_node(ExprPtr pointer, ExprPtr index) {
  require_operands({pointer, index}, "load");
  TypeCheck check = check_load(pointer->type, index->type);
  Expr e;
  e.kind = ExprKind::Load;
  e.args = {std::move(pointer), std::move(index)};
  return checked(check, std::move(e));
}

ExprPtr load(ExprPtr pointer, ExprPtr index) {
  return shared(load_node(std::move(pointer), std::move(index)));
}

Expr call_node(ExternRef callee, std::vector<ExprPtr> args) {
  if (!callee) throw jit::verify_error("call without a callee");
  require_operands(args, callee->name);
  TypeCheck check = check_call(*callee, types_of(args));
  Expr e;
  e.kind = ExprKind::Call;
  e.callee = std::move(callee);
  e.args = std::move(args);
  return checked(check, std::move(e));
}

ExprPtr call(ExternRef callee, std::vector<ExprPtr> args) {
  return shared(call_node(std::move(callee), std::move(args)));
}

Expr math_node(MathOp op, std::vector<ExprPtr> args) {
  require_operands(args, name_of(op));
  Expr e;
  e.kind = ExprKind::Math;
  e.op = static_cast<std::uint8_t>(op);
  std::vector<Type> types = types_of(args);
  TypeCheck check = check_math(op, types);
  e.args = std::move(args);
  return checked(check, std::move(e));
}

ExprPtr math(MathOp op, std::vector<ExprPtr> args) {
  return shared(math_node(op, std::move(args)));
}

Expr gpu_index_node(GpuIndex which, unsigned axis) {
  if (axis > 2) throw jit::verify_error("GPU index axis must be 0, 1 or 2");
  Expr e;
  e.kind = ExprKind::GpuIndex;
  e.op = static_cast<std::uint8_t>(which);
  e.axis = static_cast<std::uint8_t>(axis);
  e.type = Type::i32();
  return e;
}

ExprPtr gpu_index(GpuIndex which, unsigned axis) {
  return shared(gpu_index_node(which, axis));
}

ExprPtr atomic(AtomicOp op, std::vector<ExprPtr> args) {
  require_operands(args, name_of(op));
  Expr e;
  e.kind = ExprKind::Atomic;
  e.op = static_cast<std::uint8_t>(op);
  std::vector<Type> types = types_of(args);
  TypeCheck check = check_atomic(op, types);
  e.args = std::move(args);
  return shared(checked(check, std::move(e)));
}

// ---------------------------------------------------------------- FunctionBuilder

FunctionBuilder::FunctionBuilder(std::string name, Type ret, bool kernel) {
  fn_.name = std::move(name);
  fn_.ret = ret;
  fn_.kernel = kernel;
  open_.emplace_back();
}

VarId FunctionBuilder::param(std::string name, Type type) {
  if (fn_.vars.size() != fn_.num_params) {
    throw jit::verify_error("parameters must be added before locals",
                            jit::location::in_function(fn_.name));
  }
  if (fn_.find_var(name).valid()) {
    throw jit::verify_error("duplicate parameter '" + name + "'",
                            jit::location::in_function(fn_.name));
  }
  fn_.vars.push_back({std::move(name), type, VarKind::Param, 0});
  return VarId{fn_.num_params++};
}

VarId FunctionBuilder::new_local(std::string name, Type type) {
  std::string unique = name;
  for (int n = 1; fn_.find_var(unique).valid(); ++n) unique = name + "." + std::to_string(n);
  fn_.vars.push_back({std::move(unique), type, VarKind::Local, 0});
  return VarId{static_cast<std::uint32_t>(fn_.vars.size() - 1)};
}

VarId FunctionBuilder::declare(std::string name, Type type, ExprPtr init) {
  VarId v = new_local(std::move(name), type);
  emit(Stmt::decl(v, std::move(init)));
  return v;
}

VarId FunctionBuilder::shared_array(std::string name, Scalar element, std::uint32_t count) {
  VarId v = new_local(std::move(name), Type::pointer_to(element));
  fn_.vars[v.index].kind = VarKind::Shared;
  fn_.vars[v.index].shared_count = count;
  emit(Stmt::decl(v));
  return v;
}

ExprPtr FunctionBuilder::read(VarId var) const {
  return ir::read(var, fn_.var(var).type);
}

Block& FunctionBuilder::current() {
  return open_.back();
}

void FunctionBuilder::emit(Stmt stmt) {
  current().push_back(std::move(stmt));
}

void FunctionBuilder::assign(VarId var, ExprPtr value) {
  emit(Stmt::assign(var, std::move(value)));
}

void FunctionBuilder::store(ExprPtr pointer, ExprPtr index, ExprPtr value) {
  emit(Stmt::store(std::move(pointer), std::move(index), std::move(value)));
}

void FunctionBuilder::eval(ExprPtr expr) {
  emit(Stmt::eval(std::move(expr)));
}

Block FunctionBuilder::capture(const std::function<void()>& body) {
  open_.emplace_back();
  if (body) body();
  Block block = std::move(open_.back());
  open_.pop_back();
  return block;
}

void FunctionBuilder::if_(ExprPtr cond, const std::function<void()>& then_body,
                          const std::function<void()>& else_body) {
  Block then_block = capture(then_body);
  Block else_block = capture(else_body);
  emit(Stmt::if_(std::move(cond), std::move(then_block), std::move(else_block)));
}

void FunctionBuilder::while_(ExprPtr cond, const std::function<void()>& body) {
  Block block = capture(body);
  emit(Stmt::while_(std::move(cond), std::move(block)));
}

void FunctionBuilder::for_(const std::function<void()>& init, ExprPtr cond,
                           const std::function<void()>& step, const std::function<void()>& body) {
  Block init_block = capture(init);
  Block step_block = capture(step);
  Block body_block = capture(body);
  emit(Stmt::for_(std::move(init_block), std::move(cond), std::move(step_block),
                  std::move(body_block)));
}

void FunctionBuilder::break_(std::uint32_t levels) {
  emit(Stmt::break_(levels));
}
void FunctionBuilder::continue_(std::uint32_t levels) {
  emit(Stmt::continue_(levels));
}
void FunctionBuilder::return_(ExprPtr value) {
  emit(Stmt::return_(std::move(value)));
}
void FunctionBuilder::barrier() {
  emit(Stmt::barrier());
}

Function FunctionBuilder::finish() && {
  if (open_.size() != 1)
    throw jit::verify_error("unbalanced blocks", jit::location::in_function(fn_.name));
  fn_.body = std::move(open_.front());
  return std::move(fn_);
}

}  // namespace augur::ir
