// Is what the loop-invariance fixpoint concluded well founded?
//
// The fixpoint takes θ cycles optimistically: θ_ℓ(a, b) is invariant in loop
// k when a is and b is assumed to be. That is an induction on loop ℓ's
// iteration index (θ_ℓ at i+1 is b at i), so it covers a cycle along which
// that index never grows. Every cycle of a PEG is such. An e-graph can also
// hold one that leaves loop ℓ through eval_ℓ or pass_ℓ, which read their
// operand at any iteration of ℓ, and comes back: after rules, x can read
// eval_ℓ(θ_ℓ(0, θ_ℓ + x), pass_ℓ(…)), and the fixpoint would then call x
// invariant whatever x is.
//
// Size-change termination on the iteration indices decides whether cycles
// are well founded: a strongly connected part of a graph of classes is, when
// some loop m has θ_m edges in it and no exit of m (index m never grows in it
// and falls at every θ_m edge), and what remains of it without those edges is
// again (find_bad_parts). First, for every e-node, then within that graph's
// bad parts per loop k, for every e-node that could prove its class
// invariant in k: where no part is bad, no proof can be, and that is the
// common case. Otherwise every class of a bad part (a
// suspect) gets a proof per loop it is invariant in: the e-node that first
// proves it in a bottom-up pass that reads only classes proven before it,
// except at a θ's next value, which it reads as the fixpoint left it (other
// classes count as the fixpoint says: a bad cycle of proofs lies within a
// bad part of the first graphs). Where the proofs have a bad part, its θs'
// optimism for k is withdrawn and the caller settles again: every withdrawal
// is new, so this ends. The proofs are the first found (plain e-nodes before
// exits before θs), so the result is a sound approximation of the largest
// well-founded one, not that.
#include <algorithm>
#include <bit>
#include <optional>
#include <string>

#include "jit/error.h"
#include "runtime/eqsat/loop_invariance.h"

namespace augur::eqsat {

namespace {

constexpr std::uint32_t kNone = ~std::uint32_t{0};

// The order in which a class's e-nodes are tried as its proof: plain e-nodes
// read their operands where they are, exits anywhere in their loop, and a θ's
// next value is the optimism being checked.
int proof_rank(LoopRole::Kind kind) {
  switch (kind) {
    case LoopRole::Kind::Plain:
      return 0;
    case LoopRole::Kind::Eval:
    case LoopRole::Kind::Pass:
      return 1;
    case LoopRole::Kind::Theta:
      return 2;
  }
  return 2;
}

}  // namespace

std::optional<LoopInvariance::Founding::Step> LoopInvariance::step_to_child(
    const LoopRole& role, std::size_t child, std::uint64_t bit) const {
  using Step = Founding::Step;
  const bool exit_operand = role.kind == LoopRole::Kind::Pass ||
                            (role.kind == LoopRole::Kind::Eval && child != role.index_child);
  if (exit_operand) {
    if (loop_bit(role.loop) == bit) return std::nullopt;  // read at any iteration of its own loop
    return Step::Exit;
  }
  return role.kind == LoopRole::Kind::Theta && child == 1 ? Step::Theta : Step::Same;
}

void LoopInvariance::candidate_graph(const EGraph& g, std::uint64_t bit) {
  Founding& f = founding_;
  using Step = Founding::Step;
  f.vertex_class.clear();
  for (std::uint32_t c : f.within)
    if ((variant_[c] & bit) == 0) {
      f.vertex_of[c] = static_cast<std::uint32_t>(f.vertex_class.size());
      f.vertex_class.push_back(c);
    }
  f.first_edge.assign(1, 0);
  f.edges.clear();
  for (std::uint32_t c : f.vertex_class) {
    for (const EGraph::IndexedNode& n : g.indexed(make_id(c))) {
      const LoopRole role = this->role(g, n);
      if (role.kind == LoopRole::Kind::Theta && loop_bit(role.loop) == bit)
        continue;  // varies in its loop
      const std::span<const Id> children = g.children_of(n);
      const std::size_t first = f.edges.size();
      for (std::size_t i = 0; i < children.size(); ++i) {
        const std::optional<Step> step = step_to_child(role, i, bit);
        if (!step) continue;
        const std::uint32_t child = index(children[i]);
        if ((variant_[child] & bit) != 0 || (child == c && *step != Step::Theta)) {
          f.edges.resize(first);  // this e-node proves nothing in the loop
          break;
        }
        if (f.vertex_of[child] != kNone)
          f.edges.push_back({f.vertex_of[child], *step, static_cast<std::uint8_t>(role.loop)});
      }
    }
    f.first_edge.push_back(static_cast<std::uint32_t>(f.edges.size()));
  }
  // kNone again, in time proportional to this graph, not to the e-graph.
  for (std::uint32_t c : f.vertex_class) f.vertex_of[c] = kNone;
}

void LoopInvariance::find_bad_parts() {
  Founding& f = founding_;
  using Step = Founding::Step;
  const std::size_t n = f.vertex_class.size();
  f.part.assign(n, kNone);
  f.order.assign(n, kNone);
  f.low.assign(n, 0);
  f.on_stack.assign(n, false);
  f.parts.clear();
  f.bad_parts.clear();
  std::uint32_t stamp = 0;
  const auto enabled = [](const Founding::Edge& e, std::uint64_t dropped) {
    return e.step != Step::Theta || ((dropped >> (e.loop - 1)) & 1) == 0;
  };
  // Tarjan's algorithm on the vertices of `within` and the edges `dropped`
  // leaves, appending every component with a cycle to f.parts.
  const auto split = [&](std::span<const std::uint32_t> within, std::uint64_t dropped) {
    const std::uint32_t mark = stamp++;
    for (std::uint32_t v : within) {
      f.part[v] = mark;
      f.order[v] = kNone;
    }
    std::uint32_t clock = 0;
    const auto open = [&](std::uint32_t v) {
      f.order[v] = f.low[v] = clock++;
      f.stack.push_back(v);
      f.on_stack[v] = true;
      f.calls.push_back({v, f.first_edge[v]});
    };
    for (std::uint32_t root : within) {
      if (f.order[root] != kNone) continue;
      open(root);
      while (!f.calls.empty()) {
        const std::uint32_t v = f.calls.back().first;
        const std::uint32_t e = f.calls.back().second;
        if (e < f.first_edge[v + 1]) {
          ++f.calls.back().second;
          const Founding::Edge& edge = f.edges[e];
          const std::uint32_t w = edge.to;
          if (f.part[w] != mark || !enabled(edge, dropped)) continue;
          if (f.order[w] == kNone)
            open(w);
          else if (f.on_stack[w])
            f.low[v] = std::min(f.low[v], f.order[w]);
          continue;
        }
        f.calls.pop_back();
        if (!f.calls.empty()) {
          const std::uint32_t u = f.calls.back().first;
          f.low[u] = std::min(f.low[u], f.low[v]);
        }
        if (f.low[v] != f.order[v]) continue;
        // The component is what the stack holds above v.
        const auto top = std::find(f.stack.rbegin(), f.stack.rend(), v).base() - 1;
        bool cycle = top + 1 != f.stack.end();
        for (std::uint32_t k = f.first_edge[v]; !cycle && k < f.first_edge[v + 1]; ++k)
          cycle = f.edges[k].to == v && enabled(f.edges[k], dropped);
        for (auto w = top; w != f.stack.end(); ++w) f.on_stack[*w] = false;
        if (cycle) f.parts.push_back({{top, f.stack.end()}, dropped});
        f.stack.erase(top, f.stack.end());
      }
    }
  };
  f.all.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) f.all[v] = v;
  split(f.all, 0);
  while (!f.parts.empty()) {
    Founding::Part part = std::move(f.parts.back());
    f.parts.pop_back();
    const std::uint32_t mark = stamp++;
    for (std::uint32_t v : part.vertices) f.part[v] = mark;
    std::uint64_t theta_loops = 0, exit_loops = 0;
    for (std::uint32_t v : part.vertices)
      for (std::uint32_t k = f.first_edge[v]; k < f.first_edge[v + 1]; ++k) {
        const Founding::Edge& edge = f.edges[k];
        if (f.part[edge.to] != mark || !enabled(edge, part.dropped)) continue;
        if (edge.step == Step::Theta) theta_loops |= loop_bit(edge.loop);
        if (edge.step == Step::Exit) exit_loops |= loop_bit(edge.loop);
      }
    const std::uint64_t falling = theta_loops & ~exit_loops;
    if (falling != 0)
      split(part.vertices, part.dropped | falling);
    else if (theta_loops != 0)  // (a cycle without θ proves nothing either way)
      f.bad_parts.push_back(std::move(part));
  }
}

bool LoopInvariance::withdraw_unfounded_optimism(const EGraph& g) {
  // Only a loop with both θs and exits can close such a cycle, and only in
  // the graph of another loop (below).
  const std::uint64_t closing = theta_loops_ & exit_loops_;
  std::uint64_t checked = 0;
  for (std::uint64_t rest = theta_loops_ | exit_loops_; rest != 0; rest &= rest - 1)
    if ((closing & ~(rest & -rest)) != 0) checked |= rest & -rest;
  if (checked == 0) return false;
  Founding& f = founding_;
  using Step = Founding::Step;
  const std::size_t ids = variant_.size();
  const std::span<const Id> classes = g.classes();

  // Per loop k, the e-nodes that could prove a class invariant in k (what
  // they read for k is, and none of it is their own class but a θ's next
  // value) as a graph of the classes invariant in k, but for leaves (no
  // cycle passes them). Every proof for k is in it, so a bad cycle of proofs
  // lies in a bad part of it; the classes of those parts are suspects. Each
  // of these graphs is part of the one that takes every e-node, whatever it
  // reads (loop 0 below), and a bad part of a graph lies within one of every
  // graph it is part of: with more than one loop to check, that graph comes
  // first, and where it has no bad part, which is the common case, no
  // loop's graph is built.
  const std::uint64_t in_use = theta_loops_ | exit_loops_;
  f.within.clear();
  for (Id c : classes) {
    const std::span<const EGraph::IndexedNode> nodes = g.indexed(c);
    if (std::any_of(nodes.begin(), nodes.end(),
                    [&](const EGraph::IndexedNode& n) { return !g.children_of(n).empty(); }))
      f.within.push_back(index(c));
  }
  f.vertex_of.resize(ids, kNone);
  if (std::popcount(checked) > 1) {
    candidate_graph(g, 0);
    find_bad_parts();
    if (f.bad_parts.empty()) return false;
    f.within.clear();
    for (const Founding::Part& part : f.bad_parts)
      for (std::uint32_t v : part.vertices) f.within.push_back(f.vertex_class[v]);
  }
  f.suspect_of.resize(ids, kNone);
  f.suspects.clear();
  for (std::uint64_t rest = checked; rest != 0; rest &= rest - 1) {
    const std::uint64_t bit = rest & -rest;
    candidate_graph(g, bit);
    find_bad_parts();
    for (const Founding::Part& part : f.bad_parts)
      for (std::uint32_t v : part.vertices)
        if (f.suspect_of[f.vertex_class[v]] == kNone) {
          f.suspect_of[f.vertex_class[v]] = static_cast<std::uint32_t>(f.suspects.size());
          f.suspects.push_back(f.vertex_class[v]);
        }
  }
  if (f.suspects.empty()) return false;

  // Proofs, bottom-up, for the suspects (by a dense index); any other class
  // counts as the fixpoint says.
  const std::size_t count = f.suspects.size();
  const std::size_t width = static_cast<std::size_t>(std::popcount(in_use));
  const auto slot = [&](std::uint64_t bit) {
    return static_cast<std::size_t>(std::popcount(in_use & (bit - 1)));
  };
  f.proven.assign(count, 0);
  f.proof.assign(count * width, Id{});
  const auto proven = [&](std::uint32_t c) {
    return f.suspect_of[c] == kNone ? ~variant_[c] : f.proven[f.suspect_of[c]];
  };
  // The loops `n` is invariant in given what is proven so far.
  const auto provable = [&](const EGraph::IndexedNode& n, const LoopRole& role) {
    const std::span<const Id> children = g.children_of(n);
    std::uint64_t all = ~std::uint64_t{0};
    for (std::size_t i = 0; i < children.size(); ++i) {
      const std::uint32_t c = index(children[i]);
      if (role.kind == LoopRole::Kind::Theta && i == 1)
        all &= proven(c) | (~variant_[c] & ~withdrawn_[index(n.id)]);
      else
        all &= proven(c);
    }
    switch (role.kind) {
      case LoopRole::Kind::Plain:
        return all;
      case LoopRole::Kind::Theta:
        return all & ~loop_bit(role.loop);
      case LoopRole::Kind::Pass:
        return all | loop_bit(role.loop);
      case LoopRole::Kind::Eval: {
        const std::uint64_t bit = loop_bit(role.loop);
        return (all & ~bit) | (proven(index(children[role.index_child])) & bit);
      }
    }
    return all;
  };
  f.work.clear();
  f.queued.assign(count, false);
  const auto enqueue = [&](std::uint32_t c) {
    const std::uint32_t s = f.suspect_of[c];
    if (s != kNone && !f.queued[s]) {
      f.queued[s] = true;
      f.work.push_back(s);
    }
  };
  for (std::uint32_t s = count; s-- > 0;) enqueue(f.suspects[s]);
  while (!f.work.empty()) {
    const std::uint32_t s = f.work.back();
    f.work.pop_back();
    f.queued[s] = false;
    const std::uint32_t c = f.suspects[s];
    const std::uint64_t wanted = ~variant_[c] & ~f.proven[s];
    std::uint64_t left = wanted;
    for (int rank = 0; rank < 3 && left != 0; ++rank)
      for (const EGraph::IndexedNode& n : g.indexed(make_id(c))) {
        const LoopRole role = this->role(g, n);
        if (proof_rank(role.kind) != rank) continue;
        std::uint64_t got = provable(n, role) & left;
        left &= ~got;
        for (got &= in_use; got != 0; got &= got - 1) f.proof[s * width + slot(got & -got)] = n.id;
      }
    if (left == wanted) continue;
    f.proven[s] |= wanted & ~left;
    for (Id p : g.parents_of(make_id(c))) enqueue(index(g.find(p)));
  }
  for (std::uint32_t s = 0; s < count; ++s)
    if ((~variant_[f.suspects[s]] & ~f.proven[s]) != 0)
      throw jit::error("loop invariance: class " + std::to_string(f.suspects[s]) +
                       " is invariant without a proof (an internal error)");

  // Per loop, the proofs as a graph of the suspects proven invariant in it.
  bool withdrew = false;
  for (std::uint64_t rest = checked; rest != 0; rest &= rest - 1) {
    const std::uint64_t bit = rest & -rest;
    f.vertex_of_suspect.assign(count, kNone);
    f.vertex_class.clear();
    f.edge_node.clear();
    for (std::uint32_t s = 0; s < count; ++s)
      if (f.proven[s] & bit) {
        f.vertex_of_suspect[s] = static_cast<std::uint32_t>(f.vertex_class.size());
        f.vertex_class.push_back(s);
      }
    f.first_edge.assign(1, 0);
    f.edges.clear();
    for (std::uint32_t s : f.vertex_class) {
      const Id proof = f.proof[s * width + slot(bit)];
      f.edge_node.push_back(proof);
      const ENodeView node = g.node(proof);
      const LoopRole role = this->role(node);
      for (std::size_t i = 0; i < node.children.size(); ++i) {
        const std::optional<Step> step = step_to_child(role, i, bit);
        const std::uint32_t child = f.suspect_of[index(g.find(node.children[i]))];
        if (step && child != kNone && f.vertex_of_suspect[child] != kNone)
          f.edges.push_back(
              {f.vertex_of_suspect[child], *step, static_cast<std::uint8_t>(role.loop)});
      }
      f.first_edge.push_back(static_cast<std::uint32_t>(f.edges.size()));
    }
    find_bad_parts();
    // No index falls round these cycles: none of their θs may assume.
    bool progress = false;
    for (const Founding::Part& part : f.bad_parts) {
      const std::uint32_t mark = f.part[part.vertices.front()];
      for (std::uint32_t v : part.vertices)
        for (std::uint32_t k = f.first_edge[v]; k < f.first_edge[v + 1]; ++k) {
          const Founding::Edge& edge = f.edges[k];
          if (edge.step != Step::Theta || f.part[edge.to] != mark ||
              ((part.dropped >> (edge.loop - 1)) & 1) != 0)
            continue;
          std::uint64_t& withdrawn = withdrawn_[index(f.edge_node[v])];
          if ((withdrawn & bit) == 0) {
            withdrawn |= bit;
            ++withdrawn_count_;
            progress = true;
          }
        }
    }
    withdrew |= progress;
    if (!f.bad_parts.empty() && !progress)
      throw jit::error(
          "loop invariance: a cycle of proofs is not well founded (an internal error)");
  }
  for (std::uint32_t c : f.suspects) f.suspect_of[c] = kNone;
  return withdrew;
}

}  // namespace augur::eqsat
