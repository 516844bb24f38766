#include "runtime/peg/revert.h"

#include "jit/error.h"
#include "runtime/ir/value.h"
#include "runtime/peg/revert_emitter.h"
#include "runtime/peg/safe_division.h"

namespace augur::peg {

namespace revert_detail {

void Emitter::compute_facts() {
  const std::size_t n = g_.nodes.size();
  uses_.assign(n, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const PegNode& p = node(i);
    for (std::uint32_t c : p.children) ++uses_[c];
    if (p.kind() == Kind::Eval) evals_of_[p.children[1]].push_back(i);
    if (p.kind() == Kind::ProjState) state_of_tuple_.emplace(p.children[0], i);
    if (p.kind() == Kind::Phi && p.type().is_ir()) value_phis_[p.children[0]].push_back(i);
    if (p.kind() == Kind::Phi && p.type().is_state()) state_phis_[p.children[0]].push_back(i);
  }
  if (g_.result) ++uses_[*g_.result];
  for (std::uint32_t output : g_.outputs) ++uses_[output];

  // σ θs whose loop only checks (demands) between iterations, itself or in
  // loops inside it: memory is the same on every iteration, what it was on
  // entry (a value loaded before the loop may be loaded in it).
  checks_only_.assign(n, 0);
  std::vector<std::uint32_t> seen_for(n, ~std::uint32_t{0});  // by the θ whose walk saw it
  std::vector<std::uint32_t> todo;
  for (std::uint32_t i = 0; i < n; ++i) {
    const PegNode& t = node(i);
    if (t.kind() != Kind::Theta || !t.type().is_state()) continue;
    todo.assign(1, t.children[1]);
    bool only = true;
    while (only && !todo.empty()) {
      const std::uint32_t x = todo.back();
      todo.pop_back();
      if (x == i || seen_for[x] == i) continue;
      seen_for[x] = i;
      const PegNode& q = node(x);
      if (q.kind() == Kind::Demand) {
        todo.push_back(q.children[0]);
      } else if (q.kind() == Kind::Phi && q.type().is_state()) {
        todo.push_back(q.children[1]);
        todo.push_back(q.children[2]);
      } else if (q.kind() == Kind::Eval && q.type().is_state()) {
        todo.push_back(q.children[0]);
      } else if (q.kind() == Kind::Theta && q.type().is_state()) {
        todo.push_back(q.children[0]);
        todo.push_back(q.children[1]);
      } else {
        only = false;
      }
    }
    checks_only_[i] = only;
  }

  // A store that only readers read: the extraction dropped it for a later
  // store to the same address (Emitter::overwritten). Without one, no σ is
  // ever overwritten.
  std::vector<char> consumed(n, 0);
  consumed[g_.state] = 1;
  read_directly_.assign(n, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const PegNode& p = node(i);
    if (reads_state(p.kind())) read_directly_[p.children[0]] = 1;
    for (std::size_t k = reads_state(p.kind()) ? 1 : 0; k < p.children.size(); ++k)
      consumed[p.children[k]] = 1;
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const PegNode& p = node(i);
    if (!reads_state(p.kind()) || node(p.children[0]).kind() != Kind::Store ||
        consumed[p.children[0]])
      continue;
    dropped_stores_ = true;
    // (A load through the store's own pointer reads past the store over it:
    // load_past_overwrite.)
    if (p.kind() != Kind::Load || p.children[1] != node(p.children[0]).children[1])
      read_through_other_pointers_.emplace_back(p.children[0], i);
  }

  // Leads to a loop: up from the value evals, through the φs, pure
  // operators and reads that use them (a loop's value as a load's index).
  leads_to_loop_.assign(n, 0);
  {
    std::vector<std::uint32_t> users_begin(n + 1, 0), users;
    const auto walks_through = [&](const PegNode& p) {
      return (p.kind() == Kind::Phi && p.type().is_ir()) || is_pure_value_op(p.kind()) ||
             p.kind() == Kind::Load || p.kind() == Kind::CallRead;
    };
    for (std::uint32_t i = 0; i < n; ++i)
      if (walks_through(node(i)))
        for (std::uint32_t c : node(i).children) ++users_begin[c + 1];
    for (std::uint32_t i = 0; i < n; ++i) users_begin[i + 1] += users_begin[i];
    users.resize(users_begin[n]);
    std::vector<std::uint32_t> next(users_begin.begin(), users_begin.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i)
      if (walks_through(node(i)))
        for (std::uint32_t c : node(i).children) users[next[c]++] = i;
    todo.clear();
    for (std::uint32_t i = 0; i < n; ++i)
      if (node(i).kind() == Kind::Eval && node(i).type().is_ir()) todo.push_back(i);
    for (std::uint32_t i : todo) leads_to_loop_[i] = 1;
    while (!todo.empty()) {
      const std::uint32_t x = todo.back();
      todo.pop_back();
      for (std::uint32_t k = users_begin[x]; k < users_begin[x + 1]; ++k)
        if (!leads_to_loop_[users[k]]) {
          leads_to_loop_[users[k]] = 1;
          todo.push_back(users[k]);
        }
    }
  }

  // Speculatable: computing it where it is not demanded cannot trap or loop.
  // θ is a loop variable's current value; cycles close only through θ.
  in_group_.assign(n, 0);
  speculatable_.assign(n, 2);  // 2: not yet known
  // Operands first, on a stack; a node met again while its operands are
  // walked (a cycle not through θ) counts as not speculatable.
  std::vector<std::pair<std::uint32_t, bool>> walk;
  for (std::uint32_t root = 0; root < n; ++root) {
    if (speculatable_[root] == 2) walk.emplace_back(root, false);
    while (!walk.empty()) {
      const auto [i, operands_done] = walk.back();
      walk.pop_back();
      if (!operands_done && speculatable_[i] != 2) continue;
      const PegNode& p = node(i);
      const bool walks_operands = p.kind() != Kind::Theta;
      if (operands_done) {
        speculatable_[i] =
            !walks_operands || std::all_of(p.children.begin(), p.children.end(),
                                           [&](std::uint32_t c) { return speculatable_[c] == 1; });
        continue;
      }
      speculatable_[i] = 0;
      if (!op_speculatable(p)) continue;
      speculatable_[i] = 3;  // its operands being walked
      walk.emplace_back(i, true);
      if (walks_operands)
        for (std::uint32_t c : p.children)
          if (speculatable_[c] == 2) walk.emplace_back(c, false);
    }
  }
}

namespace {

// The extracted graph, as division_cannot_trap reads it.
struct GraphView {
  const PegGraph& g;
  std::optional<std::uint64_t> constant(std::uint32_t n) const {
    if (g.nodes[n].kind() != Kind::Const) return std::nullopt;
    return g.nodes[n].label.payload;
  }
  bool same(std::uint32_t a, std::uint32_t b) const { return a == b; }
  template <class F>
  bool any_node(std::uint32_t n, F&& f) const {
    return f(g.nodes[n].kind(), std::span<const std::uint32_t>(g.nodes[n].children));
  }
};

}  // namespace

bool Emitter::op_speculatable(const PegNode& p) const {
  switch (p.kind()) {
    case Kind::Const:
    case Kind::Param:
    case Kind::Shared:
    case Kind::GpuIndex:
    case Kind::Table:
    case Kind::Theta:
      return true;
    case Kind::ReadTable:
      return in_bounds(p);
    case Kind::Phi:
      return p.type().is_ir();
    case Kind::Div:
    case Kind::Rem:
      return !p.type().ir().is_integer() ||
             division_cannot_trap(GraphView{g_}, p.children[0], p.children[1], p.type().ir());
    default:
      return is_pure_value_op(p.kind());
  }
}

bool Emitter::speculatable_now(std::uint32_t root, std::unordered_map<std::uint32_t, bool>& memo) {
  // Post-order without recursion: a node is pushed again, expanded, after
  // its operands; one met again before it is decided (a cycle) is not.
  std::vector<std::pair<std::uint32_t, bool>> stack{{root, false}};
  while (!stack.empty()) {
    const auto [n, expanded] = stack.back();
    stack.pop_back();
    if (memo.contains(n)) continue;
    const PegNode& p = node(n);
    // A call's value is there once the call is made.
    if (speculatable_[n] || lookup(n) || (p.kind() == Kind::ProjValue && lookup(p.children[0]))) {
      memo.emplace(n, true);
      continue;
    }
    if (!op_speculatable(p)) {
      memo.emplace(n, false);
      continue;
    }
    spend(1);
    if (!expanded) {
      stack.emplace_back(n, true);
      for (std::uint32_t c : p.children)
        if (!memo.contains(c)) stack.emplace_back(c, false);
      continue;
    }
    memo.emplace(n, std::all_of(p.children.begin(), p.children.end(), [&](std::uint32_t c) {
                   const auto it = memo.find(c);
                   return it != memo.end() && it->second;
                 }));
  }
  return memo.at(root);
}

bool Emitter::in_bounds(const PegNode& read) const {
  const PegNode& t = node(read.children[0]);
  if (t.kind() != Kind::Table) return false;
  // The largest the index can be: a constant, a constant mask (x & m lies
  // in [0, m] for m ≥ 0, whatever x), or an unsigned remainder by a
  // constant (x % m lies in [0, m - 1] for m > 0).
  const auto largest = [&](const PegNode& i) -> std::optional<std::int64_t> {
    if (i.kind() != Kind::Const) return std::nullopt;
    return integer_value(i.type(), i.label.payload);
  };
  const PegNode& i = node(read.children[1]);
  std::optional<std::int64_t> at = largest(i);
  if (!at && i.kind() == Kind::BitAnd) {
    at = largest(node(i.children[1]));
    if (!at) at = largest(node(i.children[0]));
  }
  if (!at && i.kind() == Kind::Rem && !i.type().ir().is_signed()) {
    const std::optional<std::int64_t> m = largest(node(i.children[1]));
    if (m && *m > 0) at = *m - 1;
  }
  return at && *at >= 0 && static_cast<std::uint64_t>(*at) < table(t)->size();
}

const ir::TableRef& Emitter::table(const PegNode& n) const {
  if (in_.tables)
    if (auto it = in_.tables->find(n.label.payload); it != in_.tables->end()) return it->second;
  fail(kNoBlame, "a table the translation did not record");
}

}  // namespace revert_detail

RevertResult revert(const RevertInput& input) {
  // Splitting an exit test commits the loop body to one shape, which the rest
  // of it may not fit (effects a path that goes on makes inside the split):
  // where reversion split one and failed, it tries once more without.
  RevertResult result;
  for (const bool split_exit_tests : {true, false}) {
    revert_detail::Emitter emitter(input, split_exit_tests);
    try {
      result.function = emitter.run();
      result.exclusive_loop_copies = emitter.exclusive_loop_copies();
    } catch (const revert_detail::Failure& f) {
      const bool out_of_budget = f.why == kRevertOutOfTime || f.why == kRevertOutOfWork;
      if (split_exit_tests && emitter.split_an_exit_test() && !out_of_budget) continue;
      result.failure = f.why;
      if (f.node != revert_detail::kNoBlame && f.node < input.graph->nodes.size()) {
        result.blame = input.graph->nodes[f.node].enode;
        result.failure += " (%" + std::to_string(f.node) + ")";
      }
    } catch (const jit::error& e) {
      result.failure = e.message();
    }
    break;
  }
  return result;
}

}  // namespace augur::peg
