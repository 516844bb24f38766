// Internals of the verifier: the reporter and the per-function checker.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/ir.h"

namespace augur::ir::verifier_detail {

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

inline std::string quoted(std::string_view name) {
  return "'" + std::string(name) + "'";
}

// Types a program may state: not a pointer to void, scalars within the enum.
inline bool well_formed(Type type) {
  return type.scalar() <= Scalar::F64 && !(type.is_pointer() && type.scalar() == Scalar::Void);
}

// Module::find_extern, tolerating the null entries a broken module may have.
const ExternFn* find_extern(const Module& module, std::string_view name);

// Checks one function: its signature, variables and statements with their
// scopes and paths (verify_function.cpp), and its expressions (verify_expr.cpp).
class FunctionVerifier {
 public:
  FunctionVerifier(const Module& module, const Function& fn, Reporter& reporter)
      : module_(module), fn_(fn), reporter_(reporter), state_(fn.vars.size(), State::Undeclared) {}

  void run();

 private:
  enum class State : std::uint8_t { Undeclared, InScope, OutOfScope };

  struct Segment {
    std::string_view block;
    std::size_t index;
  };

  // The statement path, e.g. "body[2].then[0]".
  std::string path() const;
  void report(std::string message);

  // Signature and variables.
  bool check_signature();
  // Reports a malformed name, or a name a parameter or an already declared variable has.
  void check_variable_name(std::size_t index, std::string_view what);
  bool in_range(VarId var);
  // Whether `var` may be used here; `use` is "used" or "assigned" for the message.
  bool visible(VarId var, std::string_view use);
  void declare(VarId var);

  // Statements.
  void check_block(const Block& block, std::string_view segment);
  void close_scope();
  void check_stmt(const Stmt& s);
  void check_decl(const Stmt& s);
  void check_shared_decl(const Stmt& s, const Variable& v);
  void check_assign(const Stmt& s);
  void check_store(const Stmt& s);
  void check_condition(const ExprPtr& cond, std::string_view stmt);
  void check_loop_body(const Block& body);
  // The init or step of a for: at most one simple statement.
  void check_for_clause(const Block& clause, std::string_view segment);
  void check_for(const Stmt& s);
  void check_return(const Stmt& s);

  // Expressions. check_expr returns whether e->type can be trusted; when an
  // operand is broken, the node's own typing is not checked, so one mistake
  // gives one message.
  bool check_expr(const ExprPtr& e, std::string_view what);
  // The node's own rules, its operands being well-typed.
  bool check_node(const Expr& e);
  // Reports a typing error, or a stated type that differs from the computed one.
  bool typed(const Expr& e, const TypeCheck& check);
  bool check_const(const Expr& e);
  bool check_read(const Expr& e);
  bool check_call_expr(const Expr& e, std::span<const Type> types);
  bool check_gpu_index(const Expr& e);
  bool check_table(const Expr& e);

  const Module& module_;
  const Function& fn_;
  Reporter& reporter_;
  std::vector<State> state_;                          // by variable index
  std::unordered_set<std::string_view> taken_names_;  // of parameters and declared variables
  std::vector<std::vector<std::uint32_t>> scopes_;    // variables each open block declared
  std::vector<Segment> path_;
  unsigned loop_depth_ = 0;
  // check_expr's walk: operands first, on a stack of our own (expressions
  // may be tall), kept from one expression to the next.
  struct ExprFrame {
    const Expr* e;
    std::size_t next;
    bool operands_ok;
  };
  std::vector<ExprFrame> expr_stack_;
};

}  // namespace augur::ir::verifier_detail
