// MustEval (Tate, §8.4): the nodes certainly evaluated when some roots are,
// at the current loop depth. A φ contributes its condition and what both
// branches evaluate (one branch where the condition is known, or, asked
// for, folds in a loop's first iteration); a loop (eval) is opaque but for the σ an effectful one
// starts from; nodes already computed, and σ already reached, contribute
// nothing.
#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

#include "runtime/peg/peg_fold.h"
#include "runtime/peg/revert_emitter.h"

namespace augur::peg::revert_detail {

NodeSet unite(const NodeSet& a, const NodeSet& b) {
  NodeSet out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

void unite_into(NodeSet& a, const NodeSet& b) {
  if (b.empty()) return;
  if (a.empty()) {
    a = b;
    return;
  }
  // Merged from the back, where the room is, then without the duplicates.
  std::size_t i = a.size(), j = b.size(), k = i + j;
  a.resize(k);
  while (j > 0) a[--k] = (i > 0 && a[i - 1] > b[j - 1]) ? a[--i] : b[--j];
  a.erase(std::unique(a.begin(), a.end()), a.end());
}

NodeSet intersect(const NodeSet& a, const NodeSet& b) {
  NodeSet out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::optional<bool> Emitter::in_first_iteration(std::uint32_t cond, unsigned loop) const {
  const PegNode& c = node(cond);
  if (loop == 0 || !is_pure_value_op(c.kind()) || c.children.empty() || c.children.size() > 2)
    return std::nullopt;
  std::array<eqsat::Label, 2> operands;
  for (std::size_t i = 0; i < c.children.size(); ++i) {
    const PegNode* a = &node(c.children[i]);
    if (a->kind() == Kind::Theta && a->loop() == loop) a = &node(a->children[0]);
    if (a->kind() != Kind::Const) return std::nullopt;
    operands[i] = a->label;
  }
  const std::optional<eqsat::Label> folded =
      fold(c.label, std::span(operands.data(), c.children.size()));
  if (!folded || kind_of(folded->op) != Kind::Const) return std::nullopt;
  return folded->payload != 0;
}

NodeSet Emitter::must(std::span<const std::uint32_t> roots, unsigned init_loop,
                      bool first_iteration) {
  // How a node's set is made, decided when the node is first met: whether
  // it holds the node itself, and which operands' sets join it.
  enum class Rule : std::uint8_t {
    nothing,       // computed or reached already, or a leaf
    init,          // a θ of init_loop: it and its initial value's set
    first_arm,     // a φ whose condition is known true: it and that arm's
    second_arm,    // … known false
    phi,           // a φ: it, its condition's, and what both arms share
    value,         // an invariant eval: its value's
    loop,          // an eval: it and its pass (and the σ it starts from)
    all_operands,  // any other operation: it and all its operands'
  };
  constexpr std::uint32_t kNoInput = ~std::uint32_t{0};
  struct Frame {
    std::uint32_t n;
    bool operands_done;
    Rule rule;
    std::uint32_t input;  // the σ an effectful loop starts from, or kNoInput
  };
  const auto rule_of = [&](std::uint32_t n, std::uint32_t& input) -> Rule {
    const PegNode& p = node(n);
    switch (p.kind()) {
      case Kind::Const:
      case Kind::Param:
      case Kind::Shared:
      case Kind::GpuIndex:
      case Kind::StateIn:
      case Kind::Table:
        return Rule::nothing;
      case Kind::Theta:
        return p.loop() == init_loop && !lookup(n) ? Rule::init : Rule::nothing;
      default:
        break;
    }
    if (lookup(n) || (p.type().is_state() && reached(n))) return Rule::nothing;
    switch (p.kind()) {
      case Kind::Phi:
        if (const std::optional<bool> k = known(p.children[0]))
          return *k ? Rule::first_arm : Rule::second_arm;
        if (first_iteration)
          if (const std::optional<bool> k = in_first_iteration(p.children[0], init_loop))
            return *k ? Rule::first_arm : Rule::second_arm;
        return Rule::phi;
      case Kind::Eval:
        if (invariant_eval(n)) return Rule::value;
        // An effectful loop starts from its θ's initial σ.
        if (p.type().is_state())
          if (const std::optional<std::uint32_t> in = input_of(n)) input = *in;
        return Rule::loop;
      default:
        return Rule::all_operands;
    }
  };
  const auto operands = [&](const Frame& f, std::vector<Frame>& todo) {
    const PegNode& p = node(f.n);
    const auto push = [&](std::uint32_t c) { todo.push_back({c, false, Rule::nothing, kNoInput}); };
    switch (f.rule) {
      case Rule::nothing:
        break;
      case Rule::init:
      case Rule::value:
        push(p.children[0]);
        break;
      case Rule::first_arm:
        push(p.children[1]);
        break;
      case Rule::second_arm:
        push(p.children[2]);
        break;
      case Rule::loop:
        if (f.input != kNoInput) push(f.input);
        break;
      case Rule::phi:
      case Rule::all_operands:
        // Last pushed, first walked: the first operand is walked first.
        for (auto c = p.children.rbegin(); c != p.children.rend(); ++c) push(*c);
        break;
    }
  };
  // A node's slot is taken, empty, when it is first met and filled when its
  // operands are done: an operand met again on the way down (a cycle)
  // adds nothing.
  NodeSetMemoHandle memo = node_set_memo();
  const auto set_of = [&](std::uint32_t n) -> const NodeSet& { return memo->slot(n).first; };
  const auto make = [&](const Frame& f) {
    const PegNode& p = node(f.n);
    NodeSet out;
    switch (f.rule) {
      case Rule::nothing:
        break;
      case Rule::init:
        out = unite({f.n}, set_of(p.children[0]));
        break;
      case Rule::first_arm:
        out = unite({f.n}, set_of(p.children[1]));
        break;
      case Rule::second_arm:
        out = unite({f.n}, set_of(p.children[2]));
        break;
      case Rule::phi:
        out = unite({f.n}, unite(set_of(p.children[0]),
                                 intersect(set_of(p.children[1]), set_of(p.children[2]))));
        break;
      case Rule::value:
        out = set_of(p.children[0]);
        break;
      case Rule::loop:
        out = unite({f.n}, {p.children[1]});
        if (f.input != kNoInput) unite_into(out, set_of(f.input));
        break;
      case Rule::all_operands:
        out = {f.n};
        for (std::uint32_t c : p.children) unite_into(out, set_of(c));
        break;
    }
    spend(1 + out.size());
    memo->slot(f.n).first = std::move(out);
  };
  std::vector<Frame> todo;
  for (auto r = roots.rbegin(); r != roots.rend(); ++r)
    todo.push_back({*r, false, Rule::nothing, kNoInput});
  while (!todo.empty()) {
    Frame f = todo.back();
    todo.pop_back();
    if (f.operands_done) {
      make(f);
      continue;
    }
    if (memo->slot(f.n).second) continue;
    f.rule = rule_of(f.n, f.input);
    if (f.rule == Rule::nothing) {
      spend(1);  // its set stays empty
      continue;
    }
    f.operands_done = true;
    todo.push_back(f);
    operands(f, todo);
  }
  NodeSet out;
  for (std::uint32_t r : roots) unite_into(out, set_of(r));
  return out;
}

}  // namespace augur::peg::revert_detail
