#include "jit/cpu/split_plan.h"

#include <algorithm>
#include <array>

namespace augur::cpu {

namespace {

// What a part call adds to its caller's size: the call, its status switch and
// the copies of its in-out variables, about.
constexpr std::size_t kCallNodes = 4;

// Runs smaller than this fraction of the bound stay in their block: a
// function for them would cost more than it saves.
constexpr std::size_t kMinPartFraction = 16;

std::size_t expr_nodes(const ir::ExprPtr& root) {
  std::size_t nodes = 0;
  std::vector<const ir::Expr*> pending;
  if (root) pending.push_back(root.get());
  while (!pending.empty()) {
    const ir::Expr* expr = pending.back();
    pending.pop_back();
    ++nodes;
    for (const ir::ExprPtr& arg : expr->args) pending.push_back(arg.get());
  }
  return nodes;
}

std::size_t own_nodes(const ir::Stmt& stmt) {
  return 1 + expr_nodes(stmt.expr) + expr_nodes(stmt.ptr) + expr_nodes(stmt.index);
}

std::array<const ir::Block*, 4> nested_blocks(const ir::Stmt& stmt) {
  return {&stmt.body, &stmt.orelse, &stmt.init, &stmt.step};
}

struct Exits {
  bool breaks = false;
  bool continues = false;
  bool returns = false;
  std::vector<FarExit> far;

  Exits& operator|=(const Exits& other) {
    breaks = breaks || other.breaks;
    continues = continues || other.continues;
    returns = returns || other.returns;
    for (const FarExit& e : other.far) add(e.kind, e.levels);
    return *this;
  }

  void add(PartExit kind, std::uint32_t levels) {
    if (levels == 1) {
      (kind == PartExit::Break ? breaks : continues) = true;
    } else if (std::find(far.begin(), far.end(), FarExit{kind, levels}) == far.end()) {
      far.push_back({kind, levels});
    }
  }

  // What leaves a loop whose body has these exits: the loop takes its own
  // break and continue, and the others leave one loop fewer outside it.
  Exits around_loop() const {
    Exits out;
    out.returns = returns;
    for (const FarExit& e : far) out.add(e.kind, e.levels - 1);
    return out;
  }
};

struct BlockSummary {
  std::size_t nodes = 0;  // less the parts cut inside
  Exits exits;            // break and continue of a loop around the block, return
};

// Every block of the function, each before the blocks nested in it.
std::vector<const ir::Block*> blocks_outside_in(const ir::Function& function) {
  std::vector<const ir::Block*> order;
  std::vector<const ir::Block*> pending = {&function.body};
  while (!pending.empty()) {
    const ir::Block* block = pending.back();
    pending.pop_back();
    order.push_back(block);
    for (const ir::Stmt& stmt : *block) {
      for (const ir::Block* nested : nested_blocks(stmt)) {
        if (!nested->empty()) pending.push_back(nested);
      }
    }
  }
  return order;
}

// Calls `visit(var, assigned)` for each variable occurrence in the statements
// [begin, end) of `block` and in everything nested in them.
template <class Visit>
void visit_vars(const ir::Block& block, std::size_t begin, std::size_t end, Visit&& visit) {
  std::vector<const ir::Stmt*> statements;
  for (std::size_t i = end; i > begin; --i) statements.push_back(&block[i - 1]);
  std::vector<const ir::Expr*> exprs;
  while (!statements.empty()) {
    const ir::Stmt* stmt = statements.back();
    statements.pop_back();
    if (stmt->kind == ir::StmtKind::Decl || stmt->kind == ir::StmtKind::Assign) {
      visit(stmt->var, true);
    }
    for (const ir::ExprPtr* expr : {&stmt->expr, &stmt->ptr, &stmt->index}) {
      if (*expr) exprs.push_back(expr->get());
    }
    while (!exprs.empty()) {
      const ir::Expr* expr = exprs.back();
      exprs.pop_back();
      if (expr->kind == ir::ExprKind::Var) visit(expr->var, false);
      for (const ir::ExprPtr& arg : expr->args) exprs.push_back(arg.get());
    }
    for (const ir::Block* nested : nested_blocks(*stmt)) {
      for (const ir::Stmt& inner : *nested) statements.push_back(&inner);
    }
  }
}

class Planner {
 public:
  Planner(const ir::Function& function, std::size_t bound) : function_(function), bound_(bound) {
    plan_.function = &function;
  }

  FunctionPlan run() && {
    const std::vector<const ir::Block*> blocks = blocks_outside_in(function_);
    summaries_.reserve(blocks.size());
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) summarize(**it);
    if (!plan_.parts.empty()) assign_variables();
    return std::move(plan_);
  }

 private:
  // Sizes the statements of `block`, whose nested blocks are summarized
  // already, and cuts it into parts if they exceed the bound.
  void summarize(const ir::Block& block) {
    std::vector<std::size_t> sizes(block.size());
    std::vector<Exits> exits(block.size());
    std::size_t total = 0;
    for (std::size_t i = 0; i < block.size(); ++i) {
      const ir::Stmt& stmt = block[i];
      sizes[i] = own_nodes(stmt);
      Exits nested;
      for (const ir::Block* inner : nested_blocks(stmt)) {
        if (inner->empty()) continue;
        const BlockSummary& summary = summaries_.at(inner);
        sizes[i] += summary.nodes;
        nested |= summary.exits;
      }
      switch (stmt.kind) {
        case ir::StmtKind::Break:
          exits[i].add(PartExit::Break, stmt.levels);
          break;
        case ir::StmtKind::Continue:
          exits[i].add(PartExit::Continue, stmt.levels);
          break;
        case ir::StmtKind::Return:
          exits[i].returns = true;
          break;
        case ir::StmtKind::While:
        case ir::StmtKind::For:
          exits[i] = nested.around_loop();
          break;
        default:
          exits[i] = nested;
      }
      total += sizes[i];
    }
    BlockSummary summary;
    for (const Exits& e : exits) summary.exits |= e;
    if (total <= bound_) {
      summary.nodes = total;
      summaries_.emplace(&block, summary);
      return;
    }
    std::size_t begin = 0;
    std::size_t run = 0;
    for (std::size_t i = 0; i <= block.size(); ++i) {
      const bool last = i == block.size();
      if (!last && (run == 0 || run + sizes[i] <= bound_)) {
        run += sizes[i];
        continue;
      }
      if (run * kMinPartFraction < bound_) {
        summary.nodes += run;
      } else {
        cut(block, begin, i, run, exits);
        summary.nodes += kCallNodes;
      }
      if (last) break;
      begin = i;
      run = sizes[i];
    }
    summaries_.emplace(&block, summary);
  }

  void cut(const ir::Block& block, std::size_t begin, std::size_t end, std::size_t nodes,
           const std::vector<Exits>& exits) {
    Part part;
    part.block = &block;
    part.begin = begin;
    part.end = end;
    part.index = plan_.parts.size();
    part.nodes = nodes;
    Exits any;
    for (std::size_t i = begin; i < end; ++i) any |= exits[i];
    part.breaks = any.breaks;
    part.continues = any.continues;
    part.returns = any.returns;
    part.far_exits = std::move(any.far);
    plan_.starts.emplace(&block[begin], part.index);
    plan_.parts.push_back(std::move(part));
  }

  // Which variables each part shares with its caller and which it owns. A
  // variable belongs to a part when every
  // occurrence of it is inside (parameters never do: the entry binds them).
  void assign_variables() {
    const std::size_t vars = function_.vars.size();
    std::vector<std::uint32_t> total(vars, 0);
    for (std::uint32_t p = 0; p < function_.num_params; ++p) total[p] = 1;
    visit_vars(function_.body, 0, function_.body.size(),
               [&](ir::VarId var, bool) { ++total[var.index]; });

    std::vector<std::uint32_t> inside(vars, 0);
    std::vector<char> assigned(vars, 0);
    std::vector<std::uint32_t> touched;
    for (Part& part : plan_.parts) {
      visit_vars(*part.block, part.begin, part.end, [&](ir::VarId var, bool assigns) {
        if (inside[var.index]++ == 0) touched.push_back(var.index);
        if (assigns) assigned[var.index] = 1;
      });
      std::sort(touched.begin(), touched.end());
      for (const std::uint32_t v : touched) {
        const ir::VarId var{v};
        if (inside[v] == total[v]) {
          part.locals.push_back(var);
        } else if (assigned[v]) {
          part.inouts.push_back(var);
        } else {
          part.inputs.push_back(var);
        }
        inside[v] = 0;
        assigned[v] = 0;
      }
      touched.clear();
    }
  }

  const ir::Function& function_;
  std::size_t bound_;
  FunctionPlan plan_;
  std::unordered_map<const ir::Block*, BlockSummary> summaries_;
};

}  // namespace

std::uint32_t exit_status(PartExit kind, std::uint32_t levels) {
  if (levels == 1) return static_cast<std::uint32_t>(kind);
  return static_cast<std::uint32_t>(PartExit::Return) + 1 + 2 * (levels - 2) +
         (kind == PartExit::Continue ? 1 : 0);
}

FunctionPlan plan_split(const ir::Function& function, std::size_t split_nodes) {
  if (split_nodes == 0 || function.kernel) {
    FunctionPlan plan;
    plan.function = &function;
    return plan;
  }
  return Planner(function, split_nodes).run();
}

}  // namespace augur::cpu
