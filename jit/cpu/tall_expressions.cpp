#include "jit/cpu/tall_expressions.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "jit/cpu/speculation.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/visit.h"

namespace augur::cpu {

namespace {

// Whether `root` calls an extern or has an atomic; each shared node once.
bool has_effects(const ir::ExprPtr& root) {
  std::unordered_set<const ir::Expr*> seen;
  std::vector<const ir::Expr*> todo{root.get()};
  while (!todo.empty()) {
    const ir::Expr* e = todo.back();
    todo.pop_back();
    if (!e || !seen.insert(e).second) continue;
    if (e->kind == ir::ExprKind::Call || e->kind == ir::ExprKind::Atomic) return true;
    for (const ir::ExprPtr& a : e->args) todo.push_back(a.get());
  }
  return false;
}

// The expressions of a statement that it evaluates once.
template <class S>
auto cuttable_exprs(S& s) {
  using Ptr = decltype(&s.expr);
  switch (s.kind) {
    case ir::StmtKind::Decl:
    case ir::StmtKind::Assign:
    case ir::StmtKind::Return:
    case ir::StmtKind::If:
      return std::vector<Ptr>{&s.expr};
    case ir::StmtKind::Store:
      return std::vector<Ptr>{&s.expr, &s.ptr, &s.index};
    default:
      return std::vector<Ptr>{};
  }
}

// Whether `s` is to be cut: more than `max_nodes` nodes in the expressions
// it evaluates once, counted as trees (what code generation emits: each use
// of a shared node again; the count stops past the limit), and no effects
// among them. `stack` is the caller's, so that a walk over every statement
// allocates nothing.
bool is_tall(const ir::Stmt& s, std::size_t max_nodes, std::vector<const ir::Expr*>& stack) {
  const auto exprs = cuttable_exprs(s);
  stack.clear();
  for (const ir::ExprPtr* e : exprs)
    if (*e) stack.push_back(e->get());
  std::size_t nodes = 0;
  while (!stack.empty() && nodes <= max_nodes) {
    const ir::Expr* e = stack.back();
    stack.pop_back();
    ++nodes;
    for (const ir::ExprPtr& a : e->args)
      if (a) stack.push_back(a.get());
  }
  return nodes > max_nodes && std::none_of(exprs.begin(), exprs.end(),
                                           [](const ir::ExprPtr* e) { return has_effects(*e); });
}

// Whether any statement of `function` is to be cut. A `for`'s init and step
// hold one statement each, so they stay as they are.
bool has_tall_statement(const ir::Function& function, std::size_t max_nodes) {
  std::vector<const ir::Expr*> stack;
  std::vector<const ir::Block*> blocks{&function.body};
  while (!blocks.empty()) {
    const ir::Block& block = *blocks.back();
    blocks.pop_back();
    for (const ir::Stmt& s : block) {
      if (is_tall(s, max_nodes, stack)) return true;
      for (const ir::Block* inner : {&s.body, &s.orelse})
        if (!inner->empty()) blocks.push_back(inner);
    }
  }
  return false;
}

class Cutter {
 public:
  Cutter(ir::Function& function, std::size_t max_nodes)
      : function_(function),
        max_nodes_(max_nodes),
        piece_nodes_(std::max<std::size_t>(1, max_nodes / 4)) {}

  // Cuts the tall statements of every block; returns whether it cut any.
  bool run() {
    bool cut = false;
    std::vector<ir::Block*> blocks{&function_.body};
    while (!blocks.empty()) {
      ir::Block& block = *blocks.back();
      blocks.pop_back();
      ir::Block out;
      for (ir::Stmt& s : block) {
        if (is_tall(s, max_nodes_, stack_)) {
          const std::size_t before = out.size();
          for (ir::ExprPtr* e : cuttable_exprs(s)) *e = cut_expr(*e, out);
          cut = cut || out.size() > before;
        }
        out.push_back(std::move(s));
      }
      block = std::move(out);
      for (ir::Stmt& s : block)
        for (ir::Block* inner : {&s.body, &s.orelse})
          if (!inner->empty()) blocks.push_back(inner);
    }
    return cut;
  }

 private:
  // Which nodes of `root` the statement evaluates whatever happens.
  std::unordered_set<const ir::Expr*> always_evaluated(const ir::ExprPtr& root) {
    std::unordered_set<const ir::Expr*> eager;
    std::vector<const ir::Expr*> todo{root.get()};
    while (!todo.empty()) {
      const ir::Expr* e = todo.back();
      todo.pop_back();
      if (!eager.insert(e).second) continue;
      const std::size_t n = speculation_.eager_operands(*e);
      for (std::size_t i = 0; i < n; ++i) todo.push_back(e->args[i].get());
    }
    return eager;
  }

  // `root` with pieces of about piece_nodes_ nodes it always evaluates bound
  // to new variables, declared in `out`, innermost first.
  ir::ExprPtr cut_expr(const ir::ExprPtr& root, ir::Block& out) {
    if (!root) return root;
    const std::unordered_set<const ir::Expr*> eager = always_evaluated(root);
    struct Piece {
      ir::ExprPtr expr;
      std::size_t nodes = 0;  // since the last cut below it
    };
    ir::ExprFolder<Piece> folder(ir::ExprFolder<Piece>::Remember::shared_nodes);
    const Piece whole = folder.fold(root, [&](const ir::ExprPtr& e, std::span<Piece> args) {
      Piece p{e, 1};
      bool changed = false;
      for (std::size_t i = 0; i < args.size(); ++i) {
        p.nodes += args[i].nodes;
        changed = changed || args[i].expr != e->args[i];
      }
      if (changed) {
        auto copy = std::make_shared<ir::Expr>(*e);
        for (std::size_t i = 0; i < args.size(); ++i) copy->args[i] = args[i].expr;
        p.expr = std::move(copy);
      }
      if (p.nodes >= piece_nodes_ && e != root && eager.contains(e.get())) {
        const ir::VarId var = new_var(e->type);
        out.push_back(ir::Stmt::decl(var, std::move(p.expr)));
        p = Piece{ir::read(var, e->type), 1};
      }
      return p;
    });
    return whole.expr;
  }

  ir::VarId new_var(ir::Type type) {
    if (names_.empty())
      for (const ir::Variable& v : function_.vars) names_.insert(v.name);
    std::string name;
    do {
      name = "cut." + std::to_string(serial_++);
    } while (names_.contains(name));
    names_.insert(name);
    function_.vars.push_back(ir::Variable{name, type, ir::VarKind::Local, 0});
    return ir::VarId{static_cast<std::uint32_t>(function_.vars.size() - 1)};
  }

  ir::Function& function_;
  const std::size_t max_nodes_;
  const std::size_t piece_nodes_;
  Speculation speculation_;
  std::unordered_set<std::string> names_;
  std::uint64_t serial_ = 0;
  std::vector<const ir::Expr*> stack_;
};

}  // namespace

std::optional<ir::Module> cut_tall_expressions(const ir::Module& module, std::size_t max_nodes) {
  if (max_nodes == 0) return std::nullopt;
  std::optional<ir::Module> out;
  for (std::size_t f = 0; f < module.functions.size(); ++f) {
    if (module.functions[f].kernel || !has_tall_statement(module.functions[f], max_nodes)) continue;
    ir::Function copy = module.functions[f];
    if (!Cutter(copy, max_nodes).run()) continue;
    if (!out) out = module;
    out->functions[f] = std::move(copy);
  }
  return out;
}

}  // namespace augur::cpu
