#include "runtime/ir/verifier.h"

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/ir/flow.h"
#include "runtime/ir/names.h"

namespace augur::ir {

namespace {

// Collects every problem (check) or throws the first one (verify), so verify()
// stops at once and both report exactly the same errors.
class Reporter {
 public:
  explicit Reporter(std::vector<jit::verify_error>* sink) : sink_(sink) {}

  void report(std::string message, jit::location where = {}) {
    jit::verify_error error(std::move(message), std::move(where));
    if (sink_ == nullptr) throw error;
    sink_->push_back(std::move(error));
  }

 private:
  std::vector<jit::verify_error>* sink_;  // null: throw
};

std::string quoted(std::string_view name) {
  return "'" + std::string(name) + "'";
}

// Types a program may state: not a pointer to void, scalars within the enum.
bool well_formed(Type type) {
  return type.scalar() <= Scalar::F64 && !(type.is_pointer() && type.scalar() == Scalar::Void);
}

std::string signature(const ExternFn& fn) {
  std::string out = "(";
  for (std::size_t i = 0; i < fn.params.size(); ++i) {
    if (i > 0) out += ", ";
    out += fn.params[i].name();
  }
  return out + ") -> " + fn.ret.name() + " " + std::string(name_of(fn.effect));
}

// Module::find_extern, tolerating the null entries a broken module may have.
const ExternFn* find_extern(const Module& module, std::string_view name) {
  for (const ExternRef& fn : module.externs) {
    if (fn && fn->name == name) return fn.get();
  }
  return nullptr;
}

bool is_simple(StmtKind kind) {
  return kind == StmtKind::Decl || kind == StmtKind::Assign || kind == StmtKind::Store ||
         kind == StmtKind::Eval;
}

// Number of operands each expression kind has; Call and Math/Atomic vary.
std::size_t fixed_arity(ExprKind kind) {
  switch (kind) {
    case ExprKind::Const:
    case ExprKind::Var:
    case ExprKind::GpuIndex:
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

class FunctionVerifier {
 public:
  FunctionVerifier(const Module& module, const Function& fn, Reporter& reporter)
      : module_(module), fn_(fn), reporter_(reporter), state_(fn.vars.size(), State::Undeclared) {}

  void run() {
    if (!check_signature()) return;
    check_block(fn_.body, "body");
    for (std::size_t i = fn_.num_params; i < fn_.vars.size(); ++i) {
      if (state_[i] == State::Undeclared) {
        report("variable " + quoted(fn_.vars[i].name) + " is never declared");
      }
    }
    if (!fn_.ret.is_void() && can_fall_through(fn_.body)) {
      report("function returning " + fn_.ret.name() +
             " can reach its end without returning a value");
    }
  }

 private:
  enum class State : std::uint8_t { Undeclared, InScope, OutOfScope };

  struct Segment {
    std::string_view block;
    std::size_t index;
  };

  // ------------------------------------------------------------ reporting

  std::string path() const {
    std::string out;
    for (const Segment& s : path_) {
      if (!out.empty()) out += '.';
      out += s.block;
      out += '[' + std::to_string(s.index) + ']';
    }
    return out;
  }

  void report(std::string message) {
    reporter_.report(std::move(message), jit::location::in_function(fn_.name, path()));
  }

  // ------------------------------------------------------------ signature and variables

  bool check_signature() {
    if (std::string e = global_name_error(fn_.name); !e.empty()) {
      report("function name " + quoted(fn_.name) + " " + e);
    }
    if (!well_formed(fn_.ret)) report("return type " + fn_.ret.name() + " is not a valid type");
    if (fn_.kernel && !fn_.ret.is_void()) {
      report("a kernel must return void, not " + fn_.ret.name());
    }
    if (fn_.num_params > fn_.vars.size()) {
      report("function has " + std::to_string(fn_.num_params) + " parameters but only " +
             std::to_string(fn_.vars.size()) + " variables");
      return false;
    }
    for (std::size_t i = 0; i < fn_.vars.size(); ++i) {
      const Variable& v = fn_.vars[i];
      const bool is_param = i < fn_.num_params;
      if (is_param != (v.kind == VarKind::Param)) {
        report(std::string(is_param ? "parameter " : "local ") + quoted(v.name) +
               (is_param ? " is not of kind Param" : " has kind Param after the parameters"));
      }
      if (!is_param) continue;
      check_variable_name(i, "parameter");
      if (!v.type.is_value() || !well_formed(v.type)) {
        report("parameter " + quoted(v.name) + " cannot have type " + v.type.name());
      }
      state_[i] = State::InScope;
    }
    return true;
  }

  // Reports a malformed name, or a name a parameter or an already declared variable has.
  void check_variable_name(std::size_t index, std::string_view what) {
    const Variable& v = fn_.vars[index];
    if (std::string e = variable_name_error(v.name); !e.empty()) {
      report(std::string(what) + " name " + quoted(v.name) + " " + e);
    }
    // Names stay taken after their scope ends: they are unique in the whole function.
    if (!taken_names_.insert(v.name).second) {
      report("the name " + quoted(v.name) + " is already taken by another variable");
    }
  }

  bool in_range(VarId var) {
    if (var.valid() && var.index < fn_.vars.size()) return true;
    report(var.valid() ? "variable #" + std::to_string(var.index) + " is out of range (" +
                             std::to_string(fn_.vars.size()) + " variables)"
                       : "missing variable");
    return false;
  }

  // Whether `var` may be used here; `use` is "used" or "assigned" for the message.
  bool visible(VarId var, std::string_view use) {
    if (!in_range(var)) return false;
    const std::string name = quoted(fn_.var(var).name);
    switch (state_[var.index]) {
      case State::InScope:
        return true;
      case State::Undeclared:
        report("variable " + name + " " + std::string(use) + " before its declaration");
        return false;
      case State::OutOfScope:
        report("variable " + name + " " + std::string(use) + " outside its scope");
        return false;
    }
    return false;
  }

  void declare(VarId var) {
    state_[var.index] = State::InScope;
    scopes_.back().push_back(var.index);
  }

  // ------------------------------------------------------------ statements

  void check_block(const Block& block, std::string_view segment) {
    scopes_.emplace_back();
    for (std::size_t i = 0; i < block.size(); ++i) {
      path_.push_back({segment, i});
      check_stmt(block[i]);
      path_.pop_back();
    }
    close_scope();
  }

  void close_scope() {
    for (std::uint32_t index : scopes_.back()) state_[index] = State::OutOfScope;
    scopes_.pop_back();
  }

  void check_stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Decl:
        return check_decl(s);
      case StmtKind::Assign:
        return check_assign(s);
      case StmtKind::Store:
        return check_store(s);
      case StmtKind::Eval:
        if (!check_expr(s.expr, "expression statement")) return;
        if (s.expr->kind != ExprKind::Call && s.expr->kind != ExprKind::Atomic) {
          // A value computed and dropped has no effect: almost surely a staging bug.
          report("an expression statement must be a call or an atomic; its value would be unused");
        }
        return;
      case StmtKind::If:
        check_condition(s.expr, "if");
        check_block(s.body, "then");
        check_block(s.orelse, "else");
        return;
      case StmtKind::While:
        check_condition(s.expr, "while");
        check_loop_body(s.body);
        return;
      case StmtKind::For:
        return check_for(s);
      case StmtKind::Break:
      case StmtKind::Continue:
        if (loop_depth_ == 0) report(std::string(name_of(s.kind)) + " outside a loop");
        return;
      case StmtKind::Return:
        return check_return(s);
      case StmtKind::Barrier:
        if (!fn_.kernel) report("barrier outside a kernel");
        return;
    }
    report("unknown statement kind " + std::to_string(static_cast<int>(s.kind)));
  }

  void check_decl(const Stmt& s) {
    if (!in_range(s.var)) return;
    const Variable& v = fn_.var(s.var);
    if (v.kind == VarKind::Param) {
      report("parameter " + quoted(v.name) + " cannot be declared again");
      return;
    }
    if (state_[s.var.index] != State::Undeclared) {
      report("variable " + quoted(v.name) + " is declared twice");
      return;
    }
    if (v.kind == VarKind::Shared) {
      check_shared_decl(s, v);
    } else {
      check_variable_name(s.var.index, "variable");
      if (!v.type.is_value() || !well_formed(v.type)) {
        report("variable " + quoted(v.name) + " cannot have type " + v.type.name());
      }
      // The initializer is checked before the variable comes into scope: `var x = x;` is an error.
      if (s.expr && check_expr(s.expr, "initializer") && s.expr->type != v.type) {
        report("variable " + quoted(v.name) + " is " + v.type.name() + " but its initializer is " +
               s.expr->type.name());
      }
    }
    declare(s.var);
  }

  void check_shared_decl(const Stmt& s, const Variable& v) {
    check_variable_name(s.var.index, "shared array");
    const std::string name = quoted(v.name);
    if (!fn_.kernel) {
      report("shared array " + name + " declared outside a kernel");
    } else if (path_.size() != 1) {
      report("shared array " + name + " must be declared at the kernel's top level");
    }
    if (!v.type.is_pointer() || !well_formed(v.type)) {
      report("shared array " + name + " must have a pointer type, not " + v.type.name());
    }
    if (v.shared_count == 0) report("shared array " + name + " needs a positive element count");
    if (s.expr) report("shared array " + name + " cannot have an initializer");
  }

  void check_assign(const Stmt& s) {
    const bool target_ok = visible(s.var, "assigned");
    const bool value_ok = check_expr(s.expr, "assigned value");
    if (!target_ok) return;
    const Variable& v = fn_.var(s.var);
    if (v.kind == VarKind::Shared) {
      report("shared array " + quoted(v.name) + " cannot be assigned");
    } else if (value_ok && s.expr->type != v.type) {
      report("cannot assign " + s.expr->type.name() + " to variable " + quoted(v.name) +
             " of type " + v.type.name());
    }
  }

  void check_store(const Stmt& s) {
    const bool ptr_ok = check_expr(s.ptr, "store pointer");
    const bool index_ok = check_expr(s.index, "store index");
    const bool value_ok = check_expr(s.expr, "stored value");
    if (!ptr_ok || !index_ok) return;
    const TypeCheck target = check_load(s.ptr->type, s.index->type);
    if (!target.error.empty()) {
      report("store: " + target.error);
    } else if (value_ok && s.expr->type != target.type) {
      report("cannot store " + s.expr->type.name() + " into an element of " + s.ptr->type.name());
    }
  }

  void check_condition(const ExprPtr& cond, std::string_view stmt) {
    if (!cond) {
      report("missing " + std::string(stmt) + " condition");
    } else if (check_expr(cond, "condition") && !cond->type.is_bool()) {
      report(std::string(stmt) + " condition must be bool, not " + cond->type.name());
    }
  }

  void check_loop_body(const Block& body) {
    ++loop_depth_;
    check_block(body, "body");
    --loop_depth_;
  }

  // Checks the init or step of a for: at most one simple statement.
  void check_for_clause(const Block& clause, std::string_view segment) {
    const std::string what = "a for " + std::string(segment);
    if (clause.size() > 1) {
      report(what + " holds at most one statement, not " + std::to_string(clause.size()));
    }
    for (std::size_t i = 0; i < clause.size(); ++i) {
      path_.push_back({segment, i});
      const Stmt& s = clause[i];
      if (!is_simple(s.kind)) {
        report(what + " must be a var, assignment, store or call, not " +
               std::string(name_of(s.kind)));
      } else if (segment == "step" && s.kind == StmtKind::Decl) {
        report("a for step cannot declare a variable");
      } else {
        check_stmt(s);
      }
      path_.pop_back();
    }
  }

  void check_for(const Stmt& s) {
    scopes_.emplace_back();  // a var declared in init is visible in the whole loop only
    check_for_clause(s.init, "init");
    check_condition(s.expr, "for");
    check_for_clause(s.step, "step");
    check_loop_body(s.body);
    close_scope();
  }

  void check_return(const Stmt& s) {
    if (fn_.ret.is_void()) {
      if (s.expr) {
        report(std::string(fn_.kernel ? "a kernel" : "a void function") + " cannot return a value");
        check_expr(s.expr, "returned value");
      }
      return;
    }
    if (!s.expr) {
      report("function returning " + fn_.ret.name() + " must return a value");
    } else if (check_expr(s.expr, "returned value") && s.expr->type != fn_.ret) {
      report("returns " + s.expr->type.name() + " from a function returning " + fn_.ret.name());
    }
  }

  // ------------------------------------------------------------ expressions

  // Checks `e` and its operands. Returns whether e->type can be trusted; when an
  // operand is broken, the node's own typing is not checked, so one mistake
  // gives one message.
  bool check_expr(const ExprPtr& e, std::string_view what) {
    if (!e) {
      report("missing " + std::string(what));
      return false;
    }
    if (const std::size_t n = fixed_arity(e->kind); n != ~std::size_t{0} && e->args.size() != n) {
      report(kind_name(*e) + " has " + std::to_string(e->args.size()) + " operands, not " +
             std::to_string(n));
      return false;
    }
    if (static_cast<int>(e->op) > max_op(e->kind)) {
      report(kind_name(*e) + " has an unknown operator " + std::to_string(e->op));
      return false;
    }
    bool operands_ok = true;
    for (const ExprPtr& arg : e->args) {
      if (!arg) {
        report("missing operand of " + kind_name(*e));
        operands_ok = false;
      } else {
        operands_ok = check_expr(arg, "operand") && operands_ok;
      }
    }
    return operands_ok && check_node(*e);
  }

  static std::string kind_name(const Expr& e) {
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
      case ExprKind::Atomic:
        return std::string(name_of(e.atomic_op()));
    }
    return "expression of unknown kind " + std::to_string(static_cast<int>(e.kind));
  }

  // The node's own rules, its operands being well-typed.
  bool check_node(const Expr& e) {
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
      case ExprKind::Atomic:
        return typed(e, check_atomic(e.atomic_op(), types));
    }
    report(kind_name(e));
    return false;
  }

  // Reports a typing error, or a stated type that differs from the computed one.
  bool typed(const Expr& e, const TypeCheck& check) {
    if (!check.error.empty()) {
      report(check.error);
      return false;
    }
    if (check.type != e.type) {
      report(kind_name(e) + " is marked " + e.type.name() + " but its operands make it " +
             check.type.name());
      return false;
    }
    return true;
  }

  bool check_const(const Expr& e) {
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

  bool check_read(const Expr& e) {
    if (!visible(e.var, "used")) return false;
    const Variable& v = fn_.var(e.var);
    if (e.type != v.type) {
      report("read of variable " + quoted(v.name) + " is marked " + e.type.name() +
             " but the variable is " + v.type.name());
      return false;
    }
    return true;
  }

  bool check_call_expr(const Expr& e, std::span<const Type> types) {
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

  bool check_gpu_index(const Expr& e) {
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

  const Module& module_;
  const Function& fn_;
  Reporter& reporter_;
  std::vector<State> state_;                          // by variable index
  std::unordered_set<std::string_view> taken_names_;  // of parameters and declared variables
  std::vector<std::vector<std::uint32_t>> scopes_;    // variables each open block declared
  std::vector<Segment> path_;
  unsigned loop_depth_ = 0;
};

void check_externs(const Module& module, Reporter& reporter) {
  for (std::size_t i = 0; i < module.externs.size(); ++i) {
    const ExternRef& fn = module.externs[i];
    if (!fn) {
      reporter.report("extern #" + std::to_string(i) + " is missing");
      continue;
    }
    const std::string name = quoted(fn->name);
    if (std::string e = global_name_error(fn->name); !e.empty()) {
      reporter.report("extern name " + name + " " + e);
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (module.externs[j] && module.externs[j]->name == fn->name) {
        reporter.report("extern " + name + " is declared twice");
        break;
      }
    }
    if (!well_formed(fn->ret)) {
      reporter.report("extern " + name + " returns an invalid type " + fn->ret.name());
    }
    for (std::size_t p = 0; p < fn->params.size(); ++p) {
      if (!fn->params[p].is_value() || !well_formed(fn->params[p])) {
        reporter.report("parameter " + std::to_string(p + 1) + " of extern " + name +
                        " cannot have type " + fn->params[p].name());
      }
    }
  }
}

void check_module(const Module& module, Reporter& reporter) {
  check_externs(module, reporter);
  for (std::size_t i = 0; i < module.functions.size(); ++i) {
    const Function& fn = module.functions[i];
    const jit::location where = jit::location::in_function(fn.name);
    for (std::size_t j = 0; j < i; ++j) {
      if (module.functions[j].name == fn.name) {
        reporter.report("function " + quoted(fn.name) + " is defined twice", where);
        break;
      }
    }
    if (find_extern(module, fn.name)) {
      reporter.report("function " + quoted(fn.name) + " has the name of an extern", where);
    }
    FunctionVerifier(module, fn, reporter).run();
  }
}

}  // namespace

std::vector<jit::verify_error> check(const Module& module) {
  std::vector<jit::verify_error> errors;
  Reporter reporter(&errors);
  check_module(module, reporter);
  return errors;
}

void verify(const Module& module) {
  Reporter reporter(nullptr);
  check_module(module, reporter);
}

}  // namespace augur::ir
