#include "runtime/eqsat/loop_invariance.h"

#include <algorithm>
#include <bit>

#include "jit/error.h"

namespace augur::eqsat {

namespace {
constexpr std::uint64_t kEverywhere = ~std::uint64_t{0};
}  // namespace

std::uint64_t LoopInvariance::loop_bit(unsigned loop) const {
  if (loop < 1 || loop > kMaxLoop)
    throw jit::error("loop invariance: loop index " + std::to_string(loop) + " is outside 1.." +
                     std::to_string(kMaxLoop));
  return std::uint64_t{1} << (loop - 1);
}

bool LoopInvariance::invariant(Id cls, unsigned loop) const {
  return (variant_loops(cls) & loop_bit(loop)) == 0;
}

unsigned LoopInvariance::depth(Id cls) const {
  return static_cast<unsigned>(std::bit_width(variant_loops(cls)));
}

unsigned LoopInvariance::node_depth(const ENodeView& node) const {
  return static_cast<unsigned>(std::bit_width(node_variant_loops(node)));
}

std::uint64_t LoopInvariance::node_variant_loops(const ENodeView& node) const {
  return node_variant(node, variant_);
}

std::uint64_t LoopInvariance::node_variant(const ENodeView& node,
                                           std::span<const std::uint64_t> theta_next) const {
  const LoopRole role = this->role(node);
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    const Id c = graph().find(node.children[i]);
    v |= (role.kind == LoopRole::Kind::Theta && i == 1) ? theta_next[index(c)] : variant_[index(c)];
  }
  switch (role.kind) {
    case LoopRole::Kind::Plain:
      return v;
    case LoopRole::Kind::Theta:
      return v | loop_bit(role.loop);
    case LoopRole::Kind::Pass:
      return v & ~loop_bit(role.loop);
    case LoopRole::Kind::Eval: {
      if (role.index_child >= node.children.size())
        throw jit::error("loop invariance: eval's index child " + std::to_string(role.index_child) +
                         " does not exist");
      const std::uint64_t bit = loop_bit(role.loop);
      return (v & ~bit) | (variant_loops(node.children[role.index_child]) & bit);
    }
  }
  return v;
}

const LoopRole* LoopInvariance::known_role(Id node, Label label) const {
  const std::size_t i = index(node);
  return i < roles_.size() && roles_[i].known && roles_[i].label == label ? &roles_[i].role
                                                                          : nullptr;
}

LoopRole LoopInvariance::role(const ENodeView& node) const {
  const LoopRole* known = known_role(node.id, node.label);
  return known ? *known : classify_(graph(), node);
}

LoopRole LoopInvariance::role(const EGraph& g, const EGraph::IndexedNode& node) const {
  const LoopRole* known = known_role(node.id, node.label);
  return known ? *known : classify_(g, g.node(node.id));
}

void LoopInvariance::on_add(const EGraph& g, Id id, const ENodeView* node) {
  variant_.resize(index(id) + 1, kEverywhere);
  first_round_.resize(index(id) + 1, kEverywhere);
  touched_.push_back(id);
  roles_.resize(index(id) + 1);
  withdrawn_.resize(index(id) + 1, 0);
  if (node) {
    roles_[index(id)] = {true, node->label, classify_(g, *node)};
    // (A loop index out of range is reported by the rebuild.)
    const LoopRole& role = roles_[index(id)].role;
    const std::uint64_t bit =
        role.loop >= 1 && role.loop <= kMaxLoop ? std::uint64_t{1} << (role.loop - 1) : 0;
    if (role.kind == LoopRole::Kind::Theta) {
      theta_nodes_.push_back(id);
      theta_loops_ |= bit;
    } else if (role.kind != LoopRole::Kind::Plain) {
      exit_loops_ |= bit;
    }
  }
}

Analysis::MergeResult LoopInvariance::on_merge(Id root, Id absorbed) {
  // Both values were sound for their classes; the merged class may use either.
  variant_[index(root)] &= variant_[index(absorbed)];
  first_round_[index(root)] &= first_round_[index(absorbed)];
  touched_.push_back(root);
  return {};
}

void LoopInvariance::on_rebuilt(const EGraph& g) {
  // The first round continues from the last rebuild's, which was made
  // without withdrawals; once this rebuild withdraws some, every settle()
  // starts from scratch.
  std::fill(withdrawn_.begin(), withdrawn_.end(), 0);
  withdrawn_count_ = 0;
  settle(g, have_first_round_);
  while (withdraw_unfounded_optimism(g)) settle(g, false);
  // The classes whose invariance differs from what the last rebuild gave
  // (a merge in between already intersected it), and those new since.
  changed_.clear();
  published_.resize(variant_.size(), Published{});
  for (Id c : g.classes()) {
    Published& was = published_[index(c)];
    if (!was.known || was.variant != variant_[index(c)]) changed_.push_back(c);
    was = {true, variant_[index(c)]};
  }
}

void LoopInvariance::settle(const EGraph& g, bool incremental) {
  // Invariance must be justified without going round a cycle, except through
  // a θ's second child: an e-class may hold e-nodes that refer to it (x = 1*x
  // after a rule), and optimism through those would call anything invariant.
  // So: a pessimistic fixpoint (from "varies everywhere") in which a θ's
  // second child counts with the variance assumed for it, starting from
  // "invariant" and raised to the result until it is stable (optimism through
  // θ, as Tate's invariant_ℓ is). A round reads the e-graph's matching index
  // (each class's e-nodes and their children, contiguous).
  const std::span<const Id> classes = g.classes();
  Rounds& r = rounds_;
  const auto node_variant = [&](const EGraph::IndexedNode& n) {
    const LoopRole role = this->role(g, n);
    const std::span<const Id> children = g.children_of(n);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < children.size(); ++i) {
      const std::uint32_t c = index(children[i]);
      if (role.kind == LoopRole::Kind::Theta && i == 1) {
        const std::uint64_t withdrawn = withdrawn_[index(n.id)];
        v |= (r.assumed[c] & ~withdrawn) | (variant_[c] & withdrawn);
      } else {
        v |= variant_[c];
      }
    }
    switch (role.kind) {
      case LoopRole::Kind::Plain:
        return v;
      case LoopRole::Kind::Theta:
        return v | loop_bit(role.loop);
      case LoopRole::Kind::Pass:
        return v & ~loop_bit(role.loop);
      case LoopRole::Kind::Eval: {
        if (role.index_child >= children.size())
          throw jit::error("loop invariance: eval's index child " +
                           std::to_string(role.index_child) + " does not exist");
        const std::uint64_t bit = loop_bit(role.loop);
        return (v & ~bit) | (variant_[index(children[role.index_child])] & bit);
      }
    }
    return v;
  };
  // Every θ e-node: the classes of its first and second children, its loop's bit.
  r.thetas.clear();
  for (Id t : theta_nodes_) {
    const ENodeView n = g.node(t);
    if (n.children.size() >= 2)
      r.thetas.push_back({index(g.find(n.children[0])), index(g.find(n.children[1])),
                          loop_bit(roles_[index(t)].role.loop), withdrawn_[index(t)]});
  }

  r.assumed.assign(variant_.size(), 0);
  for (bool first = true;; first = false) {
    r.work.clear();
    r.queued.assign(variant_.size(), false);
    const auto enqueue = [&](Id cls) {
      const std::uint32_t c = index(g.find(cls));
      if (!r.queued[c]) {
        r.queued[c] = true;
        r.work.push_back(c);
      }
    };
    if (first && incremental) {
      for (Id c : classes) variant_[index(c)] = first_round_[index(c)];
      for (Id& t : touched_) t = g.find(t);
      std::sort(touched_.begin(), touched_.end());
      touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
      for (Id t : touched_) {
        enqueue(t);
        for (Id p : g.parents_of(t)) enqueue(p);
      }
    } else {
      for (Id c : classes) variant_[index(c)] = kEverywhere;
      for (auto it = classes.rbegin(); it != classes.rend(); ++it) enqueue(*it);
    }
    while (!r.work.empty()) {
      const std::uint32_t c = r.work.back();
      r.work.pop_back();
      r.queued[c] = false;
      // An empty class (a placeholder never merged) varies everywhere.
      std::uint64_t v = kEverywhere;
      for (const EGraph::IndexedNode& n : g.indexed(make_id(c))) v &= node_variant(n);
      if (v == variant_[c]) continue;
      variant_[c] = v;
      for (Id p : g.parents_of(make_id(c))) enqueue(p);
    }
    if (first && withdrawn_count_ == 0) {
      for (Id c : classes) first_round_[index(c)] = variant_[index(c)];
      have_first_round_ = true;
      touched_.clear();
    }
    // The next round would assume what this one gave; it only reads that at
    // θs, as θ(start, next) = start ∪ next ∪ {ℓ}. If no θ's value would
    // grow (every next's new bits are in its start's or ℓ), then on every
    // assignment at or above this result the next round's equations are this
    // round's, so its fixpoint from "varies everywhere" is this result: stable.
    // (A withdrawn loop's next value is read as it is, not assumed.)
    bool stable = true;
    for (const Theta& t : r.thetas)
      if ((variant_[t.next] & ~(variant_[t.start] | r.assumed[t.next] | t.bit | t.withdrawn)) !=
          0) {
        stable = false;
        break;
      }
    if (stable) break;
    for (Id c : classes) r.assumed[index(c)] = variant_[index(c)];
  }
}

}  // namespace augur::eqsat
