#include "runtime/stage/expr_pool.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/hash.h"
#include "runtime/stage/tag.h"

namespace augur::stage {

namespace {

std::atomic<bool> simplify_at_construction{true};

bool is_constant(const ir::ExprPtr& e) {
  return e->kind == ir::ExprKind::Const;
}
bool is_bits(const ir::ExprPtr& e, std::uint64_t bits) {
  return is_constant(e) && e->bits == bits;
}
// An integer constant equal to `v`.
bool is_value(const ir::ExprPtr& e, std::uint64_t v) {
  return is_bits(e, ir::canonical_bits(e->type, v));
}
std::uint64_t float_bits(ir::Type t, double v) {
  return t == ir::Type::f32() ? std::bit_cast<std::uint32_t>(static_cast<float>(v))
                              : std::bit_cast<std::uint64_t>(v);
}

// Whether every node of `root` satisfies `ok`, judged on small expressions
// only: past kMaxVisits nodes the answer is no, so a construction costs O(1).
template <class Ok>
bool small_and_all(const ir::Expr& root, Ok&& ok) {
  constexpr int kMaxVisits = 32;
  std::array<const ir::Expr*, kMaxVisits> stack{&root};
  int size = 1, visits = 0;
  while (size > 0) {
    const ir::Expr* e = stack[--size];
    if (++visits > kMaxVisits || !ok(*e)) return false;
    for (const ir::ExprPtr& a : e->args) {
      if (size == kMaxVisits) return false;
      stack[size++] = a.get();
    }
  }
  return true;
}

bool cannot_act(const ir::Expr& root) {
  return small_and_all(root, [](const ir::Expr& e) { return !ir::acts(e); });
}
bool cannot_trap_or_act(const ir::Expr& root) {
  return small_and_all(root,
                       [](const ir::Expr& e) { return !ir::acts(e) && !ir::may_trap_or_read(e); });
}

}  // namespace

std::uint32_t ExprPool::Key::hash() const {
  // Independent products (they pipeline), then one finalizer, which makes
  // every input bit reach the top 32 bits kept.
  const std::uint64_t code = static_cast<std::uint64_t>(kind) | std::uint64_t{op} << 8 |
                             static_cast<std::uint64_t>(type.scalar()) << 16 |
                             std::uint64_t{type.is_pointer()} << 24 | std::uint64_t{axis} << 28 |
                             std::uint64_t{var} << 32;
  const auto word = [](const void* p) {
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
  };
  return static_cast<std::uint32_t>(
      murmur_mix64(code ^ bits * 0x9e3779b97f4a7c15ull ^ word(callee) * 0xc2b2ae3d27d4eb4full ^
                   word(args[0]) * 0x165667b19e3779f9ull ^ word(args[1]) * 0xd6e8feb86659fd93ull ^
                   word(args[2]) * 0xff51afd7ed558ccdull ^ word(args[3]) * 0xc4ceb9fe1a85ec53ull) >>
      32);
}

bool ExprPool::Key::matches(const ir::Expr& e) const {
  if (kind == ir::ExprKind::Table) {
    return e.kind == ir::ExprKind::Table && e.type == type && e.table && *e.table == *table;
  }
  if (e.kind != kind || e.op != op || e.axis != axis || e.bits != bits || e.var.index != var ||
      e.callee.get() != callee || e.args.size() > kMaxArgs) {
    return false;
  }
  // Constants, reads and casts are told apart by type; other nodes by operands.
  if ((kind == ir::ExprKind::Const || kind == ir::ExprKind::Var || kind == ir::ExprKind::Cast) &&
      e.type != type) {
    return false;
  }
  for (std::size_t i = 0; i < kMaxArgs; ++i) {
    const ir::Expr* a = i < e.args.size() ? e.args[i].get() : nullptr;
    if (a != args[i]) return false;
  }
  return true;
}

template <class Make>
ir::ExprPtr ExprPool::find_or_make(const Key& key, Make&& make) {
  if (ir::ExprPtr hit = expected(key)) return hit;
  const Hashes h = hashes(key);
  if (ir::ExprPtr found = find(key, h)) return found;
  return insert(h, make());
}

template <class Simplify, class Make>
ir::ExprPtr ExprPool::find_or_simplify(const Key& key, std::span<const ir::ExprPtr> operands,
                                       Simplify&& simplify, Make&& make) {
  if (ir::ExprPtr hit = expected(key)) return hit;
  const Hashes h = hashes(key);
  if (ir::ExprPtr found = find(key, h)) return found;
  if (simplify_) {
    if (auto it = simplified_.find(key); it != simplified_.end()) return it->second.result;
    if (ir::ExprPtr simpler = simplify()) {
      Simplified entry{simpler, {}};
      std::copy(operands.begin(), operands.end(), entry.operands.begin());
      simplified_.emplace(key, std::move(entry));
      return simpler;
    }
  }
  return insert(h, make());
}

ExprPool::Hashes ExprPool::hashes(const Key& key) const {
  // The youngest operand, if it is this pool's own node.
  const ir::Expr* youngest = nullptr;
  std::size_t youngest_at = kMaxArgs;
  for (std::size_t i = 0; i < kMaxArgs; ++i) {
    const ir::Expr* a = key.args[i];
    if (a && (!youngest || a->serial > youngest->serial)) {
      youngest = a;
      youngest_at = i;
    }
  }
  const bool pooled =
      youngest && youngest->serial < nodes_.size() && nodes_[youngest->serial].get() == youngest;
  std::uint32_t anchor;
  Key rest = key;
  if (pooled) {
    anchor = youngest->serial;
    rest.args[youngest_at] = nullptr;
  } else if (!youngest) {
    anchor = static_cast<std::uint32_t>(key.bits) ^ key.var;
    rest.bits = key.bits >> 32;
    rest.var = 0;
  } else {
    anchor = 0;
  }
  rest.bits ^= std::uint64_t{anchor >> 6} << 32;
  return {key.hash(), (rest.hash() & ~std::uint32_t{63}) | (anchor & 63)};
}

ir::ExprPtr ExprPool::find(const Key& key, Hashes h) const {
  const std::uint32_t n = index_.find(
      h.table, h.filter, [&](std::uint32_t node) { return key.matches(*nodes_[node]); });
  return n == NodeIndex::kNone ? nullptr : nodes_[n];
}

void ExprPool::expect(std::span<const ir::Expr* const> roots) noexcept {
  hint_count_ = 0;
  for (const ir::Expr* root : roots) {
    if (root && hint_count_ < kHints) hints_[hint_count_++] = root;
  }
  for (std::size_t i = 0; i < hint_count_; ++i) {
    for (const ir::ExprPtr& a : hints_[i]->args) {
      if (hint_count_ == kHints) return;
      hints_[hint_count_++] = a.get();
    }
  }
}

ir::ExprPtr ExprPool::expected(const Key& key) const {
  for (std::size_t i = 0; i < hint_count_; ++i) {
    const ir::Expr* e = hints_[i];
    // A node outside the pool (an atomic, a call that acts) is never shared.
    if (key.matches(*e) && e->serial < nodes_.size() && nodes_[e->serial].get() == e) {
      return nodes_[e->serial];
    }
  }
  return nullptr;
}

ir::ExprPtr ExprPool::insert(Hashes h, ir::ExprPtr made) {
  if (nodes_.size() == NodeIndex::kNone) {
    throw jit::staging_error("the first stage built more than " +
                             std::to_string(NodeIndex::kNone - 1) + " distinct expressions");
  }
  index_.insert(h.table, h.filter, static_cast<std::uint32_t>(nodes_.size()));
  nodes_.push_back(made);
  return made;
}

ExprPool::ExprPool() : simplify_(simplify_at_construction.load(std::memory_order_relaxed)) {}

ir::ExprPtr ExprPool::share(ir::Expr node) {
  node.serial = static_cast<std::uint32_t>(nodes_.size());
  const ExprArena::Scope scope(arena_);
  return std::allocate_shared<const ir::Expr>(ArenaAllocator<ir::Expr>(), std::move(node));
}

ir::ExprPtr ExprPool::constant(ir::Type type, std::uint64_t bits) {
  Key key(ir::ExprKind::Const, 0, type);
  key.bits = ir::canonical_bits(type, bits);
  return find_or_make(key, [&] { return share(ir::constant_node(type, bits)); });
}

ir::ExprPtr ExprPool::read(ir::VarId var, ir::Type type) {
  Key key(ir::ExprKind::Var, 0, type);
  key.var = var.index;
  return find_or_make(key, [&] { return share(ir::read_node(var, type)); });
}

ir::ExprPtr ExprPool::simplify_unary(ir::UnaryOp op, const ir::ExprPtr& x) {
  if (!ir::check_unary(op, x->type).error.empty()) return nullptr;
  if (is_constant(x)) {
    if (auto c = ir::fold_unary(op, x->type, x->bits)) return from_constant(*c);
  }
  // Each unary operator is its own inverse: -(-x), ~~x and !!x are x
  // (a float negation flips the sign bit, twice is the identity).
  if (x->kind == ir::ExprKind::Unary && x->unary_op() == op) return x->args[0];
  return nullptr;
}

ir::ExprPtr ExprPool::unary(ir::UnaryOp op, const ir::ExprPtr& operand) {
  Key key(ir::ExprKind::Unary, static_cast<std::uint8_t>(op));
  key.args[0] = operand.get();
  return find_or_simplify(
      key, std::span(&operand, 1), [&] { return simplify_unary(op, operand); },
      [&] { return share(ir::unary_node(op, operand)); });
}

ir::ExprPtr ExprPool::simplify_binary(ir::BinaryOp op, const ir::ExprPtr& a, const ir::ExprPtr& b) {
  using ir::BinaryOp;
  if (!ir::check_binary(op, a->type, b->type).error.empty()) return nullptr;
  if (is_constant(a) && is_constant(b)) {
    if (auto c = ir::fold_binary(op, a->type, a->bits, b->bits)) return from_constant(*c);
  }
  // The right operand of && and || runs only when the left one does not decide.
  if ((op == BinaryOp::And || op == BinaryOp::Or) && is_constant(a)) {
    return (a->bits != 0) == (op == BinaryOp::Or) ? a : b;
  }
  const ir::Type t = a->type;
  if (t.is_integer()) {
    if ((op == BinaryOp::Add || op == BinaryOp::Sub) && is_value(b, 0)) return a;
    if (op == BinaryOp::Add && is_value(a, 0)) return b;
    if (op == BinaryOp::Mul && is_value(b, 1)) return a;
    if (op == BinaryOp::Mul && is_value(a, 1)) return b;
    // Dropping x drops its evaluation: only for x that cannot trap or act.
    if ((op == BinaryOp::Sub || op == BinaryOp::BitXor) && a == b && cannot_trap_or_act(*a)) {
      return constant(t, 0);
    }
  }
  // Evaluating x once instead of twice is the same unless x acts.
  if ((t.is_integer() || t.is_bool()) && (op == BinaryOp::BitAnd || op == BinaryOp::BitOr) &&
      a == b && cannot_act(*a)) {
    return a;
  }
  if (t.is_float()) {
    // Exact in IEEE arithmetic for every x, zeros and infinities included;
    // x + 0.0 is not (-0.0 + 0.0 is +0.0), nor is x - (-0.0).
    const std::uint64_t one = float_bits(t, 1.0), minus_zero = float_bits(t, -0.0);
    if (op == BinaryOp::Mul && is_bits(b, one)) return a;
    if (op == BinaryOp::Mul && is_bits(a, one)) return b;
    if (op == BinaryOp::Add && is_bits(b, minus_zero)) return a;
    if (op == BinaryOp::Add && is_bits(a, minus_zero)) return b;
    if (op == BinaryOp::Sub && is_bits(b, 0)) return a;
  }
  return nullptr;
}

ir::ExprPtr ExprPool::binary(ir::BinaryOp op, const ir::ExprPtr& lhs, const ir::ExprPtr& rhs) {
  Key key(ir::ExprKind::Binary, static_cast<std::uint8_t>(op));
  key.args = {lhs.get(), rhs.get()};
  const ir::ExprPtr operands[] = {lhs, rhs};
  return find_or_simplify(
      key, operands, [&] { return simplify_binary(op, lhs, rhs); },
      [&] { return share(ir::binary_node(op, lhs, rhs)); });
}

ir::ExprPtr ExprPool::cast(ir::Type to, const ir::ExprPtr& operand) {
  Key key(ir::ExprKind::Cast, 0, to);
  key.args[0] = operand.get();
  const auto simplify = [&]() -> ir::ExprPtr {
    if (!ir::check_cast(operand->type, to).error.empty()) return nullptr;
    if (operand->type == to) return operand;
    if (is_constant(operand)) {
      if (auto c = ir::fold_cast(to, operand->type, operand->bits)) return from_constant(*c);
    }
    return nullptr;
  };
  return find_or_simplify(key, std::span(&operand, 1), simplify,
                          [&] { return share(ir::cast_node(to, operand)); });
}

ir::ExprPtr ExprPool::select(const ir::ExprPtr& cond, const ir::ExprPtr& a, const ir::ExprPtr& b) {
  Key key(ir::ExprKind::Select);
  key.args = {cond.get(), a.get(), b.get()};
  const ir::ExprPtr operands[] = {cond, a, b};
  // Only the chosen operand is evaluated, so the other one may go.
  const auto simplify = [&]() -> ir::ExprPtr {
    if (!ir::check_select(cond->type, a->type, b->type).error.empty()) return nullptr;
    if (is_constant(cond)) return cond->bits != 0 ? a : b;
    return nullptr;
  };
  return find_or_simplify(key, operands, simplify,
                          [&] { return share(ir::select_node(cond, a, b)); });
}

ir::ExprPtr ExprPool::load(const ir::ExprPtr& pointer, const ir::ExprPtr& index) {
  Key key(ir::ExprKind::Load);
  key.args = {pointer.get(), index.get()};
  return find_or_make(key, [&] { return share(ir::load_node(pointer, index)); });
}

ir::ExprPtr ExprPool::math(ir::MathOp op, std::span<const ir::ExprPtr> args) {
  const auto make = [&] {
    return share(ir::math_node(op, std::vector<ir::ExprPtr>(args.begin(), args.end())));
  };
  if (args.size() > kMaxArgs) return make();  // ill-typed: make() says why
  Key key(ir::ExprKind::Math, static_cast<std::uint8_t>(op));
  for (std::size_t i = 0; i < args.size(); ++i) key.args[i] = args[i].get();
  const auto simplify = [&]() -> ir::ExprPtr {
    std::array<ir::Type, kMaxArgs> types{};
    std::array<std::uint64_t, kMaxArgs> values{};
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!is_constant(args[i])) return nullptr;
      types[i] = args[i]->type;
      values[i] = args[i]->bits;
    }
    if (args.empty() || !ir::check_math(op, std::span(types.data(), args.size())).error.empty()) {
      return nullptr;
    }
    const auto c = ir::fold_math(op, types[0], std::span(values.data(), args.size()));
    return c ? from_constant(*c) : nullptr;
  };
  return find_or_simplify(key, args, simplify, make);
}

ir::ExprPtr ExprPool::call(const ir::ExternRef& callee, std::span<const ir::ExprPtr> args) {
  const auto make = [&] {
    return share(ir::call_node(callee, std::vector<ir::ExprPtr>(args.begin(), args.end())));
  };
  // A call that is not pure happens once per node: two calls are two nodes.
  if (args.size() > kMaxArgs || callee->effect != ir::Effect::Pure) return make();
  Key key(ir::ExprKind::Call);
  key.callee = callee.get();
  for (std::size_t i = 0; i < args.size(); ++i) key.args[i] = args[i].get();
  return find_or_make(key, make);
}

ir::ExprPtr ExprPool::gpu_index(ir::GpuIndex which, unsigned axis) {
  Key key(ir::ExprKind::GpuIndex, static_cast<std::uint8_t>(which));
  key.axis = static_cast<std::uint8_t>(axis);
  return find_or_make(key, [&] { return share(ir::gpu_index_node(which, axis)); });
}

ir::ExprPtr ExprPool::table(ir::Type element, std::vector<std::byte> bytes) {
  const ir::ExprPtr made = ir::table(element, std::move(bytes));  // checks the contents
  ir::Hasher content;
  content.add(std::string_view(reinterpret_cast<const char*>(made->table->bytes.data()),
                               made->table->bytes.size()));
  Key key(ir::ExprKind::Table, 0, made->type);
  key.bits = content.finish().lo;
  key.table = made->table.get();
  return find_or_make(key, [&] { return made; });
}

ir::ExprPtr ExprPool::atomic(ir::AtomicOp op, std::span<const ir::ExprPtr> args) {
  // Each atomic is its own read-modify-write: never shared.
  return ir::atomic(op, std::vector<ir::ExprPtr>(args.begin(), args.end()));
}

void set_simplify_at_construction(bool on) {
  simplify_at_construction.store(on, std::memory_order_relaxed);
}

}  // namespace augur::stage
