#include <string>

#include "runtime/ir/flow.h"
#include "runtime/ir/names.h"
#include "runtime/ir/verify_function.h"
#include "runtime/ir/visit.h"

namespace augur::ir::verifier_detail {

namespace {

bool is_simple(StmtKind kind) {
  return kind == StmtKind::Decl || kind == StmtKind::Assign || kind == StmtKind::Store ||
         kind == StmtKind::Eval;
}

}  // namespace

void FunctionVerifier::run() {
  if (!check_signature()) return;
  // Checked first, without recursion: the checks below recurse on nesting.
  if (const std::size_t depth = nesting_depth(fn_.body); depth > kMaxNesting) {
    report("statements nest " + std::to_string(depth) + " deep; the limit is " +
           std::to_string(kMaxNesting));
    return;
  }
  check_block(fn_.body, "body");
  for (std::size_t i = fn_.num_params; i < fn_.vars.size(); ++i) {
    if (state_[i] == State::Undeclared) {
      report("variable " + quoted(fn_.vars[i].name) + " is never declared");
    }
  }
  if (!fn_.ret.is_void() && can_fall_through(fn_.body)) {
    report("function returning " + fn_.ret.name() + " can reach its end without returning a value");
  }
}

std::string FunctionVerifier::path() const {
  std::string out;
  for (const Segment& s : path_) {
    if (!out.empty()) out += '.';
    out += s.block;
    out += '[' + std::to_string(s.index) + ']';
  }
  return out;
}

void FunctionVerifier::report(std::string message) {
  reporter_.report(std::move(message), jit::location::in_function(fn_.name, path()));
}

bool FunctionVerifier::check_signature() {
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

void FunctionVerifier::check_variable_name(std::size_t index, std::string_view what) {
  const Variable& v = fn_.vars[index];
  if (std::string e = variable_name_error(v.name); !e.empty()) {
    report(std::string(what) + " name " + quoted(v.name) + " " + e);
  }
  // Names stay taken after their scope ends: they are unique in the whole function.
  if (!taken_names_.insert(v.name).second) {
    report("the name " + quoted(v.name) + " is already taken by another variable");
  }
}

bool FunctionVerifier::in_range(VarId var) {
  if (var.valid() && var.index < fn_.vars.size()) return true;
  report(var.valid() ? "variable #" + std::to_string(var.index) + " is out of range (" +
                           std::to_string(fn_.vars.size()) + " variables)"
                     : "missing variable");
  return false;
}

bool FunctionVerifier::visible(VarId var, std::string_view use) {
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

void FunctionVerifier::declare(VarId var) {
  state_[var.index] = State::InScope;
  scopes_.back().push_back(var.index);
}

void FunctionVerifier::check_block(const Block& block, std::string_view segment) {
  scopes_.emplace_back();
  for (std::size_t i = 0; i < block.size(); ++i) {
    path_.push_back({segment, i});
    check_stmt(block[i]);
    path_.pop_back();
  }
  close_scope();
}

void FunctionVerifier::close_scope() {
  for (std::uint32_t index : scopes_.back()) state_[index] = State::OutOfScope;
  scopes_.pop_back();
}

void FunctionVerifier::check_stmt(const Stmt& s) {
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
      if (loop_depth_ == 0) {
        report(std::string(name_of(s.kind)) + " outside a loop");
      } else if (s.levels == 0) {
        report(std::string(name_of(s.kind)) + " 0: a loop exit leaves at least one loop");
      } else if (s.levels > loop_depth_) {
        report(std::string(name_of(s.kind)) + " " + std::to_string(s.levels) + " leaves " +
               std::to_string(s.levels) + " loops, but " + std::to_string(loop_depth_) +
               (loop_depth_ == 1 ? " encloses it" : " enclose it"));
      }
      return;
    case StmtKind::Return:
      return check_return(s);
    case StmtKind::Barrier:
      if (!fn_.kernel) report("barrier outside a kernel");
      return;
  }
  report("unknown statement kind " + std::to_string(static_cast<int>(s.kind)));
}

void FunctionVerifier::check_decl(const Stmt& s) {
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

void FunctionVerifier::check_shared_decl(const Stmt& s, const Variable& v) {
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

void FunctionVerifier::check_assign(const Stmt& s) {
  const bool target_ok = visible(s.var, "assigned");
  const bool value_ok = check_expr(s.expr, "assigned value");
  if (!target_ok) return;
  const Variable& v = fn_.var(s.var);
  if (v.kind == VarKind::Shared) {
    report("shared array " + quoted(v.name) + " cannot be assigned");
  } else if (value_ok && s.expr->type != v.type) {
    report("cannot assign " + s.expr->type.name() + " to variable " + quoted(v.name) + " of type " +
           v.type.name());
  }
}

void FunctionVerifier::check_store(const Stmt& s) {
  const bool ptr_ok = check_expr(s.ptr, "store pointer");
  const bool index_ok = check_expr(s.index, "store index");
  const bool value_ok = check_expr(s.expr, "stored value");
  if (!ptr_ok || !index_ok) return;
  if (s.ptr->kind == ExprKind::Table) {
    report("a store into a table (tables are read-only)");
    return;
  }
  const TypeCheck target = check_load(s.ptr->type, s.index->type);
  if (!target.error.empty()) {
    report("store: " + target.error);
  } else if (value_ok && s.expr->type != target.type) {
    report("cannot store " + s.expr->type.name() + " into an element of " + s.ptr->type.name());
  }
}

void FunctionVerifier::check_condition(const ExprPtr& cond, std::string_view stmt) {
  if (!cond) {
    report("missing " + std::string(stmt) + " condition");
  } else if (check_expr(cond, "condition") && !cond->type.is_bool()) {
    report(std::string(stmt) + " condition must be bool, not " + cond->type.name());
  }
}

void FunctionVerifier::check_loop_body(const Block& body) {
  ++loop_depth_;
  check_block(body, "body");
  --loop_depth_;
}

void FunctionVerifier::check_for_clause(const Block& clause, std::string_view segment) {
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

void FunctionVerifier::check_for(const Stmt& s) {
  scopes_.emplace_back();  // a var declared in init is visible in the whole loop only
  check_for_clause(s.init, "init");
  check_condition(s.expr, "for");
  check_for_clause(s.step, "step");
  check_loop_body(s.body);
  close_scope();
}

void FunctionVerifier::check_return(const Stmt& s) {
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

}  // namespace augur::ir::verifier_detail
