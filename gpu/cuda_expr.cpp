#include "gpu/cuda_expr.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "gpu/kernel_externs.h"
#include "jit/error.h"
#include "runtime/ir/hash.h"

namespace augur::gpu {

namespace {

using ir::AtomicOp;
using ir::BinaryOp;
using ir::ExprKind;
using ir::MathOp;
using ir::Scalar;
using ir::Type;

// C++ precedence levels, higher binding tighter.
constexpr int kFull = 3;  // ?:, the loosest level generated code uses
constexpr int kOr = 4;
constexpr int kAnd = 5;
constexpr int kBitOr = 6;
constexpr int kBitXor = 7;
constexpr int kBitAnd = 8;
constexpr int kEquality = 9;
constexpr int kRelational = 10;
constexpr int kShift = 11;
constexpr int kAdditive = 12;
constexpr int kMultiplicative = 13;
constexpr int kUnary = 15;  // prefix operators and C casts
constexpr int kPostfix = 16;
constexpr int kPrimary = 17;

int level_of(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return kAdditive;
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem:
      return kMultiplicative;
    case BinaryOp::BitAnd:
      return kBitAnd;
    case BinaryOp::BitOr:
      return kBitOr;
    case BinaryOp::BitXor:
      return kBitXor;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      return kShift;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      return kEquality;
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      return kRelational;
    case BinaryOp::And:
      return kAnd;
    case BinaryOp::Or:
      return kOr;
  }
  return kFull;
}

// Where -Wparentheses would want parentheses for the reader: a comparison
// compared; an operand of &, ^, |, a shift, && or || that is an operator of
// another level (but a comparison under && or || reads fine).
bool needs_clarity(int parent, int child) {
  if (child >= kUnary) return false;
  if (parent == kEquality || parent == kRelational) {
    return child == kEquality || child == kRelational;
  }
  if (child == parent) return false;
  if (parent == kAnd || parent == kOr) return child == kAnd || child == kOr;
  return parent == kBitAnd || parent == kBitXor || parent == kBitOr || parent == kShift;
}

bool is_narrow(Type t) {
  return t.is_integer() && t.bits() < 32;
}

// Operators on these types behave as the IR says without help: no promotion
// to int, and unsigned wrap-around.
bool is_plain_unsigned(Type t) {
  return t.is_unsigned() && t.bits() >= 32;
}

std::string shortest(float v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
std::string shortest(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string hex(std::uint64_t bits, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, digits, bits);
  return buf;
}

const char* math_name(MathOp op, bool f32) {
  switch (op) {
    case MathOp::Sqrt:
      return f32 ? "sqrtf" : "sqrt";
    case MathOp::Fabs:
      return f32 ? "fabsf" : "fabs";
    case MathOp::Floor:
      return f32 ? "floorf" : "floor";
    case MathOp::Exp:
      return f32 ? "expf" : "exp";
    case MathOp::Log:
      return f32 ? "logf" : "log";
    case MathOp::Pow:
      return f32 ? "powf" : "pow";
    case MathOp::Min:
    case MathOp::Max:
      break;  // helpers (cuda_helpers.h)
    case MathOp::Fma:
      return f32 ? "fmaf" : "fma";
  }
  return "";
}

const char* atomic_name(AtomicOp op) {
  switch (op) {
    case AtomicOp::Add:
      return "atomicAdd";
    case AtomicOp::Min:
      return "atomicMin";
    case AtomicOp::Max:
      return "atomicMax";
    case AtomicOp::Exchange:
      return "atomicExch";
    case AtomicOp::Cas:
      return "atomicCAS";
  }
  return "";
}

std::string parens(const std::string& s) {
  return "(" + s + ")";
}

}  // namespace

std::string cuda_type(Type type) {
  return type.name();
}

std::string CudaExprWriter::full(const ir::Expr& e) {
  return at(e, kFull);
}

std::string CudaExprWriter::at(const ir::Expr& e, int min_level) {
  return at(expr(e), min_level);
}

std::string CudaExprWriter::at(const Code& c, int min_level) {
  return c.level < min_level ? parens(c.text) : c.text;
}

std::string CudaTables::name(const ir::TableRef& table) {
  auto [known, fresh] = by_address_.try_emplace(table.get(), tables_.size());
  if (fresh) {
    ir::Hasher content;
    content.add(
        std::string_view(reinterpret_cast<const char*>(table->bytes.data()), table->bytes.size()));
    const std::uint64_t hash = content.finish().lo;
    const auto [first, last] = by_content_.equal_range(hash);
    const auto same = std::find_if(
        first, last, [&](const auto& entry) { return *tables_[entry.second] == *table; });
    if (same != last) {
      known->second = same->second;
    } else {
      by_content_.emplace(hash, tables_.size());
      tables_.push_back(table);
    }
  }
  return "augur_table_" + std::to_string(known->second);
}

std::string CudaTables::definitions() const {
  std::string out;
  std::vector<std::string> no_names;
  std::set<Helper> no_helpers;
  CudaTables none;
  CudaExprWriter literals(no_names, no_helpers, none);
  for (std::size_t k = 0; k < tables_.size(); ++k) {
    const ir::TableData& t = *tables_[k];
    out += "__device__ const " + cuda_type(t.element) + " augur_table_" + std::to_string(k) + "[" +
           std::to_string(t.size()) + "] = {";
    for (std::size_t i = 0; i < t.size(); ++i) {
      ir::Expr element;
      element.kind = ExprKind::Const;
      element.type = t.element;
      element.bits = t.bits(i);
      out += (i > 0 ? ", " : "") + literals.full(element);
    }
    out += "};\n";
  }
  return out;
}

std::string CudaExprWriter::zero(Type type) {
  ir::Expr z;
  z.kind = ExprKind::Const;
  z.type = type;
  return constant(z).text;
}

CudaExprWriter::Code CudaExprWriter::expr(const ir::Expr& e) {
  switch (e.kind) {
    case ExprKind::Const:
      return constant(e);
    case ExprKind::Var:
      return {names_.at(e.var.index), kPrimary};
    case ExprKind::Unary:
      return unary(e);
    case ExprKind::Binary:
      return binary(e);
    case ExprKind::Select:
      return {at(*e.args[0], kOr) + " ? " + at(*e.args[1], kFull) + " : " + at(*e.args[2], kFull),
              kFull};
    case ExprKind::Cast:
      return cast(e);
    case ExprKind::Load:
      return {at(*e.args[0], kPostfix) + "[" + full(*e.args[1]) + "]", kPostfix};
    case ExprKind::Call:
      if (const std::optional<HelperKind> scan = device_helper(*e.callee)) {
        return helper_call({*scan, Scalar::I64}, e.args);
      }
      throw jit::compile_error("a call to host function '" + e.callee->name +
                               "' cannot run on the GPU");
    case ExprKind::Math:
      return math(e);
    case ExprKind::GpuIndex: {
      static constexpr const char* kBuiltin[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
      return {std::string("(i32)") + kBuiltin[e.op] + "." + "xyz"[e.axis], kUnary};
    }
    case ExprKind::Atomic:
      return atomic(e);
    case ExprKind::Table:
      // The array is const; IR pointers are not.
      return {"((" + cuda_type(e.type) + ")" + tables_.name(e.table) + ")", kPrimary};
  }
  throw jit::compile_error("unknown IR expression kind " +
                           std::to_string(static_cast<int>(e.kind)));
}

CudaExprWriter::Code CudaExprWriter::constant(const ir::Expr& e) {
  const Type t = e.type;
  if (t.is_pointer()) return {"(" + cuda_type(t) + ")0", kUnary};
  if (t.is_bool()) return {e.bits ? "true" : "false", kPrimary};
  if (t.is_float()) {
    const bool f32 = t.scalar() == Scalar::F32;
    const double v = e.float_value();
    if (!std::isfinite(v)) {
      // Infinities and NaNs (with their payloads) by their bits.
      if (f32) return {"__uint_as_float(" + hex(e.bits, 8) + "u)", kPrimary};
      const std::string bits = hex(e.bits, 16) + "ull";
      return {"__longlong_as_double((i64)" + bits + ")", kPrimary};
    }
    std::string text = f32 ? shortest(std::bit_cast<float>(static_cast<std::uint32_t>(e.bits)))
                           : shortest(std::bit_cast<double>(e.bits));
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    if (f32) text += 'f';
    return {text, text[0] == '-' ? kUnary : kPrimary};
  }
  // Integers.
  const std::int64_t v = e.int_value();
  const std::uint64_t u = e.bits;
  switch (t.scalar()) {
    case Scalar::I32:
      if (v == std::numeric_limits<std::int32_t>::min()) return {"(-2147483647 - 1)", kPrimary};
      return {std::to_string(v), v < 0 ? kUnary : kPrimary};
    case Scalar::I64:
      if (v == std::numeric_limits<std::int64_t>::min()) {
        return {"(-9223372036854775807ll - 1)", kPrimary};
      }
      return {std::to_string(v) + "ll", v < 0 ? kUnary : kPrimary};
    case Scalar::U32:
      return {std::to_string(u) + "u", kPrimary};
    case Scalar::U64:
      return {std::to_string(u) + "ull", kPrimary};
    default:  // narrow types: an int literal converted
      return {"(" + cuda_type(t) + ")" + (t.is_signed() ? std::to_string(v) : std::to_string(u)),
              kUnary};
  }
}

CudaExprWriter::Code CudaExprWriter::unary(const ir::Expr& e) {
  const ir::Expr& x = *e.args[0];
  const Type t = e.type;
  // "-" before an operand starting with '-' would read as "--".
  auto prefixed = [&](const char* op) {
    std::string operand = at(x, kUnary);
    if (operand[0] == '-' && op[0] == '-') operand = parens(operand);
    return std::string(op) + operand;
  };
  switch (e.unary_op()) {
    case ir::UnaryOp::Neg:
      if (t.is_float() || is_plain_unsigned(t)) return {prefixed("-"), kUnary};
      return helper_call({HelperKind::Neg, t.scalar()}, {&x});
    case ir::UnaryOp::BitNot:
      if (is_narrow(t)) return {"(" + cuda_type(t) + ")" + prefixed("~"), kUnary};
      return {prefixed("~"), kUnary};
    case ir::UnaryOp::Not:
      return {prefixed("!"), kUnary};
  }
  return {"", kPrimary};
}

CudaExprWriter::Code CudaExprWriter::operator_binary(const ir::Expr& e, const std::string& op,
                                                     int level) {
  auto operand = [&](const ir::Expr& x, int min_level) {
    const Code c = expr(x);
    return needs_clarity(level, c.level) ? parens(c.text) : at(c, min_level);
  };
  return {operand(*e.args[0], level) + " " + op + " " + operand(*e.args[1], level + 1), level};
}

CudaExprWriter::Code CudaExprWriter::binary(const ir::Expr& e) {
  const BinaryOp op = e.binary_op();
  const ir::Expr& a = *e.args[0];
  const ir::Expr& b = *e.args[1];
  const Type t = e.type;
  const std::string symbol(ir::name_of(op));
  const int level = level_of(op);
  // A narrow integer result of a C++ operator is an int: convert it back.
  auto narrowed = [&](Code c) {
    return is_narrow(t) ? Code{"(" + cuda_type(t) + ")" + parens(c.text), kUnary} : c;
  };
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul: {
      if (t.is_pointer() || t.is_float() || is_plain_unsigned(t)) {
        return operator_binary(e, symbol, level);
      }
      const HelperKind kind = op == BinaryOp::Add   ? HelperKind::Add
                              : op == BinaryOp::Sub ? HelperKind::Sub
                                                    : HelperKind::Mul;
      return helper_call({kind, t.scalar()}, {&a, &b});
    }
    case BinaryOp::Div:
      return narrowed(operator_binary(e, symbol, level));
    case BinaryOp::Rem:
      if (t.is_float()) {
        return {std::string(t.scalar() == Scalar::F32 ? "fmodf(" : "fmod(") + full(a) + ", " +
                    full(b) + ")",
                kPrimary};
      }
      return narrowed(operator_binary(e, symbol, level));
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor: {
      const Code c = operator_binary(e, symbol, level);
      if (t.is_bool()) return {"(bool)" + parens(c.text), kUnary};
      return narrowed(c);
    }
    case BinaryOp::Shl:
    case BinaryOp::Shr: {
      const unsigned width = t.bits();
      if (op == BinaryOp::Shl && !is_plain_unsigned(t)) {
        return helper_call({HelperKind::Shl, t.scalar()}, {&a, &b});
      }
      // The count modulo the width (the type of a shift is its left operand's).
      std::string count;
      if (b.kind == ExprKind::Const) {
        count = std::to_string(b.bits & (width - 1));
      } else {
        const std::string suffix = t.is_unsigned() ? (width == 64 ? "ull" : "u") : "";
        count = parens(at(b, kUnary) + " & " + std::to_string(width - 1) + suffix);
      }
      const Code value = expr(a);
      const std::string shifted =
          needs_clarity(kShift, value.level) ? parens(value.text) : at(value, kShift);
      return narrowed({shifted + " " + symbol + " " + count, kShift});
    }
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
    case BinaryOp::And:
    case BinaryOp::Or:
      return operator_binary(e, symbol, level);
  }
  return {"", kPrimary};
}

CudaExprWriter::Code CudaExprWriter::cast(const ir::Expr& e) {
  const ir::Expr& x = *e.args[0];
  const Type to = e.type;
  const Type from = x.type;
  if (to == from) return expr(x);
  const std::string c_cast = "(" + cuda_type(to) + ")";
  if (to.is_bool()) {
    // x != 0; for floats x != 0.0, so NaN is true.
    const std::string zero_text = from.is_float() ? zero(from) : "0";
    return {at(x, kRelational) + " != " + zero_text, kEquality};
  }
  if (from.is_float() && to.is_integer()) {
    return helper_call({HelperKind::SaturateF, to.scalar(), from.scalar()}, {&x});
  }
  return {c_cast + at(x, kUnary), kUnary};
}

CudaExprWriter::Code CudaExprWriter::math(const ir::Expr& e) {
  const MathOp op = e.math_op();
  const Type t = e.type;
  if (op == MathOp::Min || op == MathOp::Max) {
    return helper_call({op == MathOp::Min ? HelperKind::Min : HelperKind::Max, t.scalar()},
                       {e.args[0].get(), e.args[1].get()});
  }
  std::string text = std::string(math_name(op, t.scalar() == Scalar::F32)) + "(";
  for (std::size_t i = 0; i < e.args.size(); ++i) {
    if (i > 0) text += ", ";
    text += full(*e.args[i]);
  }
  return {text + ")", kPrimary};
}

std::string CudaExprWriter::element_address(const ir::Expr& pointer, const ir::Expr& index) {
  return "&" + at(pointer, kPostfix) + "[" + full(index) + "]";
}

// CUDA's atomics take int, unsigned int, unsigned long long, float and double
// (add) operands; i64 goes through unsigned long long (two's complement makes
// add, exchange and compare-and-swap the same) except for min and max, which
// have long long overloads; an f64 exchange goes through its bits.
CudaExprWriter::Code CudaExprWriter::atomic(const ir::Expr& e) {
  const AtomicOp op = e.atomic_op();
  const Type t = e.type;
  const std::string name = atomic_name(op);
  const std::string address = element_address(*e.args[0], *e.args[1]);
  std::vector<std::string> values;
  for (std::size_t i = 2; i < e.args.size(); ++i) values.push_back(full(*e.args[i]));
  auto call = [&](const std::string& target, const std::vector<std::string>& args) {
    std::string text = name + "(" + target;
    for (const std::string& a : args) text += ", " + a;
    return text + ")";
  };
  const bool via_u64 = t.scalar() == Scalar::I64 && op != AtomicOp::Min && op != AtomicOp::Max;
  if (via_u64) {
    std::vector<std::string> as_u64;
    for (std::size_t i = 2; i < e.args.size(); ++i)
      as_u64.push_back("(u64)" + at(*e.args[i], kUnary));
    return {"(i64)" + call("(u64*)" + address, as_u64), kUnary};
  }
  if (t.scalar() == Scalar::F64 && op == AtomicOp::Exchange) {
    return {"__longlong_as_double((i64)" +
                call("(u64*)" + address, {"(u64)__double_as_longlong(" + values[0] + ")"}) + ")",
            kPrimary};
  }
  return {call(address, values), kPrimary};
}

CudaExprWriter::Code CudaExprWriter::helper_call(Helper h,
                                                 std::initializer_list<const ir::Expr*> args) {
  helpers_.insert(h);
  std::string text = helper_name(h) + "(";
  bool first = true;
  for (const ir::Expr* a : args) {
    if (!first) text += ", ";
    first = false;
    text += full(*a);
  }
  return {text + ")", kPrimary};
}

CudaExprWriter::Code CudaExprWriter::helper_call(Helper h, const std::vector<ir::ExprPtr>& args) {
  helpers_.insert(h);
  std::string text = helper_name(h) + "(";
  for (std::size_t i = 0; i < args.size(); ++i) text += (i > 0 ? ", " : "") + full(*args[i]);
  return {text + ")", kPrimary};
}

}  // namespace augur::gpu
