#include "runtime/ir/ir.h"

#include <bit>
#include <cstring>
#include <utility>
#include <vector>

#include "jit/error.h"

namespace augur::ir {

std::int64_t Expr::int_value() const {
  if (type.is_signed()) return sign_extend(bits, type.bits());
  return static_cast<std::int64_t>(bits);
}

double Expr::float_value() const {
  if (type.scalar() == Scalar::F32) return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  return std::bit_cast<double>(bits);
}

namespace {
bool same_callee(const ExternRef& a, const ExternRef& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return *a == *b;
}
}  // namespace

namespace {

// The fields of one node, not its arguments.
bool same_node(const Expr& a, const Expr& b) {
  return a.kind == b.kind && a.op == b.op && a.axis == b.axis && a.type == b.type &&
         a.bits == b.bits && a.var == b.var && same_callee(a.callee, b.callee) &&
         (a.table == b.table || (a.table && b.table && *a.table == *b.table)) &&
         a.args.size() == b.args.size();
}

// The arguments of the Expr being destroyed on this thread's outermost ~Expr
// that is still releasing; nested destructors hand theirs to it.
thread_local std::vector<ExprPtr>* releasing = nullptr;

}  // namespace

Expr::~Expr() {
  if (args.empty()) return;
  if (releasing) {
    for (ExprPtr& a : args) releasing->push_back(std::move(a));
    return;
  }
  std::vector<ExprPtr> pending = std::move(args);
  releasing = &pending;
  while (!pending.empty()) {
    // Dropping the last owner runs ~Expr above, which appends to `pending`.
    ExprPtr last = std::move(pending.back());
    pending.pop_back();
    last.reset();
  }
  releasing = nullptr;
}

bool same_expr(const ExprPtr& a, const ExprPtr& b) {
  // Pairs still to compare, on a stack of our own: expressions may be tall.
  std::vector<std::pair<const Expr*, const Expr*>> stack;
  const auto push = [&](const ExprPtr& x, const ExprPtr& y) {
    if (x == y) return true;
    if (!x || !y) return false;
    stack.emplace_back(x.get(), y.get());
    return true;
  };
  if (!push(a, b)) return false;
  while (!stack.empty()) {
    const auto [x, y] = stack.back();
    stack.pop_back();
    if (!same_node(*x, *y)) return false;
    for (std::size_t i = 0; i < x->args.size(); ++i) {
      if (!push(x->args[i], y->args[i])) return false;
    }
  }
  return true;
}

std::uint64_t TableData::bits(std::size_t i) const {
  std::uint64_t raw = 0;
  std::memcpy(&raw, bytes.data() + i * element.size(), element.size());
  return canonical_bits(element, raw);
}

bool acts(const Expr& e) {
  return e.kind == ExprKind::Atomic ||
         (e.kind == ExprKind::Call && e.callee->effect != Effect::Pure);
}

bool may_trap_or_read(const Expr& e) {
  return e.kind == ExprKind::Load ||
         (e.kind == ExprKind::Binary && e.type.is_integer() &&
          (e.binary_op() == BinaryOp::Div || e.binary_op() == BinaryOp::Rem));
}

bool operator==(const Expr& a, const Expr& b) {
  if (!same_node(a, b)) return false;
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    if (!same_expr(a.args[i], b.args[i])) return false;
  }
  return true;
}

bool operator==(const Stmt& a, const Stmt& b) {
  return a.kind == b.kind && a.var == b.var && same_expr(a.expr, b.expr) &&
         same_expr(a.ptr, b.ptr) && same_expr(a.index, b.index) && a.body == b.body &&
         a.orelse == b.orelse && a.init == b.init && a.step == b.step && a.levels == b.levels;
}

bool operator==(const Module& a, const Module& b) {
  if (a.functions != b.functions || a.externs.size() != b.externs.size()) return false;
  for (std::size_t i = 0; i < a.externs.size(); ++i) {
    if (!same_callee(a.externs[i], b.externs[i])) return false;
  }
  return true;
}

Stmt Stmt::decl(VarId var, ExprPtr init) {
  Stmt s;
  s.kind = StmtKind::Decl;
  s.var = var;
  s.expr = std::move(init);
  return s;
}

Stmt Stmt::assign(VarId var, ExprPtr value) {
  Stmt s;
  s.kind = StmtKind::Assign;
  s.var = var;
  s.expr = std::move(value);
  return s;
}

Stmt Stmt::store(ExprPtr ptr, ExprPtr index, ExprPtr value) {
  Stmt s;
  s.kind = StmtKind::Store;
  s.ptr = std::move(ptr);
  s.index = std::move(index);
  s.expr = std::move(value);
  return s;
}

Stmt Stmt::eval(ExprPtr expr) {
  Stmt s;
  s.kind = StmtKind::Eval;
  s.expr = std::move(expr);
  return s;
}

Stmt Stmt::if_(ExprPtr cond, Block then_block, Block else_block) {
  Stmt s;
  s.kind = StmtKind::If;
  s.expr = std::move(cond);
  s.body = std::move(then_block);
  s.orelse = std::move(else_block);
  return s;
}

Stmt Stmt::while_(ExprPtr cond, Block body) {
  Stmt s;
  s.kind = StmtKind::While;
  s.expr = std::move(cond);
  s.body = std::move(body);
  return s;
}

Stmt Stmt::for_(Block init, ExprPtr cond, Block step, Block body) {
  Stmt s;
  s.kind = StmtKind::For;
  s.init = std::move(init);
  s.expr = std::move(cond);
  s.step = std::move(step);
  s.body = std::move(body);
  return s;
}

Stmt Stmt::break_(std::uint32_t levels) {
  Stmt s;
  s.kind = StmtKind::Break;
  s.levels = levels;
  return s;
}

Stmt Stmt::continue_(std::uint32_t levels) {
  Stmt s;
  s.kind = StmtKind::Continue;
  s.levels = levels;
  return s;
}

Stmt Stmt::return_(ExprPtr value) {
  Stmt s;
  s.kind = StmtKind::Return;
  s.expr = std::move(value);
  return s;
}

Stmt Stmt::barrier() {
  Stmt s;
  s.kind = StmtKind::Barrier;
  return s;
}

VarId Function::find_var(std::string_view name) const {
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (vars[i].name == name) return VarId{static_cast<std::uint32_t>(i)};
  }
  return {};
}

const Function* Module::find_function(std::string_view name) const {
  for (const Function& f : functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

ExternRef Module::find_extern(std::string_view name) const {
  for (const ExternRef& e : externs) {
    if (e->name == name) return e;
  }
  return nullptr;
}

ExternRef Module::declare_extern(ExternFn decl) {
  if (ExternRef existing = find_extern(decl.name)) {
    if (*existing == decl) return existing;
    throw jit::verify_error("conflicting declarations of extern '" + decl.name + "'");
  }
  externs.push_back(std::make_shared<const ExternFn>(std::move(decl)));
  return externs.back();
}

std::string_view name_of(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
      return "-";
    case UnaryOp::BitNot:
      return "~";
    case UnaryOp::Not:
      return "!";
  }
  return "?";
}

std::string_view name_of(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "+";
    case BinaryOp::Sub:
      return "-";
    case BinaryOp::Mul:
      return "*";
    case BinaryOp::Div:
      return "/";
    case BinaryOp::Rem:
      return "%";
    case BinaryOp::BitAnd:
      return "&";
    case BinaryOp::BitOr:
      return "|";
    case BinaryOp::BitXor:
      return "^";
    case BinaryOp::Shl:
      return "<<";
    case BinaryOp::Shr:
      return ">>";
    case BinaryOp::Eq:
      return "==";
    case BinaryOp::Ne:
      return "!=";
    case BinaryOp::Lt:
      return "<";
    case BinaryOp::Le:
      return "<=";
    case BinaryOp::Gt:
      return ">";
    case BinaryOp::Ge:
      return ">=";
    case BinaryOp::And:
      return "&&";
    case BinaryOp::Or:
      return "||";
  }
  return "?";
}

std::string_view name_of(MathOp op) {
  switch (op) {
    case MathOp::Sqrt:
      return "sqrt";
    case MathOp::Fabs:
      return "fabs";
    case MathOp::Floor:
      return "floor";
    case MathOp::Exp:
      return "exp";
    case MathOp::Log:
      return "log";
    case MathOp::Pow:
      return "pow";
    case MathOp::Min:
      return "min";
    case MathOp::Max:
      return "max";
    case MathOp::Fma:
      return "fma";
  }
  return "?";
}

std::string_view name_of(GpuIndex op) {
  switch (op) {
    case GpuIndex::ThreadIdx:
      return "thread_idx";
    case GpuIndex::BlockIdx:
      return "block_idx";
    case GpuIndex::BlockDim:
      return "block_dim";
    case GpuIndex::GridDim:
      return "grid_dim";
  }
  return "?";
}

std::string_view name_of(AtomicOp op) {
  switch (op) {
    case AtomicOp::Add:
      return "atomic_add";
    case AtomicOp::Min:
      return "atomic_min";
    case AtomicOp::Max:
      return "atomic_max";
    case AtomicOp::Exchange:
      return "atomic_exchange";
    case AtomicOp::Cas:
      return "atomic_cas";
  }
  return "?";
}

std::string_view name_of(Effect e) {
  switch (e) {
    case Effect::Pure:
      return "pure";
    case Effect::ReadOnly:
      return "readonly";
    case Effect::Effectful:
      return "effect";
  }
  return "?";
}

std::string_view name_of(StmtKind k) {
  switch (k) {
    case StmtKind::Decl:
      return "decl";
    case StmtKind::Assign:
      return "assign";
    case StmtKind::Store:
      return "store";
    case StmtKind::Eval:
      return "eval";
    case StmtKind::If:
      return "if";
    case StmtKind::While:
      return "while";
    case StmtKind::For:
      return "for";
    case StmtKind::Break:
      return "break";
    case StmtKind::Continue:
      return "continue";
    case StmtKind::Return:
      return "return";
    case StmtKind::Barrier:
      return "barrier";
  }
  return "?";
}

unsigned arity(MathOp op) {
  switch (op) {
    case MathOp::Pow:
    case MathOp::Min:
    case MathOp::Max:
      return 2;
    case MathOp::Fma:
      return 3;
    default:
      return 1;
  }
}

unsigned arity(AtomicOp op) {
  return op == AtomicOp::Cas ? 4 : 3;
}

bool is_comparison(BinaryOp op) {
  return op >= BinaryOp::Eq && op <= BinaryOp::Ge;
}

}  // namespace augur::ir
