#include "runtime/ir/range_switch.h"

#include <algorithm>
#include <utility>

namespace augur::ir {

namespace {

// Values are ordered as unsigned "keys": a signed value with its sign bit
// flipped, so that one unsigned order serves both signednesses.
struct Domain {
  std::uint64_t mask = 0;  // all the type's bits
  std::uint64_t flip = 0;  // its sign bit when signed

  explicit Domain(Type type)
      : mask(type.bits() >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << type.bits()) - 1),
        flip(type.is_signed() ? std::uint64_t{1} << (type.bits() - 1) : 0) {}

  std::uint64_t key(const Expr& constant) const {
    return (static_cast<std::uint64_t>(constant.int_value()) & mask) ^ flip;
  }
  std::uint64_t value(std::uint64_t key) const { return key ^ flip; }
};

struct Test {
  VarId var;
  Type type;
  BinaryOp op;  // v op constant
  const Expr* constant = nullptr;
};

BinaryOp mirrored(BinaryOp op) {
  switch (op) {
    case BinaryOp::Lt:
      return BinaryOp::Gt;
    case BinaryOp::Le:
      return BinaryOp::Ge;
    case BinaryOp::Gt:
      return BinaryOp::Lt;
    default:
      return BinaryOp::Le;
  }
}

// `v OP constant` or `constant OP v` for an integer variable v and an order.
std::optional<Test> test_of(const Stmt& stmt) {
  if (stmt.kind != StmtKind::If || !stmt.expr) return std::nullopt;
  const Expr& cond = *stmt.expr;
  if (cond.kind != ExprKind::Binary || cond.args.size() != 2) return std::nullopt;
  BinaryOp op = cond.binary_op();
  if (op != BinaryOp::Lt && op != BinaryOp::Le && op != BinaryOp::Gt && op != BinaryOp::Ge) {
    return std::nullopt;
  }
  const Expr* var = cond.args[0].get();
  const Expr* constant = cond.args[1].get();
  if (var->kind == ExprKind::Const) {
    std::swap(var, constant);
    op = mirrored(op);
  }
  if (var->kind != ExprKind::Var || constant->kind != ExprKind::Const) return std::nullopt;
  if (!var->type.is_integer() || var->type.is_pointer()) return std::nullopt;
  return Test{var->var, var->type, op, constant};
}

// A closed interval of keys; empty when lo > hi.
struct Interval {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  bool empty = false;
};

Interval clip(Interval in, std::uint64_t lo, std::uint64_t hi, bool empty) {
  if (in.empty || empty) return {0, 0, true};
  const Interval out{std::max(in.lo, lo), std::min(in.hi, hi), false};
  return out.lo > out.hi ? Interval{0, 0, true} : out;
}

// The keys of `in` for which `v op k` holds (then) and fails (else).
std::pair<Interval, Interval> split(Interval in, BinaryOp op, std::uint64_t k, std::uint64_t max) {
  const bool k_min = k == 0;
  const bool k_max = k == max;
  switch (op) {
    case BinaryOp::Lt:  // then [.., k-1], else [k, ..]
      return {clip(in, 0, k - 1, k_min), clip(in, k, max, false)};
    case BinaryOp::Le:  // then [.., k], else [k+1, ..]
      return {clip(in, 0, k, false), clip(in, k + 1, max, k_max)};
    case BinaryOp::Gt:  // then [k+1, ..], else [.., k]
      return {clip(in, k + 1, max, k_max), clip(in, 0, k, false)};
    default:  // Ge: then [k, ..], else [.., k-1]
      return {clip(in, k, max, false), clip(in, 0, k - 1, k_min)};
  }
}

struct Leaf {
  Interval keys;
  std::size_t index = 0;  // in RangeSwitch::leaves
};

}  // namespace

RangeSwitchMatch match_range_switch(const Stmt& stmt,
                                    const std::function<bool(const Stmt&)>& stops_at) {
  RangeSwitchMatch match;
  const std::optional<Test> root = test_of(stmt);
  if (!root) return match;
  const Domain domain(root->type);
  RangeSwitch result;
  result.var = root->var;
  result.type = root->type;

  // The inner node of the tree a branch holds, if it is one.
  const auto inner_node = [&](const Block& branch) -> const Stmt* {
    if (branch.size() != 1 || stops_at(branch.front())) return nullptr;
    const std::optional<Test> test = test_of(branch.front());
    return test && test->var == root->var ? &branch.front() : nullptr;
  };

  // Items of the walk: inner nodes, and leaves (a null node) taken in the
  // tree's order, then before else.
  struct Pending {
    const Stmt* node;
    const Block* leaf;
    Interval keys;
    std::vector<bool> path;
  };
  std::vector<Pending> stack{{&stmt, nullptr, Interval{0, domain.mask, false}, {}}};
  std::vector<Leaf> leaves;
  std::uint64_t inner_values = 0;  // values of the intervals neither lowest nor highest
  while (!stack.empty()) {
    Pending p = std::move(stack.back());
    stack.pop_back();
    if (!p.node) {
      if (p.keys.empty) continue;  // never reached: no code
      if (p.keys.lo != 0 && p.keys.hi != domain.mask) {
        inner_values += p.keys.hi - p.keys.lo + 1;
        if (inner_values > kMaxSwitchCases) return match;
      }
      leaves.push_back({p.keys, result.leaves.size()});
      result.leaves.push_back({p.leaf, std::move(p.path)});
      continue;
    }
    const Test test = *test_of(*p.node);
    const auto [then_keys, else_keys] =
        split(p.keys, test.op, domain.key(*test.constant), domain.mask);
    const std::pair<const Block*, Interval> branches[] = {{&p.node->orelse, else_keys},
                                                          {&p.node->body, then_keys}};
    for (const auto& [branch, keys] : branches) {  // else first: then comes out first
      std::vector<bool> path = p.path;
      path.push_back(branch == &p.node->orelse);
      const Stmt* inner = inner_node(*branch);
      if (inner) match.inner.push_back(inner);
      stack.push_back({inner, inner ? nullptr : branch, keys, std::move(path)});
    }
  }
  if (leaves.size() < kMinSwitchLeaves) return match;

  // The leaves' intervals partition the domain: the lowest starts at key 0,
  // the highest ends at the mask.
  std::sort(leaves.begin(), leaves.end(),
            [](const Leaf& a, const Leaf& b) { return a.keys.lo < b.keys.lo; });
  const Leaf& lowest = leaves.front();
  const Leaf& highest = leaves.back();
  result.default_leaf = highest.index;
  const std::uint64_t lowest_values = lowest.keys.hi - lowest.keys.lo;  // less one
  const bool list_lowest = lowest_values < kMaxSwitchCases - inner_values;
  if (!list_lowest) {
    result.below = lowest.index;
    result.low_bound = domain.value(leaves[1].keys.lo);
  }
  for (std::size_t i = list_lowest ? 0 : 1; i + 1 < leaves.size(); ++i) {
    for (std::uint64_t key = leaves[i].keys.lo;; ++key) {
      result.cases.push_back({domain.value(key), leaves[i].index});
      if (key == leaves[i].keys.hi) break;
    }
  }
  match.found = std::move(result);
  return match;
}

}  // namespace augur::ir
