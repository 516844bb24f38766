#include "runtime/ir/printer.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include "runtime/ir/literal.h"
#include "runtime/ir/precedence.h"

namespace augur::ir {

namespace {

// Writes one function's statements and expressions. IR that does not verify is
// printed as well as it can be (with <...> placeholders), for diagnostics.
class Printer {
 public:
  Printer(const Function& function, std::string& out) : fn_(function), out_(out) {}

  void function() {
    if (fn_.kernel) out_ += "kernel ";
    out_ += "fn " + fn_.name + "(";
    for (std::uint32_t i = 0; i < fn_.num_params && i < fn_.vars.size(); ++i) {
      if (i > 0) out_ += ", ";
      out_ += fn_.vars[i].name + ": " + fn_.vars[i].type.name();
    }
    out_ += ") -> " + fn_.ret.name() + " {\n";
    block(fn_.body, 1);
    out_ += "}\n";
  }

  void expr(const ExprPtr& e, int min_level) { expr(e.get(), min_level); }

  // Iterative, over a list of pieces still to write: expressions may be tall.
  void expr(const Expr* e, int min_level) {
    std::vector<Piece> todo{Piece::expr(e, min_level)};
    while (!todo.empty()) {
      const Piece p = todo.back();
      todo.pop_back();
      switch (p.kind) {
        case Piece::Kind::Text:
          out_ += p.text;
          break;
        case Piece::Kind::Expr:
          if (!p.e) {
            out_ += "<null>";
            break;
          }
          if (precedence(*p.e) < p.level) {
            out_ += '(';
            todo.push_back(Piece::words(")"));
          }
          todo.push_back(Piece::bare(*p.e));
          break;
        case Piece::Kind::Bare:
          operand_free(*p.e);
          todo.insert(todo.end(), then_.rbegin(), then_.rend());
          then_.clear();
          break;
      }
    }
  }

 private:
  void indent(int depth) { out_.append(static_cast<std::size_t>(depth) * 2, ' '); }

  void var_name(VarId id) {
    if (id.index < fn_.vars.size()) {
      out_ += fn_.vars[id.index].name;
    } else {
      out_ += "<var " + std::to_string(id.index) + ">";
    }
  }

  void block(const Block& stmts, int depth) {
    for (const Stmt& s : stmts) stmt(s, depth);
  }

  void stmt(const Stmt& s, int depth) {
    indent(depth);
    switch (s.kind) {
      case StmtKind::If:
        if_chain(s, depth);
        return;
      case StmtKind::While:
        out_ += "while (";
        expr(s.expr, kLoosest);
        out_ += ") {\n";
        break;
      case StmtKind::For:
        out_ += "for (";
        simple_list(s.init);
        out_ += "; ";
        expr(s.expr, kLoosest);
        out_ += ";";
        if (!s.step.empty()) out_ += ' ';
        simple_list(s.step);
        out_ += ") {\n";
        break;
      case StmtKind::Break:
      case StmtKind::Continue:
        out_ += name_of(s.kind);
        if (s.levels != 1) out_ += ' ' + std::to_string(s.levels);
        out_ += ";\n";
        return;
      case StmtKind::Barrier:
        out_ += std::string(name_of(s.kind)) + ";\n";
        return;
      case StmtKind::Return:
        out_ += "return";
        if (s.expr) {
          out_ += ' ';
          expr(s.expr, kLoosest);
        }
        out_ += ";\n";
        return;
      default:
        simple(s);
        out_ += ";\n";
        return;
    }
    block(s.body, depth + 1);
    indent(depth);
    out_ += "}\n";
  }

  // if (...) { } else if (...) { } else { }: an else block holding exactly one
  // `if` continues the chain, iteratively so that long chains use no stack.
  void if_chain(const Stmt& first, int depth) {
    const Stmt* s = &first;
    while (true) {
      out_ += "if (";
      expr(s->expr, kLoosest);
      out_ += ") {\n";
      block(s->body, depth + 1);
      indent(depth);
      out_ += '}';
      if (s->orelse.size() == 1 && s->orelse[0].kind == StmtKind::If) {
        out_ += " else ";
        s = &s->orelse[0];
        continue;
      }
      if (!s->orelse.empty()) {
        out_ += " else {\n";
        block(s->orelse, depth + 1);
        indent(depth);
        out_ += '}';
      }
      out_ += '\n';
      return;
    }
  }

  // A statement allowed in a `for` header, without its ';'.
  void simple(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Decl:
        declaration(s);
        return;
      case StmtKind::Assign:
        var_name(s.var);
        out_ += " = ";
        expr(s.expr, kLoosest);
        return;
      case StmtKind::Store:
        expr(s.ptr, kPostfix);
        out_ += '[';
        expr(s.index, kLoosest);
        out_ += "] = ";
        expr(s.expr, kLoosest);
        return;
      case StmtKind::Eval:
        expr(s.expr, kLoosest);
        return;
      default:
        out_ += "<" + std::string(name_of(s.kind)) + ">";
        return;
    }
  }

  void simple_list(const Block& stmts) {
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      if (i > 0) out_ += ", ";
      simple(stmts[i]);
    }
  }

  void declaration(const Stmt& s) {
    const Variable* v = s.var.index < fn_.vars.size() ? &fn_.vars[s.var.index] : nullptr;
    if (v && v->kind == VarKind::Shared) {
      out_ += "shared " + v->name + ": " + v->type.pointee().name() + "[" +
              std::to_string(v->shared_count) + "]";
      return;
    }
    out_ += "var ";
    var_name(s.var);
    out_ += ": " + (v ? v->type.name() : std::string("<unknown>"));
    if (s.expr) {
      out_ += " = ";
      expr(s.expr, kLoosest);
    }
  }

  // What expr() writes: text, an expression (parenthesized below `level`),
  // or an expression without surrounding parentheses.
  struct Piece {
    enum class Kind : std::uint8_t { Text, Expr, Bare };
    Kind kind;
    const Expr* e = nullptr;
    int level = 0;
    std::string_view text;

    static Piece words(std::string_view t) { return {Kind::Text, nullptr, 0, t}; }
    static Piece expr(const Expr* e, int level) { return {Kind::Expr, e, level, {}}; }
    static Piece bare(const Expr& e) { return {Kind::Bare, &e, 0, {}}; }
  };

  void then(Piece p) { then_.push_back(p); }

  void arguments(const std::vector<ExprPtr>& args) {
    out_ += '(';
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (i > 0) then(Piece::words(", "));
      then(Piece::expr(args[i].get(), kLoosest));
    }
    then(Piece::words(")"));
  }

  // table u8 [1u8, 2u8, 3u8]
  void table(const Expr& e) {
    if (!e.table) {
      out_ += "<table without data>";
      return;
    }
    const TableData& t = *e.table;
    out_ += "table " + t.element.name() + " [";
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (i > 0) out_ += ", ";
      out_ += format_constant(t.element, t.bits(i));
    }
    out_ += ']';
  }

  static const Expr* arg(const Expr& e, std::size_t i) {
    return i < e.args.size() ? e.args[i].get() : nullptr;
  }

  // The expression without surrounding parentheses: what comes before its
  // first operand is written now, the rest goes to then_, in reading order.
  void operand_free(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Const:
        out_ += format_constant(e);
        return;
      case ExprKind::Var:
        var_name(e.var);
        return;
      case ExprKind::Unary: {
        out_ += name_of(e.unary_op());
        const Expr* operand = arg(e, 0);
        // A '-' directly before a literal would be read as the literal's sign.
        if (e.unary_op() == UnaryOp::Neg && operand && operand->kind == ExprKind::Const) {
          out_ += '(' + format_constant(*operand) + ')';
        } else {
          then(Piece::expr(operand, kPrefix));
        }
        return;
      }
      case ExprKind::Binary: {
        const int level = precedence(e);
        then(Piece::expr(arg(e, 0), level));
        then(Piece::words(" "));
        then(Piece::words(name_of(e.binary_op())));
        then(Piece::words(" "));
        then(Piece::expr(arg(e, 1), level + 1));
        return;
      }
      case ExprKind::Select:
        then(Piece::expr(arg(e, 0), kSelect + 1));
        then(Piece::words(" ? "));
        then(Piece::expr(arg(e, 1), kSelect));
        then(Piece::words(" : "));
        then(Piece::expr(arg(e, 2), kSelect));
        return;
      case ExprKind::Cast:
        out_ += e.type.name();
        arguments(e.args);
        return;
      case ExprKind::Load:
        then(Piece::expr(arg(e, 0), kPostfix));
        then(Piece::words("["));
        then(Piece::expr(arg(e, 1), kLoosest));
        then(Piece::words("]"));
        return;
      case ExprKind::Call:
        out_ += "@" + (e.callee ? e.callee->name : std::string("<null>"));
        arguments(e.args);
        return;
      case ExprKind::Math:
        out_ += name_of(e.math_op());
        arguments(e.args);
        return;
      case ExprKind::GpuIndex:
        out_ += std::string(name_of(e.gpu_index())) + "." + std::string(1, "xyz"[e.axis % 3]);
        return;
      case ExprKind::Atomic:
        out_ += name_of(e.atomic_op());
        arguments(e.args);
        return;
      case ExprKind::Table:
        table(e);
        return;
    }
  }

  const Function& fn_;
  std::string& out_;
  std::vector<Piece> then_;  // operand_free's pieces after its first operand
};

void print_extern(const ExternFn& decl, std::string& out) {
  out += "extern fn " + decl.name + "(";
  for (std::size_t i = 0; i < decl.params.size(); ++i) {
    if (i > 0) out += ", ";
    out += decl.params[i].name();
  }
  out += ") -> " + decl.ret.name() + " " + std::string(name_of(decl.effect)) + ";\n";
}

}  // namespace

std::string print(const Module& module) {
  std::string out;
  for (const ExternRef& decl : module.externs) {
    if (decl) print_extern(*decl, out);
  }
  for (const Function& f : module.functions) {
    if (!out.empty()) out += '\n';
    Printer(f, out).function();
  }
  return out;
}

std::string print(const Function& function) {
  std::string out;
  Printer(function, out).function();
  return out;
}

std::string print(const Expr& expr, const Function& function) {
  std::string out;
  Printer(function, out).expr(&expr, kLoosest);
  return out;
}

}  // namespace augur::ir
