// Constants that flow into and out of the parts of a split function
// (split_plan.h, find_part_constants).
//
// A forward constant propagation over the structured IR, without recursion:
// the state holds, for each tracked variable (the integer and bool inputs
// and in-outs of the parts), whether it holds one constant on every path to
// the current point. A loop is analysed from its entry state and again from
// the join of that and its back edges until the state at its head no longer
// changes; each round lowers at least one variable to "not constant", so a
// loop is analysed at most one more time than it has tracked variables. The
// analysis counts its work (statements visited, variables copied or joined)
// and gives up past a bound proportional to the function's size, leaving no
// constants: the plan is then what it was without them.
#include <cstdint>
#include <optional>
#include <span>

#include "jit/cpu/split_plan.h"
#include "runtime/ir/const_fold.h"
#include "runtime/ir/flow.h"
#include "runtime/ir/visit.h"

namespace augur::cpu {

namespace {

// Work units allowed per statement and expression node of the function.
constexpr std::size_t kWorkPerNode = 16;

struct Val {
  bool constant = false;
  std::uint64_t bits = 0;

  friend bool operator==(const Val&, const Val&) = default;
};

struct State {
  bool reachable = false;
  std::vector<Val> vals;  // by tracked slot

  friend bool operator==(const State&, const State&) = default;
};

class Analysis {
 public:
  Analysis(FunctionPlan& plan, std::size_t nodes) : plan_(plan), budget_(kWorkPerNode * nodes) {
    slot_.assign(plan.function->vars.size(), kUntracked);
    for (const Part& part : plan.parts) {
      for (const auto* vars : {&part.inputs, &part.inouts}) {
        for (ir::VarId var : *vars) track(var);
      }
    }
    track_sources();
  }

  // Fills the parts' constants; false if the work bound was reached.
  bool run() {
    if (tracked_.empty()) return true;
    entries_.assign(plan_.parts.size(), State{});
    exits_.assign(plan_.parts.size(), State{});
    State state{true, std::vector<Val>(tracked_.size())};  // nothing known
    frames_.push_back(Frame::run(plan_.function->body));
    if (!walk(state)) return false;
    for (Part& part : plan_.parts) {
      part.entry_constants = constants(entries_[part.index], part.inputs);
      const auto more = constants(entries_[part.index], part.inouts);
      part.entry_constants.insert(part.entry_constants.end(), more.begin(), more.end());
      if (!part.breaks && !part.continues) {
        part.exit_constants = constants(exits_[part.index], part.inouts);
      }
    }
    return true;
  }

 private:
  static constexpr std::uint32_t kUntracked = ~std::uint32_t{0};
  static constexpr std::size_t kNone = ~std::size_t{0};

  struct Frame {
    enum Kind { Block, If, Loop } kind = Block;
    const ir::Block* block = nullptr;  // Block: the statements it runs
    const ir::Stmt* stmt = nullptr;    // If, Loop
    std::size_t next = 0;              // Block: the next statement; If, Loop: the stage
    std::size_t open_part = kNone;     // Block: the part its statements are in
    State saved;                       // If: the state before; Loop: the state at its head
    State other;                       // If: the then-branch's end; Loop: breaks
    State continues;                   // Loop

    static Frame run(const ir::Block& block) {
      Frame frame;
      frame.kind = Block;
      frame.block = &block;
      return frame;
    }
    static Frame around(Kind kind, const ir::Stmt& stmt) {
      Frame frame;
      frame.kind = kind;
      frame.stmt = &stmt;
      return frame;
    }
  };

  // Whether `var` is tracked now and was not before.
  bool track(ir::VarId var) {
    const ir::Type type = plan_.function->var(var).type;
    if (slot_[var.index] != kUntracked || !(type.is_integer() || type.is_bool())) return false;
    slot_[var.index] = static_cast<std::uint32_t>(tracked_.size());
    tracked_.push_back(var);
    return true;
  }

  // Tracks the variables the tracked ones get their values from, through
  // the declarations and assignments that give them: a part that reads a
  // value derived from a constant (`t = ptr + 2`, as the PEG optimizer
  // writes it before a loop) sees that constant only if `ptr` is followed too.
  void track_sources() {
    std::vector<std::vector<ir::VarId>> sources(plan_.function->vars.size());
    ir::for_each_stmt(plan_.function->body, [&](const ir::Stmt& s) {
      if (s.kind != ir::StmtKind::Decl && s.kind != ir::StmtKind::Assign) return;
      ir::for_each_expr(s.expr, [&](const ir::Expr& e) {
        if (e.kind == ir::ExprKind::Var) sources[s.var.index].push_back(e.var);
      });
    });
    std::vector<ir::VarId> pending = tracked_;
    while (!pending.empty()) {
      const ir::VarId var = pending.back();
      pending.pop_back();
      for (const ir::VarId source : sources[var.index]) {
        if (track(source)) pending.push_back(source);
      }
    }
  }

  // Those of `vars` that hold a constant in `state`.
  std::vector<PartConstant> constants(const State& state,
                                      const std::vector<ir::VarId>& vars) const {
    std::vector<PartConstant> result;
    if (!state.reachable) return result;
    for (ir::VarId var : vars) {
      const std::uint32_t slot = slot_[var.index];
      if (slot != kUntracked && state.vals[slot].constant) {
        result.push_back({var, state.vals[slot].bits});
      }
    }
    return result;
  }

  bool spend(std::size_t work) {
    work_ += work;
    return work_ <= budget_;
  }

  bool copy(State& to, const State& from) {
    to = from;
    return spend(from.vals.size());
  }

  // to = to ⊔ from.
  bool join(State& to, const State& from) {
    if (!from.reachable) return spend(1);
    if (!to.reachable) return copy(to, from);
    for (std::size_t i = 0; i < to.vals.size(); ++i) {
      if (to.vals[i] != from.vals[i]) to.vals[i] = Val{};
    }
    return spend(to.vals.size());
  }

  Val evaluate(const ir::ExprPtr& expr, const State& state) {
    if (!expr) return Val{true, 0};  // a declaration without initializer: zero
    using Result = std::optional<std::uint64_t>;
    // A shared subexpression is folded once, whatever the DAG.
    ir::ExprFolder<Result> folder(ir::ExprFolder<Result>::Remember::shared_nodes);
    const Result r = folder.fold(expr, [&](const ir::ExprPtr& e, std::span<Result> args) {
      ++work_;
      for (const Result& arg : args) {
        if (!arg && e->kind != ir::ExprKind::Select) return Result{};
      }
      std::optional<ir::Constant> folded;
      switch (e->kind) {
        case ir::ExprKind::Const:
          return Result{e->bits};
        case ir::ExprKind::Var: {
          const std::uint32_t slot = slot_[e->var.index];
          if (slot == kUntracked || !state.vals[slot].constant) return Result{};
          return Result{state.vals[slot].bits};
        }
        case ir::ExprKind::Unary:
          folded = ir::fold_unary(e->unary_op(), e->args[0]->type, *args[0]);
          break;
        case ir::ExprKind::Binary:
          folded = ir::fold_binary(e->binary_op(), e->args[0]->type, *args[0], *args[1]);
          break;
        case ir::ExprKind::Cast:
          folded = ir::fold_cast(e->type, e->args[0]->type, *args[0]);
          break;
        case ir::ExprKind::Select:
          if (!args[0]) return Result{};
          return *args[0] ? args[1] : args[2];
        default:
          return Result{};
      }
      return folded ? Result{folded->bits} : Result{};
    });
    return r ? Val{true, *r} : Val{};
  }

  void assign(State& state, ir::VarId var, const ir::ExprPtr& value) {
    const std::uint32_t slot = slot_[var.index];
    if (slot != kUntracked && state.reachable) state.vals[slot] = evaluate(value, state);
  }

  // The innermost loop frame.
  Frame& loop() {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
      if (it->kind == Frame::Loop) return *it;
    }
    return frames_.front();  // verified IR has no break or continue outside a loop
  }

  bool walk(State& state) {
    while (!frames_.empty()) {
      if (!spend(1)) return false;
      Frame& top = frames_.back();
      if (top.kind == Frame::Block) {
        if (!block_step(top, state)) return false;
      } else if (top.kind == Frame::If) {
        if (!if_step(top, state)) return false;
      } else if (!loop_step(top, state)) {
        return false;
      }
    }
    return true;
  }

  bool block_step(Frame& top, State& state) {
    const ir::Block& block = *top.block;
    if (top.open_part != kNone && top.next == plan_.parts[top.open_part].end) {
      if (!copy(exits_[top.open_part], state)) return false;
      top.open_part = kNone;
    }
    if (top.next == block.size()) {
      frames_.pop_back();
      return true;
    }
    const ir::Stmt& stmt = block[top.next++];
    if (const Part* part = plan_.part_at(stmt)) {
      top.open_part = part->index;
      if (!copy(entries_[part->index], state)) return false;
    }
    switch (stmt.kind) {
      case ir::StmtKind::Decl:
      case ir::StmtKind::Assign:
        assign(state, stmt.var, stmt.expr);
        return true;
      case ir::StmtKind::Break:
      case ir::StmtKind::Continue: {
        Frame& target = loop();
        const bool ok =
            join(stmt.kind == ir::StmtKind::Break ? target.other : target.continues, state);
        state.reachable = false;
        return ok;
      }
      case ir::StmtKind::Return:
        state.reachable = false;
        return true;
      case ir::StmtKind::If: {
        Frame frame = Frame::around(Frame::If, stmt);
        if (!copy(frame.saved, state)) return false;
        frames_.push_back(std::move(frame));
        frames_.push_back(Frame::run(stmt.body));
        return true;
      }
      case ir::StmtKind::While:
      case ir::StmtKind::For: {
        frames_.push_back(Frame::around(Frame::Loop, stmt));
        if (!stmt.init.empty()) frames_.push_back(Frame::run(stmt.init));
        return true;
      }
      default:
        return true;
    }
  }

  // Stage 0: the then-branch ended; 1: the else-branch ended.
  bool if_step(Frame& top, State& state) {
    if (top.next++ == 0) {
      top.other = std::move(state);
      state = std::move(top.saved);
      frames_.push_back(Frame::run(top.stmt->orelse));
      return true;
    }
    const bool ok = join(state, top.other);
    frames_.pop_back();
    return ok;
  }

  // Stage 0: entered (its init run); 1: its body ended; 2: its step ended.
  bool loop_step(Frame& top, State& state) {
    const ir::Stmt& stmt = *top.stmt;
    const bool has_step = stmt.kind == ir::StmtKind::For && !stmt.step.empty();
    switch (top.next) {
      case 0:
        if (!copy(top.saved, state)) return false;
        break;
      case 1:
        if (!join(state, top.continues)) return false;
        if (has_step) {
          top.next = 2;
          frames_.push_back(Frame::run(stmt.step));
          return true;
        }
        [[fallthrough]];
      default: {
        State head = top.saved;
        if (!spend(head.vals.size()) || !join(head, state)) return false;
        if (head == top.saved) {
          // Left when the condition fails at the head, or by a break.
          const bool ok = ir::is_constant_true(stmt.expr)
                              ? copy(state, top.other)
                              : copy(state, top.saved) && join(state, top.other);
          frames_.pop_back();
          return ok;
        }
        top.saved = std::move(head);
      }
    }
    // Another round of the body from the state at the head.
    if (!copy(state, top.saved)) return false;
    top.other = State{};
    top.continues = State{};
    top.next = 1;
    frames_.push_back(Frame::run(stmt.body));
    return true;
  }

  FunctionPlan& plan_;
  std::size_t budget_;
  std::size_t work_ = 0;
  std::vector<std::uint32_t> slot_;  // by VarId: its tracked slot, or kUntracked
  std::vector<ir::VarId> tracked_;
  std::vector<State> entries_;  // by part: the state at its first statement
  std::vector<State> exits_;    // by part: the state after its last statement
  std::vector<Frame> frames_;
};

}  // namespace

const PartConstant* find_constant(const std::vector<PartConstant>& constants, ir::VarId var) {
  for (const PartConstant& constant : constants) {
    if (constant.var == var) return &constant;
  }
  return nullptr;
}

void find_part_constants(FunctionPlan& plan, std::size_t nodes) {
  if (Analysis(plan, nodes).run()) return;
  for (Part& part : plan.parts) {
    part.entry_constants.clear();
    part.exit_constants.clear();
  }
}

}  // namespace augur::cpu
