#include "runtime/eqsat/loop_invariance.h"

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
  // θ, as Tate's invariant_ℓ is). Each round visits every e-node again, so
  // the graph is first laid out flat: per e-node its role and its children's
  // classes, per class its parents' classes.
  const std::span<const Id> classes = g.classes();
  Flat& flat = flat_;
  flat.node_begin.assign(variant_.size(), 0);
  flat.node_end.assign(variant_.size(), 0);
  flat.nodes.clear();
  flat.children.clear();
  flat.parent_begin.assign(variant_.size(), 0);
  flat.parent_end.assign(variant_.size(), 0);
  flat.parents.clear();
  for (Id c : classes) {
    const std::uint32_t ci = index(c);
    flat.node_begin[ci] = static_cast<std::uint32_t>(flat.nodes.size());
    for (Id n : g.nodes_of(c)) {
      const ENodeView node = g.node(n);
      const LoopRole r = role(node);
      FlatNode f;
      f.kind = r.kind;
      f.child_begin = static_cast<std::uint32_t>(flat.children.size());
      f.arity = static_cast<std::uint32_t>(node.children.size());
      if (r.kind != LoopRole::Kind::Plain) f.bit = loop_bit(r.loop);
      if (r.kind == LoopRole::Kind::Eval) {
        if (r.index_child >= node.children.size())
          throw jit::error("loop invariance: eval's index child " + std::to_string(r.index_child) +
                           " does not exist");
        f.index_child = r.index_child;
      }
      for (Id child : node.children) flat.children.push_back(index(g.find(child)));
      flat.nodes.push_back(f);
    }
    flat.node_end[ci] = static_cast<std::uint32_t>(flat.nodes.size());
    flat.parent_begin[ci] = static_cast<std::uint32_t>(flat.parents.size());
    for (Id p : g.parents_of(c)) flat.parents.push_back(index(g.find(p)));
    flat.parent_end[ci] = static_cast<std::uint32_t>(flat.parents.size());
  }

  const auto flat_variant = [&](const FlatNode& f, const std::vector<std::uint64_t>& assumed) {
    const std::uint32_t* child = flat.children.data() + f.child_begin;
    std::uint64_t v = 0;
    for (std::uint32_t i = 0; i < f.arity; ++i)
      v |= (f.kind == LoopRole::Kind::Theta && i == 1) ? assumed[child[i]] : variant_[child[i]];
    switch (f.kind) {
      case LoopRole::Kind::Plain:
        return v;
      case LoopRole::Kind::Theta:
        return v | f.bit;
      case LoopRole::Kind::Pass:
        return v & ~f.bit;
      case LoopRole::Kind::Eval:
        return (v & ~f.bit) | (variant_[child[f.index_child]] & f.bit);
    }
    return v;
  };

  std::vector<std::uint64_t>& assumed = flat.assumed;
  assumed.assign(variant_.size(), 0);
  std::vector<std::uint32_t>& work = flat.work;
  std::vector<bool>& queued = flat.queued;
  for (;;) {
    for (Id c : classes) variant_[index(c)] = kEverywhere;
    work.clear();
    for (auto it = classes.rbegin(); it != classes.rend(); ++it) work.push_back(index(*it));
    queued.assign(variant_.size(), false);
    for (Id c : classes) queued[index(c)] = true;
    while (!work.empty()) {
      const std::uint32_t c = work.back();
      work.pop_back();
      queued[c] = false;
      // An empty class (a placeholder never merged) varies everywhere.
      std::uint64_t v = kEverywhere;
      for (std::uint32_t n = flat.node_begin[c]; n < flat.node_end[c]; ++n)
        v &= flat_variant(flat.nodes[n], assumed);
      if (v == variant_[c]) continue;
      variant_[c] = v;
      for (std::uint32_t p = flat.parent_begin[c]; p < flat.parent_end[c]; ++p) {
        const std::uint32_t pc = flat.parents[p];
        if (!queued[pc]) {
          queued[pc] = true;
          work.push_back(pc);
        }
      }
    }
    bool stable = true;
    for (Id c : classes) {
      if (assumed[index(c)] != variant_[index(c)]) stable = false;
      assumed[index(c)] = variant_[index(c)];
    }
    if (stable) break;
  }
  // The classes whose invariance differs from what the last rebuild gave
  // (a merge in between already intersected it), and those new since.
  changed_.clear();
  published_.resize(variant_.size(), Published{});
  for (Id c : classes) {
    Published& was = published_[index(c)];
    if (!was.known || was.variant != variant_[index(c)]) changed_.push_back(c);
    was = {true, variant_[index(c)]};
  }
}

}  // namespace augur::eqsat
