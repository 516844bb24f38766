#include "jit/cpu/split_plan.h"

#include <algorithm>
#include <array>

#include "runtime/ir/visit.h"

namespace augur::cpu {

namespace {

// What a part call adds to its caller's size: the call, its status switch and
// the copies of its in-out variables, about.
constexpr std::size_t kCallNodes = 4;

// Runs smaller than this fraction of the bound stay in their block: a
// function for them would cost more than it saves.
constexpr std::size_t kMinPartFraction = 16;

// A loop nest stays whole in one function while its size times its control
// flow (each loop 1, each if kIfWeight) is at most kNestCost times the bound
// squared, and it has at most kNestFactor times the bound nodes: LLVM then
// sees the nest as the whole function would (it closes inner loops in the
// outer one, keeps constants and registers across them), and its per-loop
// passes, which scan the function once per loop, cost a bounded amount per
// loop. The corpus's bf_10000 keeps its 50,000-node nest of 150 loops whole
// (and the optimizer's version of it, 46,000 nodes and 674 loops), while a
// DFA's loop around 4,000 nested ifs is cut into parts of about the bound.
constexpr std::size_t kNestFactor = 16;
constexpr std::size_t kIfWeight = 16;
constexpr std::size_t kNestCost = 4;

// Straight-line code without stores, branches, compares or calls for their
// effect (a chain of arithmetic on loaded values) stays whole up to this
// multiple of the bound, and is cut into runs of that size beyond: what grows
// superlinearly in LLVM is work per loop, per store (MemorySSA, dead-store
// elimination, GVN's walks over memory definitions), per branch, and per
// compare at O2 (the SLP vectorizer tries a block's compares together: 10,000
// statements `e = x > i ? e : i` took 14 s in parts of 16 times the bound), and
// cutting such code costs its speed: LLVM no longer finds the common
// subexpressions across a cut (the corpus's power_110 in three parts computes
// 10,382 multiplies instead of 7,383 and runs 1.5x slower, though it compiles
// in 0.97 s instead of 1.7).
constexpr std::size_t kStraightFactor = 16;

// Where a run is cut, it is cut where the fewest variables are live (used
// both before and after), among the points that leave it at least this
// fraction of the bound: every value live across a cut is copied in and out
// of a part, and a dependency chain cut in two cannot be interleaved with
// the next one by either half's scheduler.
constexpr std::size_t kMinRunFraction = 2;

struct OwnExprs {
  std::size_t nodes = 0;  // the statement itself and its expressions' nodes, as trees
  bool compares = false;  // whether any of them is a comparison
};

// One walk over the expressions `stmt` holds itself, on the caller's stack.
OwnExprs own_exprs(const ir::Stmt& stmt, std::vector<const ir::Expr*>& stack) {
  OwnExprs own{1, false};
  ir::for_each_expr(stmt, stack, [&](const ir::Expr& e) {
    ++own.nodes;
    own.compares =
        own.compares || (e.kind == ir::ExprKind::Binary && ir::is_comparison(e.binary_op()));
  });
  return own;
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
  std::size_t nodes = 0;    // less the parts cut inside
  std::size_t control = 0;  // loops + kIfWeight × ifs, less those of the parts cut inside
  Exits exits;              // break and continue of a loop around the block, return
};

bool is_loop(const ir::Stmt& stmt) {
  return stmt.kind == ir::StmtKind::While || stmt.kind == ir::StmtKind::For;
}

// A loop's weight in a nest's control flow: 1; an if's: kIfWeight, or 1
// for a loop's exit test (`if (c) { ...; break; }` without else: the
// optimizer writes loops as `while (true)` with such tests).
std::size_t own_control(const ir::Stmt& stmt) {
  if (is_loop(stmt)) return 1;
  if (stmt.kind != ir::StmtKind::If) return 0;
  const bool exit_test = stmt.orelse.empty() && !stmt.body.empty() &&
                         (stmt.body.back().kind == ir::StmtKind::Break ||
                          stmt.body.back().kind == ir::StmtKind::Continue);
  return exit_test ? 1 : kIfWeight;
}

struct PlacedBlock {
  const ir::Block* block;
  bool in_loop;  // inside a loop's body (or its init or step)
};

// Every block of the function, each before the blocks nested in it.
std::vector<PlacedBlock> blocks_outside_in(const ir::Function& function) {
  std::vector<PlacedBlock> order;
  std::vector<PlacedBlock> pending = {{&function.body, false}};
  while (!pending.empty()) {
    const PlacedBlock placed = pending.back();
    pending.pop_back();
    order.push_back(placed);
    for (const ir::Stmt& stmt : *placed.block) {
      for (const ir::Block* nested : nested_blocks(stmt)) {
        if (!nested->empty()) pending.push_back({nested, placed.in_loop || is_loop(stmt)});
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
    const std::vector<PlacedBlock> blocks = blocks_outside_in(function_);
    summaries_.reserve(blocks.size());
    first_.assign(function_.vars.size(), kNowhere);
    last_.assign(function_.vars.size(), 0);
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) summarize(*it->block, it->in_loop);
    if (!plan_.parts.empty()) {
      assign_variables();
      find_part_constants(plan_, nodes_);
    }
    return std::move(plan_);
  }

 private:
  // Sizes the statements of `block`, whose nested blocks are summarized
  // already, and cuts it into parts if they exceed the bound: the bound
  // itself outside loops, the bound of a whole nest inside one (a nest too
  // large or with too much control flow is cut as a block outside loops
  // would be).
  void summarize(const ir::Block& block, bool in_loop) {
    std::vector<std::size_t> sizes(block.size());
    std::vector<Exits> exits(block.size());
    std::vector<char> straight(block.size());
    std::size_t total = 0;
    std::size_t control = 0;
    for (std::size_t i = 0; i < block.size(); ++i) {
      const ir::Stmt& stmt = block[i];
      const OwnExprs own = own_exprs(stmt, expr_stack_);
      sizes[i] = own.nodes;
      nodes_ += sizes[i];
      control += own_control(stmt);
      straight[i] = (stmt.kind == ir::StmtKind::Decl || stmt.kind == ir::StmtKind::Assign ||
                     stmt.kind == ir::StmtKind::Return) &&
                    !own.compares;
      Exits nested;
      for (const ir::Block* inner : nested_blocks(stmt)) {
        if (inner->empty()) continue;
        const BlockSummary& summary = summaries_.at(inner);
        sizes[i] += summary.nodes;
        control += summary.control;
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
    std::size_t run_bound = bound_;
    std::size_t block_bound = bound_;
    if (std::all_of(straight.begin(), straight.end(), [](char c) { return c != 0; })) {
      run_bound = block_bound = kStraightFactor * bound_;
    } else if (in_loop && total <= kNestFactor * bound_ &&
               control * total <= kNestCost * bound_ * bound_) {
      block_bound = total;
    }
    if (total <= block_bound) {
      summary.nodes = total;
      summary.control = control;
      summaries_.emplace(&block, summary);
      return;
    }
    const std::vector<std::size_t> live = live_across(block);
    std::vector<std::size_t> before(block.size() + 1, 0);  // nodes of the statements before i
    for (std::size_t i = 0; i < block.size(); ++i) before[i + 1] = before[i] + sizes[i];
    std::size_t begin = 0;
    while (begin < block.size()) {
      // The run [begin, end): as many statements as fit, at least one.
      std::size_t end = begin + 1;
      while (end < block.size() && before[end + 1] - before[begin] <= run_bound) ++end;
      if (end < block.size()) {
        std::size_t best = end;
        for (std::size_t at = end; at > begin + 1; --at) {
          if ((before[at] - before[begin]) * kMinRunFraction < run_bound) break;
          if (live[at] < live[best]) best = at;
        }
        end = best;
      }
      const std::size_t run = before[end] - before[begin];
      if (run * kMinPartFraction < bound_) {
        summary.nodes += run;
        for (std::size_t i = begin; i < end; ++i) summary.control += control_of(block[i]);
      } else {
        cut(block, begin, end, run, exits);
        summary.nodes += kCallNodes;
      }
      begin = end;
    }
    summaries_.emplace(&block, summary);
  }

  // The control flow of `stmt` left in its block (less that of parts cut inside).
  std::size_t control_of(const ir::Stmt& stmt) const {
    std::size_t control = own_control(stmt);
    for (const ir::Block* inner : nested_blocks(stmt)) {
      if (!inner->empty()) control += summaries_.at(inner).control;
    }
    return control;
  }

  // live[i]: how many variables occur both in the statements of `block`
  // before i and in those from i on (0 < i < size; nested statements
  // included).
  std::vector<std::size_t> live_across(const ir::Block& block) {
    std::vector<std::uint32_t> touched;
    for (std::size_t i = 0; i < block.size(); ++i) {
      visit_vars(block, i, i + 1, [&](ir::VarId var, bool) {
        if (first_[var.index] == kNowhere) {
          first_[var.index] = i;
          touched.push_back(var.index);
        }
        last_[var.index] = i;
      });
    }
    // A variable first in statement f and last in l is live across f+1 .. l.
    std::vector<std::ptrdiff_t> change(block.size() + 1, 0);
    for (const std::uint32_t v : touched) {
      if (last_[v] > first_[v]) {
        ++change[first_[v] + 1];
        --change[last_[v] + 1];
      }
      first_[v] = kNowhere;
    }
    std::vector<std::size_t> live(block.size() + 1, 0);
    std::ptrdiff_t count = 0;
    for (std::size_t i = 0; i <= block.size(); ++i) {
      count += change[i];
      live[i] = static_cast<std::size_t>(count);
    }
    return live;
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
  std::size_t nodes_ = 0;  // the function's, parts included
  static constexpr std::size_t kNowhere = ~std::size_t{0};
  // By variable, for live_across: its first and last statement in the block
  // (kNowhere: not seen yet).
  std::vector<std::size_t> first_;
  std::vector<std::size_t> last_;
  FunctionPlan plan_;
  std::unordered_map<const ir::Block*, BlockSummary> summaries_;
  std::vector<const ir::Expr*> expr_stack_;  // own_exprs' walks
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
