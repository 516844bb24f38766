// Hash-consed IR expressions for one extraction. Every run of the first stage
// rebuilds the same expression trees; the pool hands back the node it already
// has for an operator applied to the same (pooled) operands, so a run that
// replays recorded code allocates nothing and compares statements by pointer.
// Pooled nodes live as long as the pool (and whatever holds them after).
//
// The constructors are smart (LMS): before making a node they fold it when
// its operands are constants and apply identities that are exact in the IR's
// semantics (x * 1, -(-x), a select on a constant, ...); docs/staging.md
// lists them. A simplified result is remembered under the node it replaces,
// so replays cost one lookup and saved() counts each replaced node once.
// Atomics and calls that are not pure are never shared: each is its own
// evaluation.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "runtime/ir/const_fold.h"
#include "runtime/ir/ir.h"
#include "runtime/stage/expr_arena.h"
#include "runtime/stage/huge_pages.h"
#include "runtime/stage/node_index.h"

namespace augur::stage {

// Whether new pools simplify while they build (the default). Internal: the
// staging benchmark turns it off to measure what the smart constructors save.
void set_simplify_at_construction(bool on);

class ExprPool {
 public:
  ExprPool();

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
  // A table: equal contents give the same node (each run of the first stage
  // builds its tables again).
  ir::ExprPtr table(ir::Type element, std::vector<std::byte> bytes);

  std::size_t size() const { return nodes_.size(); }

  // The expressions the next lookups will likely ask for: while a run
  // follows recorded code, those of the event it is expected to meet next
  // (the roots, then their operands, breadth first, kHints at most). A
  // lookup compares its key with them before it hashes or probes the table:
  // they lie in memory the run reads in the order it was recorded, where a
  // probe of a table far larger than the caches costs a miss. The answer is
  // the table's: a node of this pool is the only one with its key. The nodes
  // must stay alive until the next call.
  void expect(std::span<const ir::Expr* const> roots) noexcept;
  // Nodes the smart constructors replaced by a simpler expression (folds and
  // identities), each distinct node once.
  std::uint64_t saved() const { return simplified_.size(); }

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
    const ir::TableData* table = nullptr;  // Table: the contents to match (bits: their hash)
    std::array<const ir::Expr*, kMaxArgs> args{};

    std::uint32_t hash() const;
    bool matches(const ir::Expr& e) const;
    friend bool operator==(const Key&, const Key&) = default;
  };
  // A key's hashes for the index: `table` random, `filter` local (below).
  struct Hashes {
    std::uint32_t table;
    std::uint32_t filter;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return k.hash(); }
  };

  // What a replaced node became. The operands are kept alive so that their
  // addresses in the key cannot be reused by other nodes.
  struct Simplified {
    ir::ExprPtr result;
    std::array<ir::ExprPtr, kMaxArgs> operands;
  };

  // The pooled node for `key`, made by `make` on a miss (which type-checks).
  template <class Make>
  ir::ExprPtr find_or_make(const Key& key, Make&& make);
  // The same, but first the simpler expression `simplify()` gives (null:
  // none), remembered under `key`; `operands` are the node's operands.
  template <class Simplify, class Make>
  ir::ExprPtr find_or_simplify(const Key& key, std::span<const ir::ExprPtr> operands,
                               Simplify&& simplify, Make&& make);
  ir::ExprPtr from_constant(const ir::Constant& c) { return constant(c.type, c.bits); }
  // A new pooled node, in the arena.
  ir::ExprPtr share(ir::Expr node);
  ir::ExprPtr simplify_unary(ir::UnaryOp op, const ir::ExprPtr& x);
  ir::ExprPtr simplify_binary(ir::BinaryOp op, const ir::ExprPtr& a, const ir::ExprPtr& b);
  // The filter hash keeps related keys together (NodeIndex). A key's
  // anchor is the serial of its youngest operand when that is a node of this
  // pool (ir::Expr::serial: its index in nodes_), else, for a node without
  // operands, its value or variable; the hash's top bits are a hash of the
  // rest of the key and of the anchor's block of 64, its low six bits the
  // anchor's place in the block. The first stage builds similar nodes on the
  // nodes it just made (x > i, then y + i, for each i), so the keys of one
  // operator with like operands, made one after the other, share words of
  // the filter.
  Hashes hashes(const Key& key) const;
  ir::ExprPtr find(const Key& key, Hashes h) const;  // null: absent
  ir::ExprPtr expected(const Key& key) const;        // among the hints; null: none
  ir::ExprPtr insert(Hashes h, ir::ExprPtr made);

  ExprArena arena_;
  BigVector<ir::ExprPtr> nodes_;  // every pooled node, in the order made
  NodeIndex index_;               // 32 bits of each key's hash -> its index in nodes_
  bool simplify_;
  static constexpr std::size_t kHints = 8;
  std::array<const ir::Expr*, kHints> hints_{};
  std::size_t hint_count_ = 0;
  std::unordered_map<Key, Simplified, KeyHash> simplified_;
};

}  // namespace augur::stage
