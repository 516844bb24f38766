#include "tests/support/random_program.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <utility>

#include "runtime/ir/builder.h"
#include "tests/support/rng.h"
#include "tests/support/test_externs.h"

namespace augur::testing {

namespace {

using ir::BinaryOp;
using ir::Block;
using ir::ExprPtr;
using ir::MathOp;
using ir::Stmt;
using ir::Type;
using ir::UnaryOp;
using ir::VarId;

std::size_t expr_nodes(const ExprPtr& e) {
  if (!e) return 0;
  std::size_t n = 1;
  for (const ExprPtr& arg : e->args) n += expr_nodes(arg);
  return n;
}

// The statement itself and its expressions, without nested blocks.
std::size_t own_nodes(const Stmt& s) {
  return 1 + expr_nodes(s.expr) + expr_nodes(s.ptr) + expr_nodes(s.index);
}

std::size_t block_nodes(const Block& block) {
  std::size_t n = 0;
  for (const Stmt& s : block) {
    n += own_nodes(s) + block_nodes(s.body) + block_nodes(s.orelse) + block_nodes(s.init) +
         block_nodes(s.step);
  }
  return n;
}

struct ScalarVar {
  VarId id;
  Type type;
  bool assignable;  // loop counters and temporaries are read-only
};

// A pointer variable and how many elements it may access from where it points.
struct ArrayVar {
  VarId id;
  Type pointer;
  std::uint32_t length;
};

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
};

class Generator {
 public:
  explicit Generator(const RandomProgramOptions& options)
      : options_(options),
        features_(options.features),
        rng_(options.seed),
        types_(make_types(options.features)),
        ret_(rng_.pick(std::span<const Type>(types_.values))),
        externs_(test_externs()),
        b_("random_" + std::to_string(options.seed), ret_) {}

  RandomProgram run() {
    make_params();
    budget_ = options_.target_nodes != 0 ? options_.target_nodes : 10 + rng_.below(171);
    do {
      gen_statement();
    } while (made_ < budget_);
    emit(Stmt::return_(gen_expr(ret_, options_.max_expr_depth)));

    RandomProgram out;
    out.entry = b_.function().name;
    out.module = std::move(module_);
    out.module.functions.push_back(std::move(b_).finish());
    out.params = std::move(params_);
    out.externs = std::move(externs_);
    out.inexact_math = inexact_;
    out.nodes = count_nodes(out.module.functions.front());
    return out;
  }

 private:
  struct Types {
    std::vector<Type> ints, floats, numeric, values;  // values: numeric and bool
  };

  static Types make_types(const RandomFeatures& f) {
    Types t;
    if (f.all_int_widths) {
      t.ints = {Type::i8(), Type::i16(), Type::i32(), Type::i64(),
                Type::u8(), Type::u16(), Type::u32(), Type::u64()};
    } else {
      t.ints = {Type::i32(), Type::i64()};
    }
    if (f.floats) t.floats = {Type::f32(), Type::f64()};
    t.numeric = t.ints;
    t.numeric.insert(t.numeric.end(), t.floats.begin(), t.floats.end());
    t.values = t.numeric;
    t.values.push_back(Type::bool_());
    return t;
  }

  // ------------------------------------------------------------ helpers

  Type pick(const std::vector<Type>& types) { return rng_.pick(std::span<const Type>(types)); }

  std::string fresh(std::string_view prefix) {
    return std::string(prefix) + std::to_string(names_++);
  }

  void emit(Stmt s) {
    made_ += own_nodes(s);
    b_.emit(std::move(s));
  }

  ir::ExternRef extern_named(std::string_view name) {
    return module_.declare_extern(*externs_.find(name)->decl);
  }

  // Evaluates `e` once into a read-only temporary, so a guard and its use see one value.
  ExprPtr hoist(ExprPtr e) {
    const VarId v = b_.new_local(fresh("t"), e->type);
    emit(Stmt::decl(v, std::move(e)));
    return b_.read(v);
  }

  static ExprPtr to_type(ExprPtr e, Type t) { return e->type == t ? e : ir::cast(t, std::move(e)); }

  ExprPtr int_const(Type t, std::uint64_t v) { return ir::constant(t, v); }

  std::vector<VarId> vars_of(Type t, bool assignable_only = false) const {
    std::vector<VarId> out;
    for (const ScalarVar& v : scalars_) {
      if (v.type == t && (v.assignable || !assignable_only)) out.push_back(v.id);
    }
    return out;
  }

  std::vector<const ArrayVar*> arrays_of(Type elem) const {
    std::vector<const ArrayVar*> out;
    for (const ArrayVar& a : arrays_) {
      if (a.pointer.pointee() == elem) out.push_back(&a);
    }
    return out;
  }

  // Picks an index in `weights` with probability proportional to its weight;
  // at least one weight is positive.
  std::size_t weighted(std::span<const unsigned> weights) {
    unsigned total = 0;
    for (unsigned w : weights) total += w;
    unsigned r = static_cast<unsigned>(rng_.below(total));
    for (std::size_t i = 0;; ++i) {
      if (r < weights[i]) return i;
      r -= weights[i];
    }
  }

  // ------------------------------------------------------------ parameters

  void make_params() {
    const unsigned scalars = static_cast<unsigned>(rng_.below(options_.max_scalar_params + 1));
    const unsigned arrays =
        features_.arrays ? static_cast<unsigned>(rng_.below(options_.max_array_params + 1)) : 0;
    std::vector<char> is_array(scalars, 0);
    is_array.insert(is_array.end(), arrays, 1);
    for (std::size_t i = is_array.size(); i > 1; --i) {
      std::swap(is_array[i - 1], is_array[rng_.below(i)]);
    }
    for (char array : is_array) {
      const Type elem = pick(types_.values);
      if (array) {
        const auto length = static_cast<std::uint32_t>(
            1 + rng_.below(std::max<std::uint32_t>(options_.max_array_length, 1)));
        const Type pointer = Type::pointer_to(elem.scalar());
        const std::string name = fresh("p");
        arrays_.push_back({b_.param(name, pointer), pointer, length});
        params_.push_back({name, pointer, length});
      } else {
        const std::string name = fresh("a");
        scalars_.push_back({b_.param(name, elem), elem, true});
        params_.push_back({name, elem, 0});
      }
    }
  }

  // ------------------------------------------------------------ statements

  // Generates one statement (and the temporaries it needs). Returns true if it
  // ended the block (break, continue, return).
  bool gen_statement() {
    const bool can_nest = depth_ < options_.max_depth;
    const bool can_loop = can_nest && (loop_depth_ == 0 || features_.nested_loops);
    const bool in_loop = loop_depth_ > 0 && features_.break_continue;
    const bool has_assignable = std::any_of(scalars_.begin(), scalars_.end(),
                                            [](const ScalarVar& v) { return v.assignable; });
    const bool has_arrays = !arrays_.empty();
    const unsigned weights[] = {
        4,                                                                  // Declare
        has_assignable ? 4u : 0u,                                           // Assign
        has_arrays ? 3u : 0u,                                               // Store
        can_emit_effect() ? 1u : 0u,                                        // Effect
        has_arrays && features_.pointer_arithmetic ? 1u : 0u,               // PointerLocal
        can_nest && features_.branches ? 3u : 0u,                           // If
        can_loop && features_.loops ? 2u : 0u,                              // While
        can_loop && features_.loops && features_.break_continue ? 1u : 0u,  // WhileTrue
        can_loop && features_.for_loops ? 2u : 0u,                          // For
        in_loop ? 1u : 0u,                                                  // Break
        in_loop ? 1u : 0u,                                                  // Continue
        depth_ > 0 && features_.early_returns ? 1u : 0u,                    // Return
    };
    switch (static_cast<StmtChoice>(weighted(weights))) {
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
        emit(Stmt::break_());
        return true;
      case StmtChoice::Continue:
        emit(Stmt::continue_());
        return true;
      case StmtChoice::Return:
        emit(Stmt::return_(gen_expr(ret_, options_.max_expr_depth)));
        return true;
    }
    return false;
  }

  // A nested block; `prologue` emits its first statements (loop bookkeeping).
  Block gen_block(const std::function<void()>& prologue = {}) {
    const std::size_t scalars = scalars_.size(), arrays = arrays_.size();
    ++depth_;
    Block block = b_.capture([&] {
      if (prologue) prologue();
      const std::uint64_t n = 1 + rng_.below(std::max(options_.max_block_statements, 1u));
      for (std::uint64_t k = 0; k < n && made_ < budget_; ++k) {
        if (gen_statement()) break;
      }
    });
    --depth_;
    scalars_.resize(scalars);
    arrays_.resize(arrays);
    return block;
  }

  void gen_declare() {
    const Type t = pick(types_.values);
    ExprPtr init = rng_.chance(80) ? gen_expr(t, options_.max_expr_depth) : nullptr;
    const VarId v = b_.new_local(fresh("v"), t);
    emit(Stmt::decl(v, std::move(init)));
    scalars_.push_back({v, t, true});
  }

  void gen_assign() {
    std::vector<const ScalarVar*> targets;
    for (const ScalarVar& v : scalars_) {
      if (v.assignable) targets.push_back(&v);
    }
    const ScalarVar target = *rng_.pick(std::span<const ScalarVar* const>(targets));
    emit(Stmt::assign(target.id, gen_expr(target.type, options_.max_expr_depth)));
  }

  void gen_store() {
    const ArrayVar& a = rng_.pick(std::span<const ArrayVar>(arrays_));
    auto [pointer, index] = element(a);
    emit(Stmt::store(std::move(pointer), std::move(index),
                     gen_expr(a.pointer.pointee(), options_.max_expr_depth)));
  }

  // Arrays t_poke may write bytes into: integer elements (a byte in a bool
  // would not be 0 or 1; in a float it would be an arbitrary NaN payload).
  std::vector<const ArrayVar*> pokeable_arrays() const {
    std::vector<const ArrayVar*> out;
    for (const ArrayVar& a : arrays_) {
      if (a.pointer.pointee().is_integer()) out.push_back(&a);
    }
    return out;
  }

  std::vector<const ArrayVar*> atomic_arrays() const {
    std::vector<const ArrayVar*> out;
    for (const ArrayVar& a : arrays_) {
      const Type elem = a.pointer.pointee();
      if (elem.is_arithmetic() && (elem.bits() == 32 || elem.bits() == 64)) out.push_back(&a);
    }
    return out;
  }

  bool can_emit_effect() const {
    return features_.effectful_calls || (features_.atomics && !atomic_arrays().empty());
  }

  void gen_effect() {
    const bool atomic = features_.atomics && !atomic_arrays().empty() &&
                        (!features_.effectful_calls || rng_.chance(50));
    if (atomic) return gen_atomic();
    const std::vector<const ArrayVar*> pokeable = pokeable_arrays();
    if (!pokeable.empty() && rng_.chance(40)) {
      const ArrayVar& a = *rng_.pick(std::span<const ArrayVar* const>(pokeable));
      auto [pointer, count] = byte_view(a);
      ExprPtr value = to_type(gen_expr(pick(types_.ints), options_.max_expr_depth), Type::u64());
      emit(Stmt::eval(ir::call(extern_named("t_poke"), {pointer, count, value})));
      return;
    }
    emit(Stmt::eval(
        ir::call(extern_named("t_log"), {gen_expr(Type::i64(), options_.max_expr_depth)})));
  }

  void gen_atomic() {
    const std::vector<const ArrayVar*> arrays = atomic_arrays();
    const ArrayVar& a = *rng_.pick(std::span<const ArrayVar* const>(arrays));
    const Type elem = a.pointer.pointee();
    std::vector<ir::AtomicOp> ops = {ir::AtomicOp::Add, ir::AtomicOp::Exchange};
    if (elem.is_integer()) {
      ops.insert(ops.end(), {ir::AtomicOp::Min, ir::AtomicOp::Max, ir::AtomicOp::Cas});
    }
    const ir::AtomicOp op = rng_.pick(std::span<const ir::AtomicOp>(ops));
    auto [pointer, index] = element(a);
    std::vector<ExprPtr> args = {pointer, index};
    for (unsigned i = 2; i < ir::arity(op); ++i) args.push_back(gen_expr(elem, 1));
    emit(Stmt::eval(ir::atomic(op, std::move(args))));
  }

  void gen_pointer_local() {
    const ArrayVar& a = rng_.pick(std::span<const ArrayVar>(arrays_));
    const std::uint32_t offset = static_cast<std::uint32_t>(rng_.below(a.length));
    const ExprPtr pointer = ir::binary(BinaryOp::Add, b_.read(a.id), offset_const(offset));
    const VarId q = b_.new_local(fresh("q"), a.pointer);
    emit(Stmt::decl(q, pointer));
    arrays_.push_back({q, a.pointer, a.length - offset});
  }

  void gen_if() {
    ExprPtr cond = gen_expr(Type::bool_(), options_.max_expr_depth);
    Block then_block = gen_block();
    Block else_block = rng_.chance(50) ? gen_block() : Block{};
    emit(Stmt::if_(std::move(cond), std::move(then_block), std::move(else_block)));
  }

  // A loop counter's type, and a bound for it between 0 and 7.
  Type counter_type() {
    return pick(features_.all_int_widths
                    ? std::vector<Type>{Type::i32(), Type::i64(), Type::u8(), Type::u32()}
                    : std::vector<Type>{Type::i32(), Type::i64()});
  }

  ExprPtr loop_bound(Type t) {
    // Nested loops multiply their trip counts; keep the product small.
    const std::uint64_t most = loop_depth_ == 0 ? 7 : 3;
    if (rng_.chance(50)) return int_const(t, rng_.below(most + 1));
    ExprPtr e = to_type(gen_expr(pick(types_.ints), 2), t);
    return ir::binary(BinaryOp::BitAnd, std::move(e), int_const(t, most));
  }

  ExprPtr plus(VarId v, Type t, std::uint64_t k) {
    return ir::binary(BinaryOp::Add, b_.read(v), int_const(t, k));
  }

  // var c = 0; while (c < bound) { c = c + 1; ... }
  void gen_while() {
    const Type t = counter_type();
    ExprPtr bound = loop_bound(t);
    const VarId c = b_.new_local(fresh("c"), t);
    emit(Stmt::decl(c, int_const(t, 0)));
    scalars_.push_back({c, t, false});
    ++loop_depth_;
    Block body = gen_block([&] { emit(Stmt::assign(c, plus(c, t, 1))); });
    --loop_depth_;
    emit(Stmt::while_(ir::binary(BinaryOp::Lt, b_.read(c), std::move(bound)), std::move(body)));
  }

  // var c = 0; while (true) { if (c >= bound) { break; } c = c + 1; ... }
  void gen_while_true() {
    const Type t = counter_type();
    ExprPtr bound = loop_bound(t);
    const VarId c = b_.new_local(fresh("c"), t);
    emit(Stmt::decl(c, int_const(t, 0)));
    scalars_.push_back({c, t, false});
    ++loop_depth_;
    Block body = gen_block([&] {
      emit(Stmt::if_(ir::binary(BinaryOp::Ge, b_.read(c), bound), {Stmt::break_()}));
      emit(Stmt::assign(c, plus(c, t, 1)));
    });
    --loop_depth_;
    emit(Stmt::while_(ir::constant(true), std::move(body)));
  }

  // for (var i = 0; i < bound; i = i + step), for (var i = bound; i > 0; i = i - 1),
  // or the first with a counter declared before the loop (and readable after it).
  void gen_for() {
    const Type t = counter_type();
    ExprPtr bound = loop_bound(t);
    const std::size_t scalars = scalars_.size();
    const int shape = static_cast<int>(rng_.below(3));
    const VarId i = b_.new_local(fresh(shape == 2 ? "m" : "k"), t);
    if (shape == 2) {
      emit(Stmt::decl(i));
      scalars_.push_back({i, t, false});
    }
    Block init = b_.capture([&] {
      emit(shape == 0   ? Stmt::decl(i, int_const(t, 0))
           : shape == 1 ? Stmt::decl(i, bound)
                        : Stmt::assign(i, int_const(t, 0)));
    });
    ExprPtr cond = shape == 1 ? ir::binary(BinaryOp::Gt, b_.read(i), int_const(t, 0))
                              : ir::binary(BinaryOp::Lt, b_.read(i), bound);
    Block step = b_.capture([&] {
      emit(shape == 1 ? Stmt::assign(i, ir::binary(BinaryOp::Sub, b_.read(i), int_const(t, 1)))
                      : Stmt::assign(i, plus(i, t, 1 + rng_.below(2))));
    });
    if (shape != 2) scalars_.push_back({i, t, false});
    ++loop_depth_;
    Block body = gen_block();
    --loop_depth_;
    if (shape != 2) scalars_.resize(scalars);
    emit(Stmt::for_(std::move(init), std::move(cond), std::move(step), std::move(body)));
  }

  // ------------------------------------------------------------ memory

  // A pointer into `a` (maybe moved by pointer arithmetic) and an index kept in range.
  std::pair<ExprPtr, ExprPtr> element(const ArrayVar& a) {
    ExprPtr pointer = b_.read(a.id);
    std::uint32_t length = a.length;
    if (features_.pointer_arithmetic && length > 1 && rng_.chance(30)) {
      // (p + k) - m with m <= k: every intermediate stays inside the array.
      const auto k = static_cast<std::uint32_t>(rng_.below(length));
      const auto m = static_cast<std::uint32_t>(rng_.below(k + 1));
      pointer = ir::binary(BinaryOp::Add, pointer, offset_const(k));
      if (m > 0) pointer = ir::binary(BinaryOp::Sub, pointer, offset_const(m));
      length -= k - m;
    }
    return {pointer, index_below(length)};
  }

  // A pointer offset of a random type wide enough for any array length.
  ExprPtr offset_const(std::uint32_t k) {
    return int_const(pick({Type::i32(), Type::i64(), Type::u32(), Type::u64()}), k);
  }

  // An arbitrary integer reduced into [0, length) by an unsigned remainder.
  ExprPtr index_below(std::uint32_t length) {
    std::vector<Type> index_types = {Type::u32(), Type::u64()};
    if (features_.all_int_widths && length <= 0xff) index_types.push_back(Type::u8());
    if (features_.all_int_widths && length <= 0xffff) index_types.push_back(Type::u16());
    const Type t = pick(index_types);
    ExprPtr e = to_type(gen_expr(pick(types_.ints), 2), t);
    return ir::binary(BinaryOp::Rem, std::move(e), int_const(t, length));
  }

  // `a` as bytes: a u8 pointer and the number of bytes it may access.
  std::pair<ExprPtr, ExprPtr> byte_view(const ArrayVar& a) {
    return {ir::cast(Type::pointer_to(ir::Scalar::U8), b_.read(a.id)),
            int_const(Type::u64(), a.length * a.pointer.pointee().size())};
  }

  // ------------------------------------------------------------ expressions

  ExprPtr gen_expr(Type t, unsigned depth) {
    if (depth == 0 || rng_.chance(25)) return leaf(t);
    if (t.is_bool()) return gen_bool(depth);
    if (t.is_float()) return gen_float(t, depth);
    return gen_int(t, depth);
  }

  // A constant, a variable, an array element, or a variable of another type
  // converted: leaves favour data over constants, so results depend on inputs.
  ExprPtr leaf(Type t) {
    const std::vector<VarId> vars = vars_of(t);
    const std::vector<const ArrayVar*> arrays = arrays_of(t);
    const bool convert = features_.casts && !scalars_.empty();
    const unsigned weights[] = {2, vars.empty() ? 0u : 5u, arrays.empty() ? 0u : 2u,
                                convert ? 2u : 0u};
    switch (weighted(weights)) {
      case 1:
        return b_.read(rng_.pick(std::span<const VarId>(vars)));
      case 2: {
        auto [pointer, index] = element(*rng_.pick(std::span<const ArrayVar* const>(arrays)));
        return ir::load(std::move(pointer), std::move(index));
      }
      case 3:
        return to_type(b_.read(rng_.pick(std::span<const ScalarVar>(scalars_)).id), t);
      default:
        return random_constant(t);
    }
  }

  ExprPtr random_constant(Type t) {
    if (t.is_bool()) return ir::constant(rng_.chance(50));
    if (t.is_float()) {
      static constexpr double kSpecial[] = {0.0, -0.0, 1.0, -1.5, 0.1, 1e300, -1e-300, 3.0e38};
      double v = 0;
      switch (rng_.below(5)) {
        case 0:
          v = kSpecial[rng_.below(std::size(kSpecial))];
          break;
        case 1:
          v = rng_.chance(50) ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
          break;
        case 2:
          v = static_cast<double>(rng_.between(-8, 8));
          break;
        default:
          v = static_cast<double>(rng_.between(-1000000, 1000000)) / 1024.0;
      }
      if (t == Type::f32()) return ir::constant(static_cast<float>(v));
      return ir::constant(v);
    }
    const unsigned width = t.bits();
    const std::uint64_t sign = std::uint64_t{1} << (width - 1);
    switch (rng_.below(7)) {
      case 0:
        return int_const(t, 0);
      case 1:
        return int_const(t, 1);
      case 2:
        return int_const(t, ~std::uint64_t{0});  // -1, or the unsigned maximum
      case 3:
        return int_const(t, sign);  // the signed minimum
      case 4:
        return int_const(t, sign - 1);
      case 5:
        return int_const(t, static_cast<std::uint64_t>(rng_.between(-8, 8)));
      default:
        return int_const(t, rng_.next());
    }
  }

  // A call to a test extern with a `t` result, or null if none fits.
  ExprPtr gen_call(Type t, unsigned depth) {
    std::vector<std::string_view> candidates;
    auto consider = [&](bool enabled, std::string_view name, Type ret) {
      if (enabled && (ret == t || (features_.casts && t.is_value()))) candidates.push_back(name);
    };
    consider(features_.pure_calls, "t_mix_i32", Type::i32());
    consider(features_.pure_calls, "t_mix_i64", Type::i64());
    consider(features_.pure_calls && features_.floats, "t_blend_f64", Type::f64());
    consider(features_.readonly_calls && !arrays_.empty(), "t_hash_bytes", Type::u64());
    consider(features_.effectful_calls, "t_tick", Type::i64());
    if (candidates.empty()) return nullptr;
    const std::string_view name = rng_.pick(std::span<const std::string_view>(candidates));
    const ir::ExternRef fn = extern_named(name);
    std::vector<ExprPtr> args;
    if (name == "t_hash_bytes") {
      auto [pointer, count] = byte_view(rng_.pick(std::span<const ArrayVar>(arrays_)));
      args = {pointer, count};
    } else {
      for (Type p : fn->params) args.push_back(gen_expr(p, depth - 1));
    }
    return to_type(ir::call(fn, std::move(args)), t);
  }

  // x / y and x % y with y replaced by 1 where it is 0, or where it is -1 and x is the minimum.
  ExprPtr safe_division(BinaryOp op, Type t, unsigned depth) {
    const ExprPtr x = hoist(gen_expr(t, depth - 1));
    const ExprPtr y = hoist(gen_expr(t, depth - 1));
    ExprPtr unsafe = ir::binary(BinaryOp::Eq, y, int_const(t, 0));
    if (t.is_signed()) {
      const std::uint64_t min = std::uint64_t{1} << (t.bits() - 1);
      unsafe = ir::binary(
          BinaryOp::Or, unsafe,
          ir::binary(BinaryOp::And, ir::binary(BinaryOp::Eq, y, int_const(t, ~std::uint64_t{0})),
                     ir::binary(BinaryOp::Eq, x, int_const(t, min))));
    }
    return ir::binary(op, x, ir::select(unsafe, int_const(t, 1), y));
  }

  enum class Form { Unary, Binary, Division, Select, Cast, Math, Call, Load };

  Form pick_form(bool unary, bool division, bool has_load) {
    const unsigned weights[] = {
        unary ? 2u : 0u,             // Unary
        6,                           // Binary
        division ? 1u : 0u,          // Division
        features_.select ? 1u : 0u,  // Select
        features_.casts ? 2u : 0u,   // Cast
        features_.math ? 1u : 0u,    // Math
        1,                           // Call (falls back to Binary if none fits)
        has_load ? 2u : 0u,          // Load
    };
    return static_cast<Form>(weighted(weights));
  }

  ExprPtr gen_load(Type t) {
    const std::vector<const ArrayVar*> arrays = arrays_of(t);
    auto [pointer, index] = element(*rng_.pick(std::span<const ArrayVar* const>(arrays)));
    return ir::load(std::move(pointer), std::move(index));
  }

  ExprPtr gen_cast_to(Type t, unsigned depth) {
    return ir::cast(t, gen_expr(pick(types_.values), depth - 1));
  }

  ExprPtr gen_int(Type t, unsigned depth) {
    static constexpr BinaryOp kOps[] = {BinaryOp::Add,    BinaryOp::Sub,   BinaryOp::Mul,
                                        BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor,
                                        BinaryOp::Shl,    BinaryOp::Shr};
    switch (pick_form(true, true, !arrays_of(t).empty())) {
      case Form::Unary:
        return ir::unary(rng_.chance(50) ? UnaryOp::Neg : UnaryOp::BitNot, gen_expr(t, depth - 1));
      case Form::Division:
        return safe_division(rng_.chance(50) ? BinaryOp::Div : BinaryOp::Rem, t, depth);
      case Form::Select:
        return ir::select(gen_expr(Type::bool_(), depth - 1), gen_expr(t, depth - 1),
                          gen_expr(t, depth - 1));
      case Form::Cast:
        return gen_cast_to(t, depth);
      case Form::Math:
        return ir::math(rng_.chance(50) ? MathOp::Min : MathOp::Max,
                        {gen_expr(t, depth - 1), gen_expr(t, depth - 1)});
      case Form::Call:
        if (ExprPtr c = gen_call(t, depth)) return c;
        break;
      case Form::Load:
        return gen_load(t);
      case Form::Binary:
        break;
    }
    return ir::binary(kOps[rng_.below(std::size(kOps))], gen_expr(t, depth - 1),
                      gen_expr(t, depth - 1));
  }

  ExprPtr gen_float(Type t, unsigned depth) {
    static constexpr BinaryOp kOps[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
                                        BinaryOp::Rem};
    switch (pick_form(true, false, !arrays_of(t).empty())) {
      case Form::Unary:
        return ir::unary(UnaryOp::Neg, gen_expr(t, depth - 1));
      case Form::Select:
        return ir::select(gen_expr(Type::bool_(), depth - 1), gen_expr(t, depth - 1),
                          gen_expr(t, depth - 1));
      case Form::Cast:
        return gen_cast_to(t, depth);
      case Form::Math:
        return gen_float_math(t, depth);
      case Form::Call:
        if (ExprPtr c = gen_call(t, depth)) return c;
        break;
      case Form::Load:
        return gen_load(t);
      case Form::Binary:
      case Form::Division:
        break;
    }
    return ir::binary(kOps[rng_.below(std::size(kOps))], gen_expr(t, depth - 1),
                      gen_expr(t, depth - 1));
  }

  ExprPtr gen_float_math(Type t, unsigned depth) {
    std::vector<MathOp> ops = {MathOp::Sqrt, MathOp::Fabs, MathOp::Floor,
                               MathOp::Min,  MathOp::Max,  MathOp::Fma};
    if (features_.inexact_math) ops.insert(ops.end(), {MathOp::Exp, MathOp::Log, MathOp::Pow});
    const MathOp op = rng_.pick(std::span<const MathOp>(ops));
    if (op == MathOp::Exp || op == MathOp::Log || op == MathOp::Pow) inexact_ = true;
    std::vector<ExprPtr> args;
    for (unsigned i = 0; i < ir::arity(op); ++i) args.push_back(gen_expr(t, depth - 1));
    return ir::math(op, std::move(args));
  }

  ExprPtr gen_bool(unsigned depth) {
    static constexpr BinaryOp kCompare[] = {BinaryOp::Eq, BinaryOp::Ne, BinaryOp::Lt,
                                            BinaryOp::Le, BinaryOp::Gt, BinaryOp::Ge};
    static constexpr BinaryOp kLogic[] = {BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor,
                                          BinaryOp::Eq, BinaryOp::Ne};
    const Type b = Type::bool_();
    const unsigned weights[] = {
        6,                                  // comparison
        1,                                  // !
        features_.short_circuit ? 3u : 0u,  // && ||
        1,                                  // & | ^ == != on bools
        features_.select ? 1u : 0u,         // select
        features_.casts ? 1u : 0u,          // cast to bool
        arrays_of(b).empty() ? 0u : 1u,     // load
    };
    switch (weighted(weights)) {
      case 1:
        return ir::unary(UnaryOp::Not, gen_expr(b, depth - 1));
      case 2:
        return ir::binary(rng_.chance(50) ? BinaryOp::And : BinaryOp::Or, gen_expr(b, depth - 1),
                          gen_expr(b, depth - 1));
      case 3:
        return ir::binary(kLogic[rng_.below(std::size(kLogic))], gen_expr(b, depth - 1),
                          gen_expr(b, depth - 1));
      case 4:
        return ir::select(gen_expr(b, depth - 1), gen_expr(b, depth - 1), gen_expr(b, depth - 1));
      case 5:
        return ir::cast(b, gen_expr(pick(types_.numeric), depth - 1));
      case 6:
        return gen_load(b);
      default: {
        const Type operands = pick(types_.numeric);
        return ir::binary(kCompare[rng_.below(std::size(kCompare))], gen_expr(operands, depth - 1),
                          gen_expr(operands, depth - 1));
      }
    }
  }

  const RandomProgramOptions& options_;
  const RandomFeatures& features_;
  Rng rng_;
  Types types_;
  Type ret_;
  ir::ExternTable externs_;
  ir::FunctionBuilder b_;
  ir::Module module_;
  std::vector<ParamDesc> params_;
  std::vector<ScalarVar> scalars_;  // in scope here
  std::vector<ArrayVar> arrays_;    // in scope here
  std::size_t budget_ = 0;          // nodes the body grows to
  std::size_t made_ = 0;            // nodes emitted so far
  unsigned depth_ = 0;              // open nested blocks
  unsigned loop_depth_ = 0;
  unsigned names_ = 0;
  bool inexact_ = false;
};

}  // namespace

RandomProgram random_program(const RandomProgramOptions& options) {
  return Generator(options).run();
}

std::size_t count_nodes(const ir::Function& function) {
  return block_nodes(function.body);
}

}  // namespace augur::testing
