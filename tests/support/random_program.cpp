#include "tests/support/random_program.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "tests/support/random_gen.h"

namespace augur::testing {

namespace {

using gen::ArrayVar;
using gen::ExprGen;
using gen::ScalarVar;
using ir::BinaryOp;
using ir::Block;
using ir::ExprPtr;
using ir::Stmt;
using ir::Type;
using ir::VarId;

std::size_t block_nodes(const Block& block) {
  std::size_t n = 0;
  for (const Stmt& s : block) {
    n += gen::own_nodes(s) + block_nodes(s.body) + block_nodes(s.orelse) + block_nodes(s.init) +
         block_nodes(s.step);
  }
  return n;
}

enum class StmtChoice {
  Declare,
  Assign,
  Store,
  Effect,
  PointerLocal,
  If,
  While,
  WhileTrue,
  For,
  Break,
  Continue,
  Return,
  GuardedLoad,
};

// Generates the statements; expressions come from ExprGen.
class Generator {
 public:
  explicit Generator(const RandomProgramOptions& options) : s_(options), e_(s_) {}

  RandomProgram run() {
    make_params();
    budget_ = s_.options.target_nodes != 0 ? s_.options.target_nodes : 10 + s_.rng.below(171);
    do {
      gen_statement();
    } while (s_.made < budget_);
    s_.emit(Stmt::return_(e_.expr(s_.ret, s_.options.max_expr_depth)));

    RandomProgram out;
    out.entry = s_.builder.function().name;
    out.module = std::move(s_.module);
    out.module.functions.push_back(std::move(s_.builder).finish());
    out.params = std::move(params_);
    out.externs = std::move(s_.externs);
    out.inexact_math = s_.inexact;
    out.nodes = count_nodes(out.module.functions.front());
    return out;
  }

 private:
  // ------------------------------------------------------------ parameters

  void make_params() {
    const unsigned scalars = static_cast<unsigned>(s_.rng.below(s_.options.max_scalar_params + 1));
    const unsigned fewest = s_.options.shape == RandomShape::memory ? 1 : 0;
    const unsigned arrays =
        s_.features.arrays
            ? std::max(fewest, static_cast<unsigned>(s_.rng.below(s_.options.max_array_params + 1)))
            : 0;
    std::vector<char> is_array(scalars, 0);
    is_array.insert(is_array.end(), arrays, 1);
    for (std::size_t i = is_array.size(); i > 1; --i) {
      std::swap(is_array[i - 1], is_array[s_.rng.below(i)]);
    }
    for (char array : is_array) {
      const Type elem = s_.pick(s_.types.values);
      if (array) {
        const auto length = static_cast<std::uint32_t>(
            1 + s_.rng.below(std::max<std::uint32_t>(s_.options.max_array_length, 1)));
        const Type pointer = Type::pointer_to(elem.scalar());
        const std::string name = s_.fresh("p");
        s_.arrays.push_back({s_.builder.param(name, pointer), pointer, length});
        params_.push_back({name, pointer, length});
      } else {
        const std::string name = s_.fresh("a");
        s_.scalars.push_back({s_.builder.param(name, elem), elem, true});
        params_.push_back({name, elem, 0});
      }
    }
  }

  // ------------------------------------------------------------ statements

  // Generates one statement (and the temporaries it needs). Returns true if it
  // ended the block (break, continue, return).
  bool gen_statement() {
    const RandomShape shape = s_.options.shape;
    const bool control = shape != RandomShape::straight_line;
    const bool can_nest = control && depth_ < s_.options.max_depth;
    const bool can_loop =
        can_nest &&
        (loop_depth_ == 0 || (s_.features.nested_loops && shape != RandomShape::sibling_loops));
    const bool in_loop = loop_depth_ > 0 && s_.features.break_continue;
    const bool has_assignable = std::any_of(s_.scalars.begin(), s_.scalars.end(),
                                            [](const ScalarVar& v) { return v.assignable; });
    const bool has_arrays = !s_.arrays.empty();
    // The shapes scale the weights of what they lean to.
    const unsigned loops = shape == RandomShape::sibling_loops && depth_ == 0 ? 8
                           : shape == RandomShape::deep_nests                 ? 4
                                                                              : 1;
    const unsigned branches = shape == RandomShape::deep_nests ? 4 : 1;
    const unsigned stores = shape == RandomShape::memory ? 6 : 1;
    // Leaving a block early cuts a deep nest short.
    const unsigned exits = shape == RandomShape::deep_nests ? 0 : 1;
    const unsigned weights[] = {
        4,                                                                         // Declare
        has_assignable ? 4u : 0u,                                                  // Assign
        has_arrays ? 3u * stores : 0u,                                             // Store
        can_emit_effect() ? 1u : 0u,                                               // Effect
        has_arrays && s_.features.pointer_arithmetic ? 1u : 0u,                    // PointerLocal
        can_nest && s_.features.branches ? 3u * branches : 0u,                     // If
        can_loop && s_.features.loops ? 2u * loops : 0u,                           // While
        can_loop && s_.features.loops && s_.features.break_continue ? loops : 0u,  // WhileTrue
        can_loop && s_.features.for_loops ? 2u * loops : 0u,                       // For
        in_loop && control ? exits : 0u,                                           // Break
        in_loop && control ? exits : 0u,                                           // Continue
        depth_ > 0 && s_.features.early_returns ? exits : 0u,                      // Return
        can_nest && has_arrays && s_.features.guarded_loads ? 2u : 0u,             // GuardedLoad
    };
    switch (static_cast<StmtChoice>(s_.weighted(weights))) {
      case StmtChoice::Declare:
        gen_declare();
        return false;
      case StmtChoice::Assign:
        gen_assign();
        return false;
      case StmtChoice::Store:
        gen_store();
        return false;
      case StmtChoice::Effect:
        gen_effect();
        return false;
      case StmtChoice::PointerLocal:
        gen_pointer_local();
        return false;
      case StmtChoice::If:
        gen_if();
        return false;
      case StmtChoice::While:
        gen_while();
        return false;
      case StmtChoice::WhileTrue:
        gen_while_true();
        return false;
      case StmtChoice::For:
        gen_for();
        return false;
      case StmtChoice::Break:
        s_.emit(Stmt::break_(exit_levels()));
        return true;
      case StmtChoice::Continue:
        s_.emit(Stmt::continue_(exit_levels()));
        return true;
      case StmtChoice::Return:
        s_.emit(Stmt::return_(e_.expr(s_.ret, s_.options.max_expr_depth)));
        return true;
      case StmtChoice::GuardedLoad:
        gen_guarded_load();
        return false;
    }
    return false;
  }

  // How many loops a break or continue leaves: in nested loops, sometimes
  // more than one (every loop advances its counter first, so a continue of an
  // outer loop still ends).
  std::uint32_t exit_levels() {
    if (!s_.features.labelled_exits || loop_depth_ < 2 || !s_.rng.chance(40)) return 1;
    return 2 + static_cast<std::uint32_t>(s_.rng.below(loop_depth_ - 1));
  }

  // A nested block; `prologue` emits its first statements (loop bookkeeping).
  Block gen_block(const std::function<void()>& prologue = {}) {
    const std::size_t scalars = s_.scalars.size(), arrays = s_.arrays.size();
    ++depth_;
    Block block = s_.builder.capture([&] {
      if (prologue) prologue();
      const std::uint64_t n = 1 + s_.rng.below(std::max(s_.options.max_block_statements, 1u));
      for (std::uint64_t k = 0; k < n && s_.made < budget_; ++k) {
        if (gen_statement()) break;
      }
    });
    --depth_;
    s_.scalars.resize(scalars);
    s_.arrays.resize(arrays);
    return block;
  }

  void gen_declare() {
    const Type t = s_.pick(s_.types.values);
    ExprPtr init = s_.rng.chance(80) ? e_.expr(t, s_.options.max_expr_depth) : nullptr;
    const VarId v = s_.builder.new_local(s_.fresh("v"), t);
    s_.emit(Stmt::decl(v, std::move(init)));
    s_.scalars.push_back({v, t, true});
  }

  void gen_assign() {
    std::vector<const ScalarVar*> targets;
    for (const ScalarVar& v : s_.scalars) {
      if (v.assignable) targets.push_back(&v);
    }
    const ScalarVar target = *s_.rng.pick(std::span<const ScalarVar* const>(targets));
    s_.emit(Stmt::assign(target.id, e_.expr(target.type, s_.options.max_expr_depth)));
  }

  void gen_store() {
    const ArrayVar& a = s_.rng.pick(std::span<const ArrayVar>(s_.arrays));
    auto [pointer, index] = e_.element(a);
    s_.emit(Stmt::store(std::move(pointer), std::move(index),
                        e_.expr(a.pointer.pointee(), s_.options.max_expr_depth)));
  }

  // Arrays t_poke may write bytes into: integer elements (a byte in a bool
  // would not be 0 or 1; in a float it would be an arbitrary NaN payload).
  std::vector<const ArrayVar*> pokeable_arrays() const {
    std::vector<const ArrayVar*> out;
    for (const ArrayVar& a : s_.arrays) {
      if (a.pointer.pointee().is_integer()) out.push_back(&a);
    }
    return out;
  }

  std::vector<const ArrayVar*> atomic_arrays() const {
    std::vector<const ArrayVar*> out;
    for (const ArrayVar& a : s_.arrays) {
      const Type elem = a.pointer.pointee();
      if (elem.is_arithmetic() && (elem.bits() == 32 || elem.bits() == 64)) out.push_back(&a);
    }
    return out;
  }

  bool can_emit_effect() const {
    return s_.features.effectful_calls || (s_.features.atomics && !atomic_arrays().empty());
  }

  void gen_effect() {
    const bool atomic = s_.features.atomics && !atomic_arrays().empty() &&
                        (!s_.features.effectful_calls || s_.rng.chance(50));
    if (atomic) return gen_atomic();
    const std::vector<const ArrayVar*> pokeable = pokeable_arrays();
    if (!pokeable.empty() && s_.rng.chance(40)) {
      const ArrayVar& a = *s_.rng.pick(std::span<const ArrayVar* const>(pokeable));
      auto [pointer, count] = e_.byte_view(a);
      ExprPtr value =
          ExprGen::to_type(e_.expr(s_.pick(s_.types.ints), s_.options.max_expr_depth), Type::u64());
      s_.emit(Stmt::eval(ir::call(s_.extern_named("t_poke"), {pointer, count, value})));
      return;
    }
    s_.emit(Stmt::eval(
        ir::call(s_.extern_named("t_log"), {e_.expr(Type::i64(), s_.options.max_expr_depth)})));
  }

  void gen_atomic() {
    const std::vector<const ArrayVar*> arrays = atomic_arrays();
    const ArrayVar& a = *s_.rng.pick(std::span<const ArrayVar* const>(arrays));
    const Type elem = a.pointer.pointee();
    std::vector<ir::AtomicOp> ops = {ir::AtomicOp::Add, ir::AtomicOp::Exchange};
    if (elem.is_integer()) {
      ops.insert(ops.end(), {ir::AtomicOp::Min, ir::AtomicOp::Max, ir::AtomicOp::Cas});
    }
    const ir::AtomicOp op = s_.rng.pick(std::span<const ir::AtomicOp>(ops));
    auto [pointer, index] = e_.element(a);
    std::vector<ExprPtr> args = {pointer, index};
    for (unsigned i = 2; i < ir::arity(op); ++i) args.push_back(e_.expr(elem, 1));
    s_.emit(Stmt::eval(ir::atomic(op, std::move(args))));
  }

  void gen_pointer_local() {
    const ArrayVar& a = s_.rng.pick(std::span<const ArrayVar>(s_.arrays));
    const std::uint32_t offset = static_cast<std::uint32_t>(s_.rng.below(a.length));
    const ExprPtr pointer =
        ir::binary(BinaryOp::Add, s_.builder.read(a.id), e_.offset_const(offset));
    const VarId q = s_.builder.new_local(s_.fresh("q"), a.pointer);
    s_.emit(Stmt::decl(q, pointer));
    s_.arrays.push_back({q, a.pointer, a.length - offset});
  }

  // `var v = x; var g: u64 = <any integer>; if (g < length) { var t = p[g];
  // v = t; … }`: the index is checked, not reduced; v carries the load's
  // value out.
  void gen_guarded_load() {
    const ArrayVar a = s_.rng.pick(std::span<const ArrayVar>(s_.arrays));
    const Type element = a.pointer.pointee();
    const VarId carried = s_.builder.new_local(s_.fresh("v"), element);
    s_.emit(Stmt::decl(carried, e_.expr(element, 1)));
    const VarId index = s_.builder.new_local(s_.fresh("g"), Type::u64());
    s_.emit(Stmt::decl(
        index,
        ExprGen::to_type(e_.expr(s_.pick(s_.types.ints), s_.options.max_expr_depth), Type::u64())));
    ExprPtr in_range =
        ir::binary(BinaryOp::Lt, s_.builder.read(index), ir::constant(Type::u64(), a.length));
    Block then_block = gen_block([&] {
      const VarId loaded = s_.builder.new_local(s_.fresh("t"), element);
      s_.emit(Stmt::decl(loaded, ir::load(s_.builder.read(a.id), s_.builder.read(index))));
      s_.scalars.push_back({loaded, element, false});
      s_.emit(Stmt::assign(carried, s_.builder.read(loaded)));
    });
    s_.emit(Stmt::if_(std::move(in_range), std::move(then_block), Block{}));
    s_.scalars.push_back({carried, element, true});
  }

  void gen_if() {
    ExprPtr cond = e_.expr(Type::bool_(), s_.options.max_expr_depth);
    Block then_block = gen_block();
    Block else_block = s_.rng.chance(50) ? gen_block() : Block{};
    s_.emit(Stmt::if_(std::move(cond), std::move(then_block), std::move(else_block)));
  }

  // A loop counter's type, and a bound for it between 0 and 7.
  Type counter_type() {
    return s_.pick(s_.features.all_int_widths
                       ? std::vector<Type>{Type::i32(), Type::i64(), Type::u8(), Type::u32()}
                       : std::vector<Type>{Type::i32(), Type::i64()});
  }

  ExprPtr loop_bound(Type t) {
    // Nested loops multiply their trip counts; keep the product small.
    const std::uint64_t most = loop_depth_ == 0 ? 7 : 3;
    if (s_.rng.chance(50)) return ir::constant(t, s_.rng.below(most + 1));
    ExprPtr e = ExprGen::to_type(e_.expr(s_.pick(s_.types.ints), 2), t);
    return ir::binary(BinaryOp::BitAnd, std::move(e), ir::constant(t, most));
  }

  ExprPtr plus(VarId v, Type t, std::uint64_t k) {
    return ir::binary(BinaryOp::Add, s_.builder.read(v), ir::constant(t, k));
  }

  // var c = 0; while (c < bound) { c = c + 1; ... }
  void gen_while() {
    const Type t = counter_type();
    ExprPtr bound = loop_bound(t);
    const VarId c = s_.builder.new_local(s_.fresh("c"), t);
    s_.emit(Stmt::decl(c, ir::constant(t, 0)));
    s_.scalars.push_back({c, t, false});
    ++loop_depth_;
    Block body = gen_block([&] { s_.emit(Stmt::assign(c, plus(c, t, 1))); });
    --loop_depth_;
    s_.emit(Stmt::while_(ir::binary(BinaryOp::Lt, s_.builder.read(c), std::move(bound)),
                         std::move(body)));
  }

  // var c = 0; while (true) { if (c >= bound) { break; } c = c + 1; ... }
  void gen_while_true() {
    const Type t = counter_type();
    ExprPtr bound = loop_bound(t);
    const VarId c = s_.builder.new_local(s_.fresh("c"), t);
    s_.emit(Stmt::decl(c, ir::constant(t, 0)));
    s_.scalars.push_back({c, t, false});
    ++loop_depth_;
    Block body = gen_block([&] {
      s_.emit(Stmt::if_(ir::binary(BinaryOp::Ge, s_.builder.read(c), bound), {Stmt::break_()}));
      s_.emit(Stmt::assign(c, plus(c, t, 1)));
    });
    --loop_depth_;
    s_.emit(Stmt::while_(ir::constant(true), std::move(body)));
  }

  // for (var i = 0; i < bound; i = i + step), for (var i = bound; i > 0; i = i - 1),
  // or the first with a counter declared before the loop (and readable after it).
  void gen_for() {
    const Type t = counter_type();
    ExprPtr bound = loop_bound(t);
    const std::size_t scalars = s_.scalars.size();
    const int shape = static_cast<int>(s_.rng.below(3));
    const VarId i = s_.builder.new_local(s_.fresh(shape == 2 ? "m" : "k"), t);
    if (shape == 2) {
      s_.emit(Stmt::decl(i));
      s_.scalars.push_back({i, t, false});
    }
    Block init = s_.builder.capture([&] {
      s_.emit(shape == 0   ? Stmt::decl(i, ir::constant(t, 0))
              : shape == 1 ? Stmt::decl(i, bound)
                           : Stmt::assign(i, ir::constant(t, 0)));
    });
    ExprPtr cond = shape == 1 ? ir::binary(BinaryOp::Gt, s_.builder.read(i), ir::constant(t, 0))
                              : ir::binary(BinaryOp::Lt, s_.builder.read(i), bound);
    Block step = s_.builder.capture([&] {
      s_.emit(shape == 1 ? Stmt::assign(
                               i, ir::binary(BinaryOp::Sub, s_.builder.read(i), ir::constant(t, 1)))
                         : Stmt::assign(i, plus(i, t, 1 + s_.rng.below(2))));
    });
    if (shape != 2) s_.scalars.push_back({i, t, false});
    ++loop_depth_;
    Block body = gen_block();
    --loop_depth_;
    if (shape != 2) s_.scalars.resize(scalars);
    s_.emit(Stmt::for_(std::move(init), std::move(cond), std::move(step), std::move(body)));
  }

  gen::State s_;
  ExprGen e_;
  std::vector<ParamDesc> params_;
  std::size_t budget_ = 0;  // nodes the body grows to
  unsigned depth_ = 0;      // open nested blocks
  unsigned loop_depth_ = 0;
};

}  // namespace

RandomProgram random_program(const RandomProgramOptions& options) {
  return Generator(options).run();
}

std::size_t count_nodes(const ir::Function& function) {
  return block_nodes(function.body);
}

}  // namespace augur::testing
