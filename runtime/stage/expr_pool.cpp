#include "runtime/stage/expr_pool.h"

#include <utility>
#include <vector>

#include "runtime/ir/builder.h"
#include "runtime/stage/tag.h"

namespace augur::stage {

std::uint64_t ExprPool::Key::hash() const {
  // Independent products (they pipeline), then one finalizer: masking keeps
  // the low bits, and it makes every input bit reach them.
  const std::uint64_t code = static_cast<std::uint64_t>(kind) | std::uint64_t{op} << 8 |
                             static_cast<std::uint64_t>(type.scalar()) << 16 |
                             std::uint64_t{type.is_pointer()} << 24 | std::uint64_t{var} << 32;
  const auto word = [](const void* p) {
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
  };
  return murmur_mix64(
      code ^ bits * 0x9e3779b97f4a7c15ull ^ word(callee) * 0xc2b2ae3d27d4eb4full ^
      word(args[0]) * 0x165667b19e3779f9ull ^ word(args[1]) * 0xd6e8feb86659fd93ull ^
      word(args[2]) * 0xff51afd7ed558ccdull ^ word(args[3]) * 0xc4ceb9fe1a85ec53ull);
}

bool ExprPool::Key::matches(const ir::Expr& e) const {
  if (e.kind != kind || e.op != op || e.bits != bits || e.var.index != var ||
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
  if (slots_.empty()) slots_.resize(1024);
  const std::uint64_t h = key.hash();
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    Slot& slot = slots_[i];
    if (!slot.node) break;
    if (slot.hash == h && key.matches(*slot.node)) return slot.node;
  }
  ir::ExprPtr made = make();
  if (2 * (count_ + 1) > slots_.size()) grow();
  for (std::size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
    if (!slots_[i].node) {
      slots_[i] = {h, made};
      break;
    }
  }
  ++count_;
  return made;
}

void ExprPool::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (Slot& s : old) {
    if (!s.node) continue;
    std::size_t i = s.hash & mask;
    while (slots_[i].node) i = (i + 1) & mask;
    slots_[i] = std::move(s);
  }
}

ir::ExprPtr ExprPool::constant(ir::Type type, std::uint64_t bits) {
  Key key(ir::ExprKind::Const, 0, type);
  key.bits = ir::canonical_bits(type, bits);
  return find_or_make(key, [&] { return ir::constant(type, bits); });
}

ir::ExprPtr ExprPool::read(ir::VarId var, ir::Type type) {
  Key key(ir::ExprKind::Var, 0, type);
  key.var = var.index;
  return find_or_make(key, [&] { return ir::read(var, type); });
}

ir::ExprPtr ExprPool::unary(ir::UnaryOp op, const ir::ExprPtr& operand) {
  Key key(ir::ExprKind::Unary, static_cast<std::uint8_t>(op));
  key.args[0] = operand.get();
  return find_or_make(key, [&] { return ir::unary(op, operand); });
}

ir::ExprPtr ExprPool::binary(ir::BinaryOp op, const ir::ExprPtr& lhs, const ir::ExprPtr& rhs) {
  Key key(ir::ExprKind::Binary, static_cast<std::uint8_t>(op));
  key.args = {lhs.get(), rhs.get()};
  return find_or_make(key, [&] { return ir::binary(op, lhs, rhs); });
}

ir::ExprPtr ExprPool::cast(ir::Type to, const ir::ExprPtr& operand) {
  Key key(ir::ExprKind::Cast, 0, to);
  key.args[0] = operand.get();
  return find_or_make(key, [&] { return ir::cast(to, operand); });
}

ir::ExprPtr ExprPool::select(const ir::ExprPtr& cond, const ir::ExprPtr& a, const ir::ExprPtr& b) {
  Key key(ir::ExprKind::Select);
  key.args = {cond.get(), a.get(), b.get()};
  return find_or_make(key, [&] { return ir::select(cond, a, b); });
}

ir::ExprPtr ExprPool::load(const ir::ExprPtr& pointer, const ir::ExprPtr& index) {
  Key key(ir::ExprKind::Load);
  key.args = {pointer.get(), index.get()};
  return find_or_make(key, [&] { return ir::load(pointer, index); });
}

ir::ExprPtr ExprPool::math(ir::MathOp op, std::span<const ir::ExprPtr> args) {
  Key key(ir::ExprKind::Math, static_cast<std::uint8_t>(op));
  for (std::size_t i = 0; i < args.size() && i < kMaxArgs; ++i) key.args[i] = args[i].get();
  return find_or_make(
      key, [&] { return ir::math(op, std::vector<ir::ExprPtr>(args.begin(), args.end())); });
}

ir::ExprPtr ExprPool::call(const ir::ExternRef& callee, std::span<const ir::ExprPtr> args) {
  if (args.size() > kMaxArgs) {
    return ir::call(callee, std::vector<ir::ExprPtr>(args.begin(), args.end()));
  }
  Key key(ir::ExprKind::Call);
  key.callee = callee.get();
  for (std::size_t i = 0; i < args.size(); ++i) key.args[i] = args[i].get();
  return find_or_make(
      key, [&] { return ir::call(callee, std::vector<ir::ExprPtr>(args.begin(), args.end())); });
}

}  // namespace augur::stage
