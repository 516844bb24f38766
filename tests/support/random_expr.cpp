#include <cstring>
#include <iterator>
#include <limits>

#include "tests/support/random_gen.h"

namespace augur::testing::gen {

using ir::BinaryOp;
using ir::ExprPtr;
using ir::MathOp;
using ir::Stmt;
using ir::Type;
using ir::UnaryOp;
using ir::VarId;

// Evaluates `e` once into a read-only temporary, so a guard and its use see one value.
ExprPtr ExprGen::hoist(ExprPtr e) {
  const VarId v = s_.builder.new_local(s_.fresh("t"), e->type);
  s_.emit(Stmt::decl(v, std::move(e)));
  return s_.builder.read(v);
}

// ------------------------------------------------------------ memory

// A pointer into `a` (maybe moved by pointer arithmetic) and an index kept in range.
std::pair<ExprPtr, ExprPtr> ExprGen::element(const ArrayVar& a) {
  ExprPtr pointer = s_.builder.read(a.id);
  std::uint32_t length = a.length;
  if (s_.features.pointer_arithmetic && length > 1 && s_.rng.chance(30)) {
    // (p + k) - m with m <= k: every intermediate stays inside the array.
    const auto k = static_cast<std::uint32_t>(s_.rng.below(length));
    const auto m = static_cast<std::uint32_t>(s_.rng.below(k + 1));
    pointer = ir::binary(BinaryOp::Add, pointer, offset_const(k));
    if (m > 0) pointer = ir::binary(BinaryOp::Sub, pointer, offset_const(m));
    length -= k - m;
  }
  return {pointer, index_below(length)};
}

// A pointer offset of a random type wide enough for any array length.
ExprPtr ExprGen::offset_const(std::uint32_t k) {
  return ir::constant(s_.pick({Type::i32(), Type::i64(), Type::u32(), Type::u64()}), k);
}

// An arbitrary integer reduced into [0, length) by an unsigned remainder.
ExprPtr ExprGen::index_below(std::uint32_t length) {
  std::vector<Type> index_types = {Type::u32(), Type::u64()};
  if (s_.features.all_int_widths && length <= 0xff) index_types.push_back(Type::u8());
  if (s_.features.all_int_widths && length <= 0xffff) index_types.push_back(Type::u16());
  const Type t = s_.pick(index_types);
  ExprPtr e = to_type(expr(s_.pick(s_.types.ints), 2), t);
  return ir::binary(BinaryOp::Rem, std::move(e), ir::constant(t, length));
}

// `a` as bytes: a u8 pointer and the number of bytes it may access.
std::pair<ExprPtr, ExprPtr> ExprGen::byte_view(const ArrayVar& a) {
  return {ir::cast(Type::pointer_to(ir::Scalar::U8), s_.builder.read(a.id)),
          ir::constant(Type::u64(), a.length * a.pointer.pointee().size())};
}

// ------------------------------------------------------------ expressions

ExprPtr ExprGen::expr(Type t, unsigned depth) {
  if (depth == 0 || s_.rng.chance(25)) return leaf(t);
  if (t.is_bool()) return gen_bool(depth);
  if (t.is_float()) return gen_float(t, depth);
  return gen_int(t, depth);
}

// A constant, a variable, an array element, or a variable of another type
// converted: leaves favour data over constants, so results depend on inputs.
ExprPtr ExprGen::leaf(Type t) {
  const std::vector<VarId> vars = s_.vars_of(t);
  const std::vector<const ArrayVar*> arrays = s_.arrays_of(t);
  const bool convert = s_.features.casts && !s_.scalars.empty();
  const unsigned weights[] = {2, vars.empty() ? 0u : 5u, arrays.empty() ? 0u : 2u,
                              convert ? 2u : 0u, s_.features.tables && !t.is_pointer() ? 2u : 0u};
  switch (s_.weighted(weights)) {
    case 1:
      return s_.builder.read(s_.rng.pick(std::span<const VarId>(vars)));
    case 2: {
      auto [pointer, index] = element(*s_.rng.pick(std::span<const ArrayVar* const>(arrays)));
      return ir::load(std::move(pointer), std::move(index));
    }
    case 3:
      return to_type(s_.builder.read(s_.rng.pick(std::span<const ScalarVar>(s_.scalars)).id), t);
    case 4:
      return table_element(t);
    default:
      return random_constant(t);
  }
}

ExprPtr ExprGen::table_element(Type t) {
  std::vector<std::size_t> known;
  for (std::size_t i = 0; i < s_.tables.size(); ++i)
    if (s_.tables[i].first->type == Type::pointer_to(t.scalar())) known.push_back(i);
  if (known.empty() || s_.rng.chance(30)) {
    const auto length = static_cast<std::uint32_t>(1 + s_.rng.below(8));
    std::vector<std::byte> bytes(length * t.size());
    for (std::size_t i = 0; i < length; ++i) {
      const std::uint64_t bits = random_constant(t)->bits;  // the host is little-endian
      std::memcpy(bytes.data() + i * t.size(), &bits, t.size());
    }
    s_.tables.emplace_back(ir::table(t, std::move(bytes)), length);
    known.push_back(s_.tables.size() - 1);
  }
  const auto& [table, length] = s_.tables[s_.rng.pick(std::span<const std::size_t>(known))];
  // The index is a variable or a constant (an index expression could read
  // tables again, without end), reduced into range.
  const Type it = s_.pick(s_.types.ints);
  const std::vector<VarId> vars = s_.vars_of(it);
  ExprPtr x = vars.empty() || s_.rng.chance(20)
                  ? random_constant(it)
                  : s_.builder.read(s_.rng.pick(std::span<const VarId>(vars)));
  return ir::load(table, ir::binary(BinaryOp::Rem, to_type(std::move(x), Type::u32()),
                                    ir::constant(Type::u32(), length)));
}

ExprPtr ExprGen::random_constant(Type t) {
  if (t.is_bool()) return ir::constant(s_.rng.chance(50));
  if (t.is_float()) {
    static constexpr double kSpecial[] = {0.0, -0.0, 1.0, -1.5, 0.1, 1e300, -1e-300, 3.0e38};
    double v = 0;
    switch (s_.rng.below(5)) {
      case 0:
        v = kSpecial[s_.rng.below(std::size(kSpecial))];
        break;
      case 1:
        v = s_.rng.chance(50) ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
        break;
      case 2:
        v = static_cast<double>(s_.rng.between(-8, 8));
        break;
      default:
        v = static_cast<double>(s_.rng.between(-1000000, 1000000)) / 1024.0;
    }
    if (t == Type::f32()) return ir::constant(static_cast<float>(v));
    return ir::constant(v);
  }
  const unsigned width = t.bits();
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  switch (s_.rng.below(7)) {
    case 0:
      return ir::constant(t, 0);
    case 1:
      return ir::constant(t, 1);
    case 2:
      return ir::constant(t, ~std::uint64_t{0});  // -1, or the unsigned maximum
    case 3:
      return ir::constant(t, sign);  // the signed minimum
    case 4:
      return ir::constant(t, sign - 1);
    case 5:
      return ir::constant(t, static_cast<std::uint64_t>(s_.rng.between(-8, 8)));
    default:
      return ir::constant(t, s_.rng.next());
  }
}

// A call to a test extern with a `t` result, or null if none fits.
ExprPtr ExprGen::gen_call(Type t, unsigned depth) {
  std::vector<std::string_view> candidates;
  auto consider = [&](bool enabled, std::string_view name, Type ret) {
    if (enabled && (ret == t || (s_.features.casts && t.is_value()))) candidates.push_back(name);
  };
  consider(s_.features.pure_calls, "t_mix_i32", Type::i32());
  consider(s_.features.pure_calls, "t_mix_i64", Type::i64());
  consider(s_.features.pure_calls && s_.features.floats, "t_blend_f64", Type::f64());
  // Hashed bytes are integers' only: a float array's may hold NaNs, whose
  // sign and payload the IR leaves unspecified (docs/ir.md), and a hash
  // would make them observable.
  std::vector<ArrayVar> hashable;
  for (const ArrayVar& a : s_.arrays)
    if (a.pointer.pointee().is_integer()) hashable.push_back(a);
  consider(s_.features.readonly_calls && !hashable.empty(), "t_hash_bytes", Type::u64());
  consider(s_.features.effectful_calls, "t_tick", Type::i64());
  if (candidates.empty()) return nullptr;
  const std::string_view name = s_.rng.pick(std::span<const std::string_view>(candidates));
  const ir::ExternRef fn = s_.extern_named(name);
  std::vector<ExprPtr> args;
  if (name == "t_hash_bytes") {
    auto [pointer, count] = byte_view(s_.rng.pick(std::span<const ArrayVar>(hashable)));
    args = {pointer, count};
  } else {
    for (Type p : fn->params) args.push_back(expr(p, depth - 1));
  }
  return to_type(ir::call(fn, std::move(args)), t);
}

// x / y and x % y with y replaced by 1 where it is 0, or where it is -1 and x is the minimum.
ExprPtr ExprGen::safe_division(BinaryOp op, Type t, unsigned depth) {
  const ExprPtr x = hoist(expr(t, depth - 1));
  const ExprPtr y = hoist(expr(t, depth - 1));
  ExprPtr unsafe = ir::binary(BinaryOp::Eq, y, ir::constant(t, 0));
  if (t.is_signed()) {
    const std::uint64_t min = std::uint64_t{1} << (t.bits() - 1);
    unsafe = ir::binary(
        BinaryOp::Or, unsafe,
        ir::binary(BinaryOp::And, ir::binary(BinaryOp::Eq, y, ir::constant(t, ~std::uint64_t{0})),
                   ir::binary(BinaryOp::Eq, x, ir::constant(t, min))));
  }
  return ir::binary(op, x, ir::select(unsafe, ir::constant(t, 1), y));
}

ExprGen::Form ExprGen::pick_form(bool unary, bool division, bool has_load) {
  const unsigned weights[] = {
      unary ? 2u : 0u,               // Unary
      6,                             // Binary
      division ? 1u : 0u,            // Division
      s_.features.select ? 1u : 0u,  // Select
      s_.features.casts ? 2u : 0u,   // Cast
      s_.features.math ? 1u : 0u,    // Math
      1,                             // Call (falls back to Binary if none fits)
      has_load ? 2u : 0u,            // Load
  };
  return static_cast<Form>(s_.weighted(weights));
}

ExprPtr ExprGen::gen_load(Type t) {
  const std::vector<const ArrayVar*> arrays = s_.arrays_of(t);
  auto [pointer, index] = element(*s_.rng.pick(std::span<const ArrayVar* const>(arrays)));
  return ir::load(std::move(pointer), std::move(index));
}

ExprPtr ExprGen::gen_cast_to(Type t, unsigned depth) {
  return ir::cast(t, expr(s_.pick(s_.types.values), depth - 1));
}

ExprPtr ExprGen::gen_int(Type t, unsigned depth) {
  static constexpr BinaryOp kOps[] = {BinaryOp::Add,    BinaryOp::Sub,   BinaryOp::Mul,
                                      BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor,
                                      BinaryOp::Shl,    BinaryOp::Shr};
  switch (pick_form(true, true, !s_.arrays_of(t).empty())) {
    case Form::Unary:
      return ir::unary(s_.rng.chance(50) ? UnaryOp::Neg : UnaryOp::BitNot, expr(t, depth - 1));
    case Form::Division:
      return safe_division(s_.rng.chance(50) ? BinaryOp::Div : BinaryOp::Rem, t, depth);
    case Form::Select:
      return ir::select(expr(Type::bool_(), depth - 1), expr(t, depth - 1), expr(t, depth - 1));
    case Form::Cast:
      return gen_cast_to(t, depth);
    case Form::Math:
      return ir::math(s_.rng.chance(50) ? MathOp::Min : MathOp::Max,
                      {expr(t, depth - 1), expr(t, depth - 1)});
    case Form::Call:
      if (ExprPtr c = gen_call(t, depth)) return c;
      break;
    case Form::Load:
      return gen_load(t);
    case Form::Binary:
      break;
  }
  return ir::binary(kOps[s_.rng.below(std::size(kOps))], expr(t, depth - 1), expr(t, depth - 1));
}

ExprPtr ExprGen::gen_float(Type t, unsigned depth) {
  static constexpr BinaryOp kOps[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
                                      BinaryOp::Rem};
  switch (pick_form(true, false, !s_.arrays_of(t).empty())) {
    case Form::Unary:
      return ir::unary(UnaryOp::Neg, expr(t, depth - 1));
    case Form::Select:
      return ir::select(expr(Type::bool_(), depth - 1), expr(t, depth - 1), expr(t, depth - 1));
    case Form::Cast:
      return gen_cast_to(t, depth);
    case Form::Math:
      return gen_float_math(t, depth);
    case Form::Call:
      if (ExprPtr c = gen_call(t, depth)) return c;
      break;
    case Form::Load:
      return gen_load(t);
    case Form::Binary:
    case Form::Division:
      break;
  }
  return ir::binary(kOps[s_.rng.below(std::size(kOps))], expr(t, depth - 1), expr(t, depth - 1));
}

ExprPtr ExprGen::gen_float_math(Type t, unsigned depth) {
  std::vector<MathOp> ops = {MathOp::Sqrt, MathOp::Fabs, MathOp::Floor,
                             MathOp::Min,  MathOp::Max,  MathOp::Fma};
  if (s_.features.inexact_math) ops.insert(ops.end(), {MathOp::Exp, MathOp::Log, MathOp::Pow});
  const MathOp op = s_.rng.pick(std::span<const MathOp>(ops));
  if (op == MathOp::Exp || op == MathOp::Log || op == MathOp::Pow) s_.inexact = true;
  std::vector<ExprPtr> args;
  for (unsigned i = 0; i < ir::arity(op); ++i) args.push_back(expr(t, depth - 1));
  return ir::math(op, std::move(args));
}

ExprPtr ExprGen::gen_bool(unsigned depth) {
  static constexpr BinaryOp kCompare[] = {BinaryOp::Eq, BinaryOp::Ne, BinaryOp::Lt,
                                          BinaryOp::Le, BinaryOp::Gt, BinaryOp::Ge};
  static constexpr BinaryOp kLogic[] = {BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor,
                                        BinaryOp::Eq, BinaryOp::Ne};
  const Type b = Type::bool_();
  const unsigned weights[] = {
      6,                                    // comparison
      1,                                    // !
      s_.features.short_circuit ? 3u : 0u,  // && ||
      1,                                    // & | ^ == != on bools
      s_.features.select ? 1u : 0u,         // select
      s_.features.casts ? 1u : 0u,          // cast to bool
      s_.arrays_of(b).empty() ? 0u : 1u,    // load
  };
  switch (s_.weighted(weights)) {
    case 1:
      return ir::unary(UnaryOp::Not, expr(b, depth - 1));
    case 2:
      return ir::binary(s_.rng.chance(50) ? BinaryOp::And : BinaryOp::Or, expr(b, depth - 1),
                        expr(b, depth - 1));
    case 3:
      return ir::binary(kLogic[s_.rng.below(std::size(kLogic))], expr(b, depth - 1),
                        expr(b, depth - 1));
    case 4:
      return ir::select(expr(b, depth - 1), expr(b, depth - 1), expr(b, depth - 1));
    case 5:
      return ir::cast(b, expr(s_.pick(s_.types.numeric), depth - 1));
    case 6:
      return gen_load(b);
    default: {
      const Type operands = s_.pick(s_.types.numeric);
      return ir::binary(kCompare[s_.rng.below(std::size(kCompare))], expr(operands, depth - 1),
                        expr(operands, depth - 1));
    }
  }
}

}  // namespace augur::testing::gen
