// Hash-consed IR expressions for one extraction. Every run of the first stage
// rebuilds the same expression trees; the pool hands back the node it already
// has for an operator applied to the same (pooled) operands, so a run that
// replays recorded code allocates nothing and compares statements by pointer.
// Pooled nodes live as long as the pool (and whatever holds them after).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

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
  ir::ExprPtr gpu_index(ir::GpuIndex which, unsigned axis);
  ir::ExprPtr atomic(ir::AtomicOp op, std::span<const ir::ExprPtr> args);

  std::size_t size() const { return count_; }

 private:
  static constexpr std::size_t kMaxArgs = 4;

  // What identifies a node: its fields, with operands by address.
  struct Key {
    Key(ir::ExprKind k, std::uint8_t o = 0, ir::Type t = {}) : kind(k), op(o), type(t) {}

    ir::ExprKind kind;
    std::uint8_t op = 0;
    std::uint8_t axis = 0;  // as in Expr: GPU indices only
    ir::Type type;
    std::uint64_t bits = 0;
    std::uint32_t var = ir::VarId::kNone;  // as in Expr: only reads have a variable
    const void* callee = nullptr;
    std::array<const ir::Expr*, kMaxArgs> args{};

    std::uint64_t hash() const;
    bool matches(const ir::Expr& e) const;
  };

  struct Slot {
    std::uint64_t hash = 0;
    ir::ExprPtr node;  // null: empty
  };

  // The pooled node for `key`, made by `make` on a miss (which type-checks).
  template <class Make>
  ir::ExprPtr find_or_make(const Key& key, Make&& make);
  void grow();

  std::vector<Slot> slots_;  // open addressing, linear probing; size a power of two
  std::size_t count_ = 0;
};

}  // namespace augur::stage
