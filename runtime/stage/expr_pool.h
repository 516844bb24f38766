// Hash-consed IR expressions for one extraction. Every run of the first stage
// rebuilds the same expression trees; the pool hands back the node it already
// has for an operator applied to the same (pooled) operands, so a run that
// replays recorded code allocates nothing and compares statements by pointer.
// Pooled nodes live as long as the pool (and whatever holds them after).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>

#include "runtime/ir/ir.h"

namespace augur::stage {

class ExprPool {
 public:
  ir::ExprPtr constant(ir::Type type, std::uint64_t bits);
  ir::ExprPtr read(ir::VarId var, ir::Type type);
  ir::ExprPtr unary(ir::UnaryOp op, const ir::ExprPtr& operand);
  ir::ExprPtr binary(ir::BinaryOp op, const ir::ExprPtr& lhs, const ir::ExprPtr& rhs);
  ir::ExprPtr cast(ir::Type to, const ir::ExprPtr& operand);
  ir::ExprPtr select(const ir::ExprPtr& cond, const ir::ExprPtr& a, const ir::ExprPtr& b);
  ir::ExprPtr load(const ir::ExprPtr& pointer, const ir::ExprPtr& index);
  ir::ExprPtr math(ir::MathOp op, std::span<const ir::ExprPtr> args);
  ir::ExprPtr call(const ir::ExternRef& callee, std::span<const ir::ExprPtr> args);

  std::size_t size() const { return nodes_.size(); }

 private:
  static constexpr std::size_t kMaxArgs = 4;

  struct Key {
    Key(ir::ExprKind k, std::uint8_t o = 0, ir::Type t = {}) : kind(k), op(o), type(t) {}

    ir::ExprKind kind;
    std::uint8_t op = 0;
    ir::Type type;
    std::uint64_t bits = 0;
    std::uint32_t var = 0;
    const void* callee = nullptr;
    std::array<const ir::Expr*, kMaxArgs> args{};

    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept;
  };

  // The pooled node for `key`, made by `make` on a miss (which type-checks).
  template <class Make>
  ir::ExprPtr find_or_make(const Key& key, Make&& make);

  std::unordered_map<Key, ir::ExprPtr, KeyHash> nodes_;
};

}  // namespace augur::stage
