#include "bench/compile/ir_to_c.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace augur::bench {

std::string c_type(ir::Type type) {
  static constexpr const char* kScalars[] = {"void",     "_Bool",    "int8_t",  "int16_t",
                                             "int32_t",  "int64_t",  "uint8_t", "uint16_t",
                                             "uint32_t", "uint64_t", "float",   "double"};
  std::string name = kScalars[static_cast<int>(type.scalar())];
  return type.is_pointer() ? name + "*" : name;
}

namespace {

using ir::BinaryOp;
using ir::ExprKind;
using ir::StmtKind;

[[noreturn]] void unsupported(const std::string& what) {
  throw std::invalid_argument("ir_to_c: " + what + " is outside the printable subset");
}

class Printer {
 public:
  explicit Printer(const ir::Function& function) : function_(function) {}

  std::string function() {
    if (function_.kernel) unsupported("a kernel");
    out_ += c_type(function_.ret) + " " + function_.name + "(";
    for (std::uint32_t i = 0; i < function_.num_params; ++i) {
      if (i > 0) out_ += ", ";
      out_ += c_type(function_.vars[i].type) + " " + var(ir::VarId{i});
    }
    out_ += ") ";
    block(function_.body, 0);
    out_ += "\n";
    return std::move(out_);
  }

 private:
  // IR names may hold '.' (staging's suffix for repeated user names): the
  // index keeps the C name unique once it is replaced.
  std::string var(ir::VarId id) const {
    std::string name = function_.var(id).name;
    std::replace(name.begin(), name.end(), '.', '_');
    return "v" + std::to_string(id.index) + "_" + name;
  }

  static std::string constant(const ir::Expr& e) {
    if (e.type.is_pointer()) return "((" + c_type(e.type) + ")0)";
    if (e.type.is_bool()) return e.bits ? "1" : "0";
    if (e.type.is_float()) {
      const double value = e.float_value();
      std::string text;
      if (std::isnan(value)) {
        text = "__builtin_nan(\"\")";
      } else if (std::isinf(value)) {
        text = value > 0 ? "__builtin_inf()" : "(-__builtin_inf())";
      } else {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%a", value);
        text = buffer;
      }
      return "((" + c_type(e.type) + ")" + text + ")";
    }
    return "((" + c_type(e.type) + ")" + std::to_string(e.bits) + "ull)";
  }

  // An arithmetic result, cast back to its IR type (C promotes small integers).
  static std::string typed(ir::Type type, const std::string& value) {
    return "((" + c_type(type) + ")(" + value + "))";
  }

  std::string binary(const ir::Expr& e) {
    const std::string a = expr(*e.args[0]);
    const std::string b = expr(*e.args[1]);
    const BinaryOp op = e.binary_op();
    if (op == BinaryOp::Shl || op == BinaryOp::Shr) {
      const std::string mask = std::to_string(e.type.bits() - 1);
      return typed(e.type, a + (op == BinaryOp::Shl ? " << (" : " >> (") + b + " & " + mask + ")");
    }
    const std::string applied = a + " " + std::string(ir::name_of(op)) + " " + b;
    return ir::is_comparison(op) || op == BinaryOp::And || op == BinaryOp::Or
               ? "(" + applied + ")"
               : typed(e.type, applied);
  }

  std::string math(const ir::Expr& e) {
    const bool single = e.type.scalar() == ir::Scalar::F32;
    auto call = [&](std::string name) {
      std::string text = name + (single ? "f(" : "(");
      for (std::size_t i = 0; i < e.args.size(); ++i) text += (i ? ", " : "") + expr(*e.args[i]);
      return text + ")";
    };
    switch (e.math_op()) {
      case ir::MathOp::Min:
      case ir::MathOp::Max: {
        const bool min = e.math_op() == ir::MathOp::Min;
        if (e.type.is_float()) return call(min ? "fmin" : "fmax");
        const std::string a = expr(*e.args[0]), b = expr(*e.args[1]);
        return "(" + a + (min ? " < " : " > ") + b + " ? " + a + " : " + b + ")";
      }
      default:
        return call(std::string(ir::name_of(e.math_op())));
    }
  }

  // A C99 compound literal: an array with static storage in the function.
  std::string table(const ir::Expr& e) {
    const ir::TableData& t = *e.table;
    std::string out = "((" + c_type(e.type) + ")(const " + c_type(t.element) + "[]){";
    for (std::size_t i = 0; i < t.size(); ++i) {
      ir::Expr element;
      element.kind = ExprKind::Const;
      element.type = t.element;
      element.bits = t.bits(i);
      out += (i > 0 ? ", " : "") + constant(element);
    }
    return out + "})";
  }

  std::string expr(const ir::Expr& e) {
    switch (e.kind) {
      case ExprKind::Const:
        return constant(e);
      case ExprKind::Var:
        return var(e.var);
      case ExprKind::Unary:
        return typed(e.type, std::string(ir::name_of(e.unary_op())) + expr(*e.args[0]));
      case ExprKind::Binary:
        return binary(e);
      case ExprKind::Select:
        return "(" + expr(*e.args[0]) + " ? " + expr(*e.args[1]) + " : " + expr(*e.args[2]) + ")";
      case ExprKind::Cast:
        return typed(e.type, expr(*e.args[0]));
      case ExprKind::Load:
        return "(" + expr(*e.args[0]) + "[" + expr(*e.args[1]) + "])";
      case ExprKind::Math:
        return math(e);
      case ExprKind::Table:
        return table(e);
      case ExprKind::Call:
      case ExprKind::GpuIndex:
      case ExprKind::Atomic:
        break;
    }
    unsupported("a call, atomic or GPU intrinsic");
  }

  // A statement that fits in a for header: no trailing semicolon.
  std::string simple(const ir::Stmt& s) {
    switch (s.kind) {
      case StmtKind::Decl: {
        const ir::Variable& v = function_.var(s.var);
        if (v.kind == ir::VarKind::Shared) unsupported("a shared array");
        return c_type(v.type) + " " + var(s.var) + " = " + (s.expr ? expr(*s.expr) : "0");
      }
      case StmtKind::Assign:
        return var(s.var) + " = " + expr(*s.expr);
      case StmtKind::Store:
        return expr(*s.ptr) + "[" + expr(*s.index) + "] = " + expr(*s.expr);
      case StmtKind::Eval:
        return "(void)" + expr(*s.expr);
      default:
        unsupported("a compound statement in a for header");
    }
  }

  void block(const ir::Block& statements, int depth) {
    out_ += "{\n";
    for (const ir::Stmt& s : statements) statement(s, depth + 1);
    out_ += std::string(2 * depth, ' ') + "}";
  }

  void statement(const ir::Stmt& s, int depth) {
    out_ += std::string(2 * depth, ' ');
    switch (s.kind) {
      case StmtKind::If:
        out_ += "if (" + expr(*s.expr) + ") ";
        block(s.body, depth);
        if (!s.orelse.empty()) {
          out_ += " else ";
          block(s.orelse, depth);
        }
        break;
      case StmtKind::While:
        out_ += "while (" + expr(*s.expr) + ") ";
        block(s.body, depth);
        break;
      case StmtKind::For:
        out_ += "for (" + (s.init.empty() ? "" : simple(s.init[0])) + "; " +
                (s.expr ? expr(*s.expr) : "") + "; " + (s.step.empty() ? "" : simple(s.step[0])) +
                ") ";
        block(s.body, depth);
        break;
      case StmtKind::Break:
        out_ += "break;";
        break;
      case StmtKind::Continue:
        out_ += "continue;";
        break;
      case StmtKind::Return:
        out_ += s.expr ? "return " + expr(*s.expr) + ";" : "return;";
        break;
      case StmtKind::Barrier:
        unsupported("a barrier");
      default:
        out_ += simple(s) + ";";
    }
    out_ += "\n";
  }

  const ir::Function& function_;
  std::string out_;
};

}  // namespace

std::string ir_to_c(const ir::Module& module) {
  std::string c = "#include <math.h>\n#include <stdint.h>\n\n";
  for (const ir::Function& function : module.functions) c += Printer(function).function();
  return c;
}

}  // namespace augur::bench
