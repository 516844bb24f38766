#include "runtime/eqsat/loop_invariance.h"

#include <bit>

#include "jit/error.h"

namespace augur::eqsat {

namespace {
constexpr std::uint64_t kEverywhere = ~std::uint64_t{0};
}

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

LoopRole LoopInvariance::role(const ENodeView& node) const {
  const std::size_t i = index(node.id);
  if (i < roles_.size() && roles_[i].known && roles_[i].label == node.label) return roles_[i].role;
  return classify_(graph(), node);
}

void LoopInvariance::on_add(const EGraph& g, Id id, const ENodeView* node) {
  variant_.resize(index(id) + 1, kEverywhere);
  roles_.resize(index(id) + 1);
  if (node) roles_[index(id)] = {true, node->label, classify_(g, *node)};
}

Analysis::MergeResult LoopInvariance::on_merge(Id root, Id absorbed) {
  // Both values were sound for their classes; the merged class may use either.
  variant_[index(root)] &= variant_[index(absorbed)];
  return {};
}

void LoopInvariance::on_rebuilt(const EGraph& g) {
  // Invariance must be justified without going round a cycle, except through
  // a θ's second child: an e-class may hold e-nodes that refer to it (x = 1*x
  // after a rule), and optimism through those would call anything invariant.
  // So: a pessimistic fixpoint (from "varies everywhere") in which a θ's
  // second child counts with the variance assumed for it, starting from
  // "invariant" and raised to the result until it is stable (optimism through
  // θ, as Tate's invariant_ℓ is).
  const std::span<const Id> classes = g.classes();
  std::vector<std::uint64_t> assumed(variant_.size(), 0);
  for (;;) {
    for (Id c : classes) variant_[index(c)] = kEverywhere;
    std::vector<Id> work(classes.rbegin(), classes.rend());
    std::vector<bool> queued(variant_.size(), false);
    for (Id c : classes) queued[index(c)] = true;
    while (!work.empty()) {
      const Id c = work.back();
      work.pop_back();
      queued[index(c)] = false;
      // An empty class (a placeholder never merged) varies everywhere.
      std::uint64_t v = kEverywhere;
      for (Id n : g.nodes_of(c)) v &= node_variant(g.node(n), assumed);
      if (v == variant_[index(c)]) continue;
      variant_[index(c)] = v;
      for (Id p : g.parents_of(c)) {
        const Id pc = g.find(p);
        if (!queued[index(pc)]) {
          queued[index(pc)] = true;
          work.push_back(pc);
        }
      }
    }
    bool stable = true;
    for (Id c : classes) {
      if (assumed[index(c)] != variant_[index(c)]) stable = false;
      assumed[index(c)] = variant_[index(c)];
    }
    if (stable) return;
  }
}

}  // namespace augur::eqsat
