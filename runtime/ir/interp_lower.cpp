#include "runtime/ir/interp_lower.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/visit.h"

namespace augur::ir::interp {

namespace {

constexpr std::uint32_t kUnbound = ~std::uint32_t{0};
constexpr std::size_t kSharedAlignment = 16;

// A jump target; jumps emitted before it is bound wait in `uses`.
struct Label {
  std::uint32_t target = kUnbound;
  std::vector<std::uint32_t> uses;
};

struct Loop {
  Label* exit;
  Label* next;  // where continue goes
};

// An index operand, and whether it is an i32 (sign-extended by the memory
// operation) or already 64 bits wide.
struct Index {
  std::uint32_t slot = 0;
  bool is_i32 = false;
};

unsigned width_offset(unsigned bits) {
  return bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
}

unsigned float_offset(Type t) {
  return t.scalar() == Scalar::F32 ? 0 : 1;
}

// Offset in the families declared in integer-scalar order; a bool converts
// like a u8 holding 0 or 1.
unsigned int_offset(Type t) {
  const Scalar s = t.is_bool() ? Scalar::U8 : t.scalar();
  return static_cast<unsigned>(s) - static_cast<unsigned>(Scalar::I8);
}

// Casts that leave canonical bits unchanged.
bool is_move_cast(Type from, Type to) {
  if (from == to) return true;
  if (from.is_pointer() || to.is_pointer()) return true;
  if (from.is_bool() && to.is_integer()) return true;
  if (from.is_integer() && to.is_integer()) {
    return from.bits() == to.bits() || (from.is_unsigned() && from.bits() < to.bits());
  }
  return false;
}

// A table's value: the address of its first element, which the program's
// `tables` keep alive.
std::uint64_t table_address(const Expr& e) {
  return reinterpret_cast<std::uintptr_t>(e.table->bytes.data());
}

void collect_constants(const Block& block, std::vector<std::uint64_t>& out,
                       std::vector<TableRef>& tables) {
  std::unordered_set<const TableData*> seen;  // a table used many times is one buffer
  for_each_stmt(block, [&](const Stmt& s) {
    for_each_expr(s, [&](const Expr& e) {
      if (e.kind == ExprKind::Const) out.push_back(e.bits);
      if (e.kind == ExprKind::Table) {
        out.push_back(table_address(e));
        if (seen.insert(e.table.get()).second) tables.push_back(e.table);
      }
    });
  });
}

class Lowerer {
 public:
  Lowerer(const Function& fn, const InterpOptions& options) : fn_(fn), options_(options) {}

  Program run() && {
    prog_.name = fn_.name;
    prog_.kernel = fn_.kernel;
    for (const Variable& p : fn_.params()) prog_.param_types.push_back(p.type);
    prog_.return_type = fn_.ret;
    prog_.bounds_check = options_.bounds_check;
    prog_.buffers = options_.buffers;
    prog_.step_limit = options_.step_limit;
    prog_.paths.emplace_back();  // path 0: the function as a whole

    lay_out_frame();
    lower_block(fn_.body, "body");
    if (fn_.ret.is_void() || fn_.kernel) {
      emit(Op::RetVoid);
    } else {
      emit(Op::TrapNoReturn);
    }
    prog_.frame_template.resize(max_slots_);
    for (const auto& [bits, slot] : constants_) prog_.frame_template[slot].bits = bits;
    return std::move(prog_);
  }

 private:
  // ------------------------------------------------------------ frame

  void lay_out_frame() {
    std::uint32_t next = static_cast<std::uint32_t>(fn_.vars.size());
    prog_.gpu_index_base = next;
    if (fn_.kernel) next += kGpuIndexSlots;

    for (std::size_t v = 0; v < fn_.vars.size(); ++v) {
      const Variable& var = fn_.vars[v];
      if (var.kind != VarKind::Shared) continue;
      if (!fn_.kernel) fail("shared array '" + var.name + "' outside a kernel");
      if (!var.type.is_pointer()) fail("shared array '" + var.name + "' needs a pointer type");
      SharedArray array;
      array.slot = static_cast<std::uint32_t>(v);
      array.element_size = static_cast<std::uint32_t>(var.type.pointee().size());
      array.count = var.shared_count;
      array.offset = prog_.shared_bytes;
      array.name = var.name;
      const std::size_t bytes = std::size_t{array.element_size} * array.count;
      prog_.shared_bytes += (bytes + kSharedAlignment - 1) / kSharedAlignment * kSharedAlignment;
      shared_index_.emplace(array.slot, static_cast<std::uint32_t>(prog_.shared.size()));
      prog_.shared.push_back(std::move(array));
    }

    std::vector<std::uint64_t> bits = {0, 1};  // zero for declarations, false/true
    collect_constants(fn_.body, bits, prog_.tables);
    for (const TableRef& table : prog_.tables) {
      prog_.buffers.push_back({table->bytes.data(), table->bytes.size(), "a table"});
    }
    for (std::uint64_t b : bits) {
      if (constants_.emplace(b, next).second) ++next;
    }
    temp_base_ = temp_top_ = max_slots_ = next;
  }

  std::uint32_t constant(std::uint64_t bits) const { return constants_.at(bits); }

  std::uint32_t variable(VarId var) {
    if (!var.valid() || var.index >= fn_.vars.size()) {
      fail("variable #" + std::to_string(var.index) + " does not exist");
    }
    return var.index;
  }

  std::uint32_t push_temp() {
    const std::uint32_t t = temp_top_++;
    max_slots_ = std::max(max_slots_, temp_top_);
    return t;
  }

  const SharedArray* shared_array_of(const Expr& pointer) const {
    if (pointer.kind != ExprKind::Var) return nullptr;
    auto it = shared_index_.find(pointer.var.index);
    return it == shared_index_.end() ? nullptr : &prog_.shared[it->second];
  }

  std::uint32_t shared_number(const SharedArray& array) const {
    return static_cast<std::uint32_t>(&array - prog_.shared.data());
  }

  // ------------------------------------------------------------ code

  std::uint32_t emit(Op op, std::uint32_t dst = 0, std::uint32_t a = 0, std::uint32_t b = 0,
                     std::uint32_t c = 0, std::uint16_t aux = 0) {
    prog_.code.push_back(Instr{op, aux, dst, a, b, c});
    prog_.instr_path.push_back(path_id_);
    return static_cast<std::uint32_t>(prog_.code.size() - 1);
  }

  // Emits a jump to `label`, conditional on operands a (and b) unless op is Jump.
  void jump(Op op, Label& label, std::uint32_t a = 0, std::uint32_t b = 0) {
    const std::uint32_t at = emit(op, 0, a, b, label.target);
    if (label.target == kUnbound) label.uses.push_back(at);
  }

  void bind(Label& label) {
    label.target = static_cast<std::uint32_t>(prog_.code.size());
    for (std::uint32_t use : label.uses) prog_.code[use].c = label.target;
    label.uses.clear();
  }

  [[noreturn]] void fail(const std::string& reason) const {
    throw jit::verify_error(reason, jit::location::in_function(fn_.name, path_));
  }

  [[noreturn]] void ill_typed(const Expr& e) const {
    fail("cannot interpret a " + std::string(name_of_kind(e)) + " of type " + e.type.name());
  }

  static std::string_view name_of_kind(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Unary:
        return name_of(e.unary_op());
      case ExprKind::Binary:
        return name_of(e.binary_op());
      case ExprKind::Math:
        return name_of(e.math_op());
      case ExprKind::Atomic:
        return name_of(e.atomic_op());
      default:
        return "expression";
    }
  }

  const Expr& arg(const Expr& e, std::size_t i) const {
    if (i >= e.args.size() || !e.args[i]) fail("an expression is missing an operand");
    return *e.args[i];
  }

  const Expr& required(const ExprPtr& e) const {
    if (!e) fail("a statement is missing an expression");
    return *e;
  }

  // ------------------------------------------------------------ expressions

  // The slot holding e's value: a variable, constant or GPU index slot as it
  // is, anything else computed into a new temporary.
  std::uint32_t operand(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Const:
        return constant(e.bits);
      case ExprKind::Table:
        return constant(table_address(e));
      case ExprKind::Var:
        return variable(e.var);
      case ExprKind::GpuIndex:
        return gpu_index(e);
      case ExprKind::Cast:
        if (is_move_cast(arg(e, 0).type, e.type)) return operand(arg(e, 0));
        break;
      default:
        break;
    }
    const std::uint32_t t = push_temp();
    lower_into(e, t);
    return t;
  }

  std::uint32_t gpu_index(const Expr& e) {
    if (!fn_.kernel) fail("GPU index " + std::string(name_of(e.gpu_index())) + " outside a kernel");
    if (e.op > static_cast<std::uint8_t>(GpuIndex::GridDim) || e.axis > 2) {
      fail("invalid GPU index");
    }
    return prog_.gpu_index_base + e.op * 3u + e.axis;
  }

  Index index_operand(const Expr& e) {
    if (!e.type.is_integer()) fail("index must be an integer, got " + e.type.name());
    const std::uint32_t slot = operand(e);
    if (e.type == Type::i32()) return {slot, true};
    if (e.type.is_signed() && e.type.bits() < 32) {
      const std::uint32_t wide = push_temp();
      emit(e.type.bits() == 8 ? Op::Sext8To64 : Op::Sext16To64, wide, slot);
      return {wide, false};
    }
    return {slot, false};
  }

  // Computes e into dst. Operands are evaluated first; dst is written only as
  // the last step on every path, so e may read the variable it is assigned to.
  void lower_into(const Expr& e, std::uint32_t dst) {
    const std::uint32_t mark = temp_top_;
    switch (e.kind) {
      case ExprKind::Const:
      case ExprKind::Table:
      case ExprKind::Var:
      case ExprKind::GpuIndex:
        emit(Op::Move, dst, operand(e));
        break;
      case ExprKind::Unary:
        lower_unary(e, dst);
        break;
      case ExprKind::Binary:
        lower_binary(e, dst);
        break;
      case ExprKind::Select:
        lower_select(e, dst);
        break;
      case ExprKind::Cast:
        lower_cast(e, dst);
        break;
      case ExprKind::Load:
        lower_load(e, dst);
        break;
      case ExprKind::Call:
        lower_call(e, dst);
        break;
      case ExprKind::Math:
        lower_math(e, dst);
        break;
      case ExprKind::Atomic:
        lower_atomic(e, dst);
        break;
    }
    temp_top_ = mark;
  }

  // Jumps to `label` when e evaluates to `when`; && || ! become control flow.
  void lower_jump(const Expr& e, bool when, Label& label) {
    const std::uint32_t mark = temp_top_;
    if (e.kind == ExprKind::Unary && e.unary_op() == UnaryOp::Not) {
      lower_jump(arg(e, 0), !when, label);
    } else if (e.kind == ExprKind::Binary &&
               (e.binary_op() == BinaryOp::And || e.binary_op() == BinaryOp::Or)) {
      // For &&, a false left operand decides; for ||, a true one.
      const bool decisive = e.binary_op() == BinaryOp::Or;
      if (when == decisive) {
        lower_jump(arg(e, 0), when, label);
        lower_jump(arg(e, 1), when, label);
      } else {
        Label decided;
        lower_jump(arg(e, 0), decisive, decided);
        lower_jump(arg(e, 1), when, label);
        bind(decided);
      }
    } else if (e.kind == ExprKind::Const) {
      if ((e.bits != 0) == when) jump(Op::Jump, label);
    } else if (e.kind == ExprKind::Binary && is_comparison(e.binary_op())) {
      const Comparison c = comparison(e);
      std::uint32_t a = operand(arg(e, 0));
      std::uint32_t b = operand(arg(e, 1));
      if (c.swapped) std::swap(a, b);
      jump(branch_on(c.op, when), label, a, b);
    } else {
      jump(when ? Op::JumpIfTrue : Op::JumpIfFalse, label, operand(e));
    }
    temp_top_ = mark;
  }

  void lower_unary(const Expr& e, std::uint32_t dst) {
    const Expr& x = arg(e, 0);
    const Type t = x.type;
    const std::uint32_t a = operand(x);
    switch (e.unary_op()) {
      case UnaryOp::Neg:
        if (t.is_float()) {
          emit(family_member(Op::FNegF32, float_offset(t)), dst, a);
        } else if (t.is_integer()) {
          emit(family_member(Op::Neg8, width_offset(t.bits())), dst, a);
        } else {
          ill_typed(e);
        }
        return;
      case UnaryOp::BitNot:
        if (!t.is_integer()) ill_typed(e);
        emit(family_member(Op::BitNot8, width_offset(t.bits())), dst, a);
        return;
      case UnaryOp::Not:
        if (!t.is_bool()) ill_typed(e);
        emit(Op::Not, dst, a);
        return;
    }
    ill_typed(e);
  }

  void lower_short_circuit(const Expr& e, std::uint32_t dst) {
    const bool is_or = e.binary_op() == BinaryOp::Or;
    Label decided, end;
    lower_jump(arg(e, 0), is_or, decided);
    lower_into(arg(e, 1), dst);
    jump(Op::Jump, end);
    bind(decided);
    emit(Op::Move, dst, constant(is_or ? 1 : 0));
    bind(end);
  }

  void lower_binary(const Expr& e, std::uint32_t dst) {
    const BinaryOp op = e.binary_op();
    if (op == BinaryOp::And || op == BinaryOp::Or) return lower_short_circuit(e, dst);
    const Expr& lhs = arg(e, 0);
    const Expr& rhs = arg(e, 1);
    const Type t = lhs.type;
    if ((op == BinaryOp::Add || op == BinaryOp::Sub) && t.is_pointer()) {
      const std::uint32_t p = operand(lhs);
      const Index i = index_operand(rhs);
      const Op add = op == BinaryOp::Add ? (i.is_i32 ? Op::AddrIdx32 : Op::AddrIdx64)
                                         : (i.is_i32 ? Op::AddrSubIdx32 : Op::AddrSubIdx64);
      emit(add, dst, p, i.slot, 0, static_cast<std::uint16_t>(t.pointee().size()));
      return;
    }
    if (is_comparison(op)) {
      const Comparison c = comparison(e);
      std::uint32_t a = operand(lhs);
      std::uint32_t b = operand(rhs);
      if (c.swapped) std::swap(a, b);
      emit(c.op, dst, a, b);
      return;
    }
    if (op == BinaryOp::Add && (is_multiply(lhs) || is_multiply(rhs))) {
      return lower_multiply_add(e, dst);
    }
    const std::uint32_t a = operand(lhs);
    const std::uint32_t b = operand(rhs);
    const bool is_float = t.is_float();
    const auto by_width = [&](Op first) {
      if (!t.is_integer()) ill_typed(e);
      return family_member(first, width_offset(t.bits()));
    };
    const auto by_float = [&](Op first) { return family_member(first, float_offset(t)); };
    const auto arithmetic = [&](Op int_first, Op float_first) {
      return is_float ? by_float(float_first) : by_width(int_first);
    };
    const auto division = [&](Op signed_first, Op unsigned_op, Op float_first) {
      if (is_float) return by_float(float_first);
      if (t.is_signed()) return by_width(signed_first);
      if (!t.is_unsigned()) ill_typed(e);
      return unsigned_op;
    };
    Op code = Op::Move;
    switch (op) {
      case BinaryOp::Add:
        code = arithmetic(Op::Add8, Op::FAddF32);
        break;
      case BinaryOp::Sub:
        code = arithmetic(Op::Sub8, Op::FSubF32);
        break;
      case BinaryOp::Mul:
        code = arithmetic(Op::Mul8, Op::FMulF32);
        break;
      case BinaryOp::Div:
        code = division(Op::DivS8, Op::DivU, Op::FDivF32);
        break;
      case BinaryOp::Rem:
        code = division(Op::RemS8, Op::RemU, Op::FRemF32);
        break;
      case BinaryOp::BitAnd:
        code = Op::BitAnd;
        break;
      case BinaryOp::BitOr:
        code = Op::BitOr;
        break;
      case BinaryOp::BitXor:
        code = Op::BitXor;
        break;
      case BinaryOp::Shl:
        code = by_width(Op::Shl8);
        break;
      case BinaryOp::Shr:
        code = by_width(t.is_signed() ? Op::ShrS8 : Op::ShrU8);
        break;
      default:  // comparisons and && || are handled above
        ill_typed(e);
    }
    emit(code, dst, a, b);
  }

  static bool is_multiply(const Expr& e) {
    return e.kind == ExprKind::Binary && e.binary_op() == BinaryOp::Mul && e.type.is_arithmetic();
  }

  // x * y + z or z + x * y in one operation, operands evaluated in source order.
  void lower_multiply_add(const Expr& e, std::uint32_t dst) {
    const Type t = e.type;
    const bool product_first = is_multiply(arg(e, 0));
    const Expr& product = arg(e, product_first ? 0 : 1);
    std::uint32_t z = 0;
    if (!product_first) z = operand(arg(e, 0));
    const std::uint32_t x = operand(arg(product, 0));
    const std::uint32_t y = operand(arg(product, 1));
    if (product_first) z = operand(arg(e, 1));
    Op code = Op::Move;
    if (t.is_float()) {
      code = family_member(product_first ? Op::FMulAddF32 : Op::FAddMulF32, float_offset(t));
    } else {
      code = family_member(Op::MulAdd8, width_offset(t.bits()));
    }
    emit(code, dst, x, y, z);
  }

  // The comparison operation for e (== != < <= > >=); > and >= swap the
  // operands of < and <=.
  struct Comparison {
    Op op;
    bool swapped;
  };
  Comparison comparison(const Expr& e) const {
    const Type t = arg(e, 0).type;
    const auto ordering = [&](Op signed_first, Op unsigned_op, Op float_first) {
      if (t.is_float()) return family_member(float_first, float_offset(t));
      if (t.is_signed()) return family_member(signed_first, width_offset(t.bits()));
      if (!t.is_unsigned() && !t.is_pointer()) ill_typed(e);
      return unsigned_op;
    };
    const auto equality = [&](Op float_first, Op bits_op) {
      return t.is_float() ? family_member(float_first, float_offset(t)) : bits_op;
    };
    switch (e.binary_op()) {
      case BinaryOp::Eq:
        return {equality(Op::FEqF32, Op::Eq), false};
      case BinaryOp::Ne:
        return {equality(Op::FNeF32, Op::Ne), false};
      case BinaryOp::Lt:
        return {ordering(Op::LtS8, Op::LtU, Op::FLtF32), false};
      case BinaryOp::Le:
        return {ordering(Op::LeS8, Op::LeU, Op::FLeF32), false};
      case BinaryOp::Gt:
        return {ordering(Op::LtS8, Op::LtU, Op::FLtF32), true};
      case BinaryOp::Ge:
        return {ordering(Op::LeS8, Op::LeU, Op::FLeF32), true};
      default:
        ill_typed(e);
    }
  }

  void lower_select(const Expr& e, std::uint32_t dst) {
    Label otherwise, end;
    lower_jump(arg(e, 0), false, otherwise);
    lower_into(arg(e, 1), dst);
    jump(Op::Jump, end);
    bind(otherwise);
    lower_into(arg(e, 2), dst);
    bind(end);
  }

  void lower_cast(const Expr& e, std::uint32_t dst) {
    const Expr& x = arg(e, 0);
    const Type from = x.type;
    const Type to = e.type;
    const std::uint32_t a = operand(x);
    if (is_move_cast(from, to)) {
      emit(Op::Move, dst, a);
    } else if (to.is_bool()) {
      emit(from.is_float() ? family_member(Op::FToBoolF32, float_offset(from)) : Op::ToBool, dst,
           a);
    } else if (from.is_float() && to.is_float()) {
      emit(from.scalar() == Scalar::F64 ? Op::F64ToF32 : Op::F32ToF64, dst, a);
    } else if (from.is_float() && to.is_integer()) {
      const Op first = from.scalar() == Scalar::F32 ? Op::F32ToIntI8 : Op::F64ToIntI8;
      emit(family_member(first, int_offset(to)), dst, a);
    } else if (to.is_float() && (from.is_integer() || from.is_bool())) {
      const Op first = to.scalar() == Scalar::F32 ? Op::IntToF32I8 : Op::IntToF64I8;
      emit(family_member(first, int_offset(from)), dst, a);
    } else if (from.is_integer() && to.is_integer() && from.bits() > to.bits()) {
      emit(family_member(Op::Trunc8, width_offset(to.bits())), dst, a);
    } else if (from.is_signed() && to.is_integer()) {
      emit(sign_extension(from.bits(), to.bits()), dst, a);
    } else {
      fail("cannot cast " + from.name() + " to " + to.name());
    }
  }

  static Op sign_extension(unsigned from, unsigned to) {
    if (from == 8) return to == 16 ? Op::Sext8To16 : to == 32 ? Op::Sext8To32 : Op::Sext8To64;
    if (from == 16) return to == 32 ? Op::Sext16To32 : Op::Sext16To64;
    return Op::Sext32To64;
  }

  // Computes the address of pointer[index] into dst, checked if the access
  // goes to a shared array directly or the run is bounds-checked.
  void address(std::uint32_t dst, std::uint32_t pointer, Index index, unsigned size, Access access,
               const SharedArray* shared) {
    const auto aux = static_cast<std::uint16_t>(size | static_cast<unsigned>(access) << 8);
    if (shared) {
      emit(index.is_i32 ? Op::SharedAddrIdx32 : Op::SharedAddrIdx64, dst, pointer, index.slot,
           shared_number(*shared), aux);
    } else if (options_.bounds_check) {
      emit(index.is_i32 ? Op::CheckedAddrIdx32 : Op::CheckedAddrIdx64, dst, pointer, index.slot, 0,
           aux);
    } else {
      emit(index.is_i32 ? Op::AddrIdx32 : Op::AddrIdx64, dst, pointer, index.slot, 0, aux);
    }
  }

  void lower_load(const Expr& e, std::uint32_t dst) {
    const Expr& pointer = arg(e, 0);
    if (!pointer.type.is_pointer()) ill_typed(e);
    const Type element = pointer.type.pointee();
    const std::uint32_t p = operand(pointer);
    const Index i = index_operand(arg(e, 1));
    const unsigned width = static_cast<unsigned>(element.size() * 8);
    const SharedArray* shared = shared_array_of(pointer);
    if (shared || options_.bounds_check) {
      const std::uint32_t at = push_temp();
      address(at, p, i, static_cast<unsigned>(element.size()), Access::Load, shared);
      emit(element.is_bool() ? Op::LoadBoolAt : family_member(Op::LoadAt8, width_offset(width)),
           dst, at);
    } else if (element.is_bool()) {
      emit(i.is_i32 ? Op::LoadBoolIdx32 : Op::LoadBoolIdx64, dst, p, i.slot);
    } else {
      const Op first = i.is_i32 ? Op::LoadIdx32_8 : Op::LoadIdx64_8;
      emit(family_member(first, width_offset(width)), dst, p, i.slot);
    }
  }

  void lower_store(const Stmt& s) {
    const Expr& pointer = required(s.ptr);
    if (!pointer.type.is_pointer()) fail("store through a non-pointer " + pointer.type.name());
    const Type element = pointer.type.pointee();
    const std::uint32_t p = operand(pointer);
    const Index i = index_operand(required(s.index));
    const std::uint32_t v = operand(required(s.expr));
    const unsigned width = static_cast<unsigned>(element.size() * 8);
    const SharedArray* shared = shared_array_of(pointer);
    if (shared || options_.bounds_check) {
      const std::uint32_t at = push_temp();
      address(at, p, i, static_cast<unsigned>(element.size()), Access::Store, shared);
      emit(family_member(Op::StoreAt8, width_offset(width)), 0, at, v);
    } else {
      const Op first = i.is_i32 ? Op::StoreIdx32_8 : Op::StoreIdx64_8;
      emit(family_member(first, width_offset(width)), 0, p, i.slot, v);
    }
  }

  void lower_call(const Expr& e, std::uint32_t dst) {
    if (!e.callee) fail("a call has no callee");
    if (e.args.size() > 0xffff) fail("too many arguments in a call to '" + e.callee->name + "'");
    const std::uint32_t base = temp_top_;
    for (std::size_t i = 0; i < e.args.size(); ++i) push_temp();
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      lower_into(arg(e, i), base + static_cast<std::uint32_t>(i));
    }
    emit(Op::Call, dst, base, 0, extern_number(*e.callee),
         static_cast<std::uint16_t>(e.args.size()));
  }

  std::uint32_t extern_number(const ExternFn& callee) {
    for (std::size_t i = 0; i < prog_.externs.size(); ++i) {
      if (prog_.externs[i].decl->name == callee.name) return static_cast<std::uint32_t>(i);
    }
    if (!options_.externs) {
      throw jit::error("calls extern '" + callee.name + "' but no ExternTable was given",
                       jit::location::in_function(fn_.name, path_));
    }
    prog_.externs.push_back(options_.externs->resolve(callee));
    return static_cast<std::uint32_t>(prog_.externs.size() - 1);
  }

  void lower_math(const Expr& e, std::uint32_t dst) {
    const MathOp op = e.math_op();
    const Type t = arg(e, 0).type;
    std::uint32_t slots[3] = {0, 0, 0};
    for (unsigned i = 0; i < arity(op); ++i) slots[i] = operand(arg(e, i));
    const auto by_float = [&](Op first) {
      if (!t.is_float()) ill_typed(e);
      return family_member(first, float_offset(t));
    };
    const auto extremum = [&](Op float_first, Op signed_first, Op unsigned_op) {
      if (t.is_float()) return by_float(float_first);
      if (t.is_signed()) return family_member(signed_first, width_offset(t.bits()));
      if (!t.is_unsigned()) ill_typed(e);
      return unsigned_op;
    };
    Op code = Op::Move;
    switch (op) {
      case MathOp::Sqrt:
        code = by_float(Op::SqrtF32);
        break;
      case MathOp::Fabs:
        code = by_float(Op::FabsF32);
        break;
      case MathOp::Floor:
        code = by_float(Op::FloorF32);
        break;
      case MathOp::Exp:
        code = by_float(Op::ExpF32);
        break;
      case MathOp::Log:
        code = by_float(Op::LogF32);
        break;
      case MathOp::Pow:
        code = by_float(Op::PowF32);
        break;
      case MathOp::Fma:
        code = by_float(Op::FmaF32);
        break;
      case MathOp::Min:
        code = extremum(Op::FMinF32, Op::MinS8, Op::MinU);
        break;
      case MathOp::Max:
        code = extremum(Op::FMaxF32, Op::MaxS8, Op::MaxU);
        break;
    }
    emit(code, dst, slots[0], slots[1], slots[2]);
  }

  void lower_atomic(const Expr& e, std::uint32_t dst) {
    const AtomicOp op = e.atomic_op();
    const Expr& pointer = arg(e, 0);
    if (!pointer.type.is_pointer()) ill_typed(e);
    const Type element = pointer.type.pointee();
    const unsigned bits = element.bits();
    if (bits != 32 && bits != 64) ill_typed(e);
    const bool wide = bits == 64;
    const std::uint32_t p = operand(pointer);
    const Index i = index_operand(arg(e, 1));
    const std::uint32_t value = operand(arg(e, 2));
    const std::uint32_t desired = op == AtomicOp::Cas ? operand(arg(e, 3)) : 0;
    const auto integer = [&](Op signed32, Op signed64, Op unsigned32, Op unsigned64) {
      if (!element.is_integer()) ill_typed(e);
      if (element.is_signed()) return wide ? signed64 : signed32;
      return wide ? unsigned64 : unsigned32;
    };
    Op code = Op::Move;
    switch (op) {
      case AtomicOp::Add:
        if (element.is_float()) {
          code = wide ? Op::AtomicAddF64 : Op::AtomicAddF32;
        } else {
          code = integer(Op::AtomicAddI32, Op::AtomicAddI64, Op::AtomicAddI32, Op::AtomicAddI64);
        }
        break;
      case AtomicOp::Min:
        code = integer(Op::AtomicMinS32, Op::AtomicMinS64, Op::AtomicMinU32, Op::AtomicMinU64);
        break;
      case AtomicOp::Max:
        code = integer(Op::AtomicMaxS32, Op::AtomicMaxS64, Op::AtomicMaxU32, Op::AtomicMaxU64);
        break;
      case AtomicOp::Exchange:
        code = wide ? Op::AtomicExchange64 : Op::AtomicExchange32;
        break;
      case AtomicOp::Cas:
        code = integer(Op::AtomicCas32, Op::AtomicCas64, Op::AtomicCas32, Op::AtomicCas64);
        break;
    }
    const std::uint32_t at = push_temp();
    address(at, p, i, bits / 8, Access::Atomic, shared_array_of(pointer));
    emit(code, dst, at, value, desired);
  }

  // ------------------------------------------------------------ statements

  void lower_block(const Block& block, std::string_view segment) {
    const std::string parent = path_;
    const std::uint32_t parent_id = path_id_;
    for (std::size_t i = 0; i < block.size(); ++i) {
      path_ = (parent.empty() ? "" : parent + ".") + std::string(segment) + "[" +
              std::to_string(i) + "]";
      path_id_ = static_cast<std::uint32_t>(prog_.paths.size());
      prog_.paths.push_back(path_);
      lower_stmt(block[i]);
    }
    path_ = parent;
    path_id_ = parent_id;
  }

  void lower_stmt(const Stmt& s) {
    temp_top_ = temp_base_;
    switch (s.kind) {
      case StmtKind::Decl: {
        const std::uint32_t var = variable(s.var);
        if (fn_.vars[var].kind == VarKind::Shared) return;  // allocated per block
        if (s.expr) {
          lower_into(*s.expr, var);
        } else {
          emit(Op::Move, var, constant(0));
        }
        return;
      }
      case StmtKind::Assign:
        lower_into(required(s.expr), variable(s.var));
        return;
      case StmtKind::Store:
        lower_store(s);
        return;
      case StmtKind::Eval:
        operand(required(s.expr));
        return;
      case StmtKind::If:
        lower_if(s);
        return;
      case StmtKind::While:
        lower_loop(s, {}, nullptr);
        return;
      case StmtKind::For:
        lower_block(s.init, "init");
        lower_loop(s, s.step, s.expr.get());
        return;
      case StmtKind::Break:
      case StmtKind::Continue: {
        if (loops_.empty()) fail(std::string(name_of(s.kind)) + " outside a loop");
        if (s.levels == 0 || s.levels > loops_.size()) {
          fail(std::string(name_of(s.kind)) + " " + std::to_string(s.levels) +
               " leaves more loops than enclose it");
        }
        const Loop& target = loops_[loops_.size() - s.levels];
        jump(Op::Jump, s.kind == StmtKind::Break ? *target.exit : *target.next);
        return;
      }
      case StmtKind::Return:
        if (s.expr) {
          emit(Op::Ret, 0, operand(*s.expr));
        } else {
          emit(Op::RetVoid);
        }
        return;
      case StmtKind::Barrier:
        if (!fn_.kernel) fail("barrier outside a kernel");
        emit(Op::Barrier);
        prog_.has_barrier = true;
        return;
    }
  }

  void lower_if(const Stmt& s) {
    Label otherwise, end;
    lower_jump(required(s.expr), false, otherwise);
    lower_block(s.body, "then");
    if (!s.orelse.empty()) jump(Op::Jump, end);
    bind(otherwise);
    lower_block(s.orelse, "else");
    bind(end);
  }

  // while (cond) body, and for's loop after its init: the condition is tested
  // at the bottom, so an iteration costs one conditional jump. A for without
  // a condition loops until a break.
  void lower_loop(const Stmt& s, const Block& step, const Expr* for_condition) {
    const bool is_for = s.kind == StmtKind::For;
    const Expr* condition = is_for ? for_condition : &required(s.expr);
    Label body, next, test, exit;
    jump(Op::Jump, test);
    bind(body);
    loops_.push_back({&exit, &next});
    lower_block(s.body, "body");
    loops_.pop_back();
    bind(next);
    lower_block(step, "step");
    bind(test);
    temp_top_ = temp_base_;
    if (condition) {
      lower_jump(*condition, true, body);
    } else {
      jump(Op::Jump, body);
    }
    bind(exit);
  }

  const Function& fn_;
  const InterpOptions& options_;
  Program prog_;

  std::unordered_map<std::uint64_t, std::uint32_t> constants_;     // bits → slot
  std::unordered_map<std::uint32_t, std::uint32_t> shared_index_;  // var → Program::shared
  std::uint32_t temp_base_ = 0;
  std::uint32_t temp_top_ = 0;
  std::uint32_t max_slots_ = 0;

  std::string path_;
  std::uint32_t path_id_ = 0;
  std::vector<Loop> loops_;
};

}  // namespace

Program lower(const Function& function, const InterpOptions& options) {
  // Lowering recurses once per level of expression and statement nesting.
  for (const auto& [depth, what] : {std::pair{expr_depth(function.body), "an expression"},
                                    std::pair{nesting_depth(function.body), "statements nested"}}) {
    if (depth > kMaxLoweringDepth) {
      throw jit::error("cannot interpret " + std::string(what) + " " + std::to_string(depth) +
                           " deep: the interpreter's limit is " + std::to_string(kMaxLoweringDepth),
                       jit::location::in_function(function.name));
    }
  }
  return Lowerer(function, options).run();
}

}  // namespace augur::ir::interp
