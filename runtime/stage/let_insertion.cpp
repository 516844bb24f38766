#include "runtime/stage/let_insertion.h"

#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/stage/tidy.h"

namespace augur::stage {

namespace {

using ir::Block;
using ir::Expr;
using ir::ExprKind;
using ir::ExprPtr;
using ir::Stmt;
using ir::StmtKind;

bool is_leaf(const Expr& e) {
  return e.kind == ExprKind::Const || e.kind == ExprKind::Var || e.kind == ExprKind::GpuIndex;
}

// Whether argument `i` of `e` is evaluated whenever `e` is.
bool evaluated_with_parent(const Expr& e, std::size_t i) {
  if (e.kind == ExprKind::Select) return i == 0;
  if (e.kind == ExprKind::Binary &&
      (e.binary_op() == ir::BinaryOp::And || e.binary_op() == ir::BinaryOp::Or)) {
    return i == 0;
  }
  return true;
}

// One statement's expressions as a DAG: nodes in post-order (operands before
// the nodes that use them), with what decides whether a node is bound.
class StatementDag {
 public:
  struct Node {
    const ExprPtr* expr;
    std::uint32_t uses = 0;  // edges into it, from nodes and from the statement
    bool always_evaluated = false;
    bool inert = true;     // nothing in it acts (atomic, effectful call)
    bool harmless = true;  // inert, and nothing in it traps or reads memory
    bool bind = false;
  };

  // Analyzes the expressions `roots` (nulls skipped); true if any node is bound.
  bool analyze(std::span<ExprPtr* const> roots) {
    nodes_.clear();
    if (index_.bucket_count() > kKeepBuckets) {
      index_ = {};
    } else {
      index_.clear();
    }
    for (ExprPtr* root : roots) {
      if (*root && !is_leaf(**root)) collect(*root);
    }
    if (nodes_.empty()) return false;

    for (Node& n : nodes_) {
      const Expr& e = **n.expr;
      n.inert = !ir::acts(e);
      n.harmless = n.inert && !ir::may_trap_or_read(e);
      for (const ExprPtr& a : e.args) {
        if (!a || is_leaf(*a)) continue;
        Node& operand = nodes_[index_.at(a.get())];
        ++operand.uses;
        n.inert = n.inert && operand.inert;
        n.harmless = n.harmless && operand.harmless;
      }
    }
    bool statement_acts = false;
    for (ExprPtr* root : roots) {
      if (!*root || is_leaf(**root)) continue;
      Node& n = nodes_[index_.at(root->get())];
      ++n.uses;
      n.always_evaluated = true;
      statement_acts = statement_acts || !n.inert;
    }
    // Users before operands: the reverse of post-order.
    for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
      if (!it->always_evaluated) continue;
      const Expr& e = **it->expr;
      for (std::size_t i = 0; i < e.args.size(); ++i) {
        const ExprPtr& a = e.args[i];
        if (a && !is_leaf(*a) && evaluated_with_parent(e, i)) {
          nodes_[index_.at(a.get())].always_evaluated = true;
        }
      }
    }
    bool any = false;
    for (Node& n : nodes_) {
      n.bind = n.uses > 1 && n.inert && !(*n.expr)->type.is_void() &&
               (n.always_evaluated || n.harmless) && (!statement_acts || n.harmless);
      any = any || n.bind;
    }
    return any;
  }

  // Rewrites the roots to read the bound nodes' new locals; appends their
  // declarations, operands first, to `lets`.
  void bind(std::span<ExprPtr* const> roots, ir::Function& fn, Block& lets) {
    std::vector<ExprPtr> rebuilt(nodes_.size());
    for (std::size_t k = 0; k < nodes_.size(); ++k) {
      const ExprPtr& old = *nodes_[k].expr;
      std::optional<Expr> copy;
      for (std::size_t i = 0; i < old->args.size(); ++i) {
        const ExprPtr& a = old->args[i];
        if (!a || is_leaf(*a)) continue;
        const ExprPtr& replacement = rebuilt[index_.at(a.get())];
        if (replacement == a) continue;
        if (!copy) copy = *old;
        copy->args[i] = replacement;
      }
      ExprPtr now = copy ? std::make_shared<const Expr>(std::move(*copy)) : old;
      if (nodes_[k].bind) {
        const ir::VarId v{static_cast<std::uint32_t>(fn.vars.size())};
        fn.vars.push_back(ir::Variable{"", now->type, ir::VarKind::Local, 0});
        lets.push_back(Stmt::decl(v, now));
        now = ir::read(v, now->type);
      }
      rebuilt[k] = std::move(now);
    }
    for (ExprPtr* root : roots) {
      if (*root && !is_leaf(**root)) *root = rebuilt[index_.at(root->get())];
    }
  }

 private:
  static constexpr std::size_t kKeepBuckets = 4096;

  // Appends `root`'s nodes not seen yet, in post-order, without recursion.
  void collect(const ExprPtr& root) {
    if (index_.contains(root.get())) return;
    std::vector<Frame>& stack = stack_;  // kept: one allocation for all statements
    stack.assign(1, Frame{&root, 0});
    while (!stack.empty()) {
      Frame& top = stack.back();
      const Expr& e = **top.expr;
      if (top.next < e.args.size()) {
        const ExprPtr& a = e.args[top.next++];
        // A node on the stack cannot be reached again below itself (a DAG),
        // so nodes enter the index when they are finished.
        if (a && !is_leaf(*a) && !index_.contains(a.get())) stack.push_back({&a, 0});
        continue;
      }
      index_.emplace(top.expr->get(), static_cast<std::uint32_t>(nodes_.size()));
      nodes_.push_back(Node{top.expr});
      stack.pop_back();
    }
  }

  struct Frame {
    const ExprPtr* expr;
    std::size_t next;
  };

  std::vector<Node> nodes_;
  std::unordered_map<const Expr*, std::uint32_t> index_;
  std::vector<Frame> stack_;
};

class LetInserter {
 public:
  explicit LetInserter(ir::Function& fn) : fn_(fn) {}

  void run() {
    std::vector<Block*> pending{&fn_.body};
    while (!pending.empty()) {
      Block* b = pending.back();
      pending.pop_back();
      block(*b);
      for (Stmt& s : *b) {
        for (Block* inner : {&s.body, &s.orelse}) {
          if (!inner->empty()) pending.push_back(inner);
        }
      }
    }
  }

 private:
  // Rewrites the statements of `b` (not those nested in them).
  void block(Block& b) {
    Block out;
    bool changed = false;
    for (std::size_t i = 0; i < b.size(); ++i) {
      Stmt& s = b[i];
      Block lets;
      if (s.kind == StmtKind::While || s.kind == StmtKind::For) {
        if (s.kind == StmtKind::For && !s.init.empty()) statement(s.init.front(), lets);
        loop_condition(s);
      } else {
        statement(s, lets);
      }
      if (!lets.empty() && !changed) {
        changed = true;
        out.reserve(b.size() + lets.size());
        std::move(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(i), std::back_inserter(out));
      }
      if (changed) {
        std::move(lets.begin(), lets.end(), std::back_inserter(out));
        out.push_back(std::move(s));
      }
    }
    if (changed) b = std::move(out);
  }

  // Binds within the statement's own expressions; the lets go to `lets`.
  void statement(Stmt& s, Block& lets) {
    ExprPtr* const roots[] = {&s.ptr, &s.index, &s.expr};
    if (dag_.analyze(roots)) dag_.bind(roots, fn_, lets);
  }

  // while (c) B  ->  while (true) { lets; if (!c) break; B }, when c binds.
  void loop_condition(Stmt& loop) {
    ExprPtr* const roots[] = {&loop.expr};
    if (!dag_.analyze(roots)) return;
    Block body;
    dag_.bind(roots, fn_, body);
    body.push_back(Stmt::if_(negate(loop.expr), Block{Stmt::break_()}));
    std::move(loop.body.begin(), loop.body.end(), std::back_inserter(body));
    loop.body = std::move(body);
    loop.expr = ir::constant(true);
  }

  ir::Function& fn_;
  StatementDag dag_;
};

}  // namespace

void insert_lets(ir::Function& fn) {
  LetInserter(fn).run();
}

bool shares_nodes(const Expr& root) {
  std::unordered_set<const Expr*> seen;
  std::vector<const Expr*> stack{&root};
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    if (is_leaf(*e)) continue;
    if (!seen.insert(e).second) return true;
    for (const ExprPtr& a : e->args) {
      if (a) stack.push_back(a.get());
    }
  }
  return false;
}

}  // namespace augur::stage
