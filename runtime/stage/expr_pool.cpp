#include "runtime/stage/expr_pool.h"

#include <vector>

#include "runtime/ir/builder.h"

namespace augur::stage {

std::size_t ExprPool::KeyHash::operator()(const Key& k) const noexcept {
  // Cheap multiply-xorshift steps: the words are pointers and small codes.
  constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ull;
  std::uint64_t h = static_cast<std::uint64_t>(k.kind) | std::uint64_t{k.op} << 8 |
                    static_cast<std::uint64_t>(k.type.scalar()) << 16 |
                    std::uint64_t{k.type.is_pointer()} << 24 | std::uint64_t{k.var} << 32;
  h = (h ^ k.bits) * kMul;
  h = (h ^ (h >> 29) ^ reinterpret_cast<std::uintptr_t>(k.callee)) * kMul;
  for (const ir::Expr* a : k.args) h = (h ^ (h >> 29) ^ reinterpret_cast<std::uintptr_t>(a)) * kMul;
  return static_cast<std::size_t>(h ^ (h >> 32));
}

template <class Make>
ir::ExprPtr ExprPool::find_or_make(const Key& key, Make&& make) {
  auto it = nodes_.find(key);
  if (it != nodes_.end()) return it->second;
  ir::ExprPtr made = make();
  nodes_.emplace(key, made);
  return made;
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
