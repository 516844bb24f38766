#include "runtime/peg/peg_graph.h"

#include <algorithm>
#include <bit>

namespace augur::peg {

unsigned PegGraph::depth(std::uint32_t i) const {
  return static_cast<unsigned>(std::bit_width(variant[i]));
}

namespace {

// Sets each node's `value` to step(node, value) until nothing changes,
// running a node's step again when a child's value changed (the values only
// grow, so this ends).
template <class Step>
void to_fixpoint(const PegGraph& graph, std::vector<std::uint64_t>& value, Step step) {
  const std::size_t n = graph.nodes.size();
  // Parents as compressed rows: node c's are parents[first[c], first[c + 1]).
  std::vector<std::uint32_t> first(n + 1, 0), parents;
  for (const PegNode& node : graph.nodes)
    for (std::uint32_t c : node.children) ++first[c + 1];
  for (std::size_t c = 0; c < n; ++c) first[c + 1] += first[c];
  parents.resize(first[n]);
  {
    std::vector<std::uint32_t> next(first.begin(), first.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t c : graph.nodes[i].children) parents[next[c]++] = i;
  }
  value.assign(n, 0);
  std::vector<std::uint32_t> work;
  for (std::uint32_t i = 0; i < n; ++i) work.push_back(i);
  std::vector<bool> queued(n, true);
  while (!work.empty()) {
    const std::uint32_t i = work.back();
    work.pop_back();
    queued[i] = false;
    const std::uint64_t v = step(graph.nodes[i], value);
    if (v == value[i]) continue;
    value[i] = v;
    for (std::uint32_t k = first[i]; k < first[i + 1]; ++k) {
      const std::uint32_t p = parents[k];
      if (!queued[p]) {
        queued[p] = true;
        work.push_back(p);
      }
    }
  }
}

std::uint64_t loop_bit(const PegNode& node) {
  return is_loop_op(node.kind()) ? std::uint64_t{1} << (node.loop() - 1) : 0;
}

// The arm a φ takes whatever its condition: φ(c, a, a) is a, φ(true, a, b)
// is a (translation's φs whose arms or condition folded only later).
std::optional<std::uint32_t> taken_arm(const PegGraph& graph, const PegNode& node) {
  if (node.kind() != Kind::Phi) return std::nullopt;
  if (node.children[1] == node.children[2]) return node.children[1];
  const PegNode& cond = graph.nodes[node.children[0]];
  if (cond.kind() != Kind::Const) return std::nullopt;
  return node.children[cond.label.payload != 0 ? 1 : 2];
}

// Node i, past the φs that take one arm.
std::uint32_t past_taken_arms(const PegGraph& graph, std::uint32_t i) {
  while (const std::optional<std::uint32_t> arm = taken_arm(graph, graph.nodes[i])) i = *arm;
  return i;
}

// eval_ℓ(x, pass_ℓ(true)) where x reaches no node of loop ℓ or deeper
// (`reached`): x at the loop's first test, where it is what it is anywhere.
// Translation makes such a loop where a body always leaves in its first
// iteration through an inner loop (which the body could have left by), and
// its exit condition may be φ(c, true, true).
bool vacuous_eval(const PegGraph& graph, const PegNode& node,
                  const std::vector<std::uint64_t>& reached) {
  if (node.kind() != Kind::Eval) return false;
  const PegNode& pass = graph.nodes[node.children[1]];
  if (pass.kind() != Kind::Pass) return false;
  const PegNode& cond = graph.nodes[past_taken_arms(graph, pass.children[0])];
  return cond.kind() == Kind::Const && cond.label.payload != 0 &&
         (reached[node.children[0]] >> (node.loop() - 1)) == 0;
}

// The graph without the nodes that stand for one of their children: φs that
// take one arm and vacuous evals; each read of one reads that
// child. Nodes are numbered again in the order a walk from the roots meets
// them.
void drop_transparent_nodes(PegGraph& graph) {
  const bool any = std::any_of(graph.nodes.begin(), graph.nodes.end(), [&](const PegNode& node) {
    if (taken_arm(graph, node)) return true;
    if (node.kind() != Kind::Eval) return false;
    const PegNode& pass = graph.nodes[node.children[1]];
    return pass.kind() == Kind::Pass && graph.nodes[pass.children[0]].kind() == Kind::Const;
  });
  if (!any) return;
  // Bit ℓ-1 set where a node reaches a node of loop ℓ, through no vacuous eval.
  std::vector<std::uint64_t> reached;
  to_fixpoint(graph, reached, [&](const PegNode& node, const std::vector<std::uint64_t>& r) {
    if (const std::optional<std::uint32_t> arm = taken_arm(graph, node)) return r[*arm];
    if (vacuous_eval(graph, node, r)) return r[node.children[0]];
    std::uint64_t v = loop_bit(node);
    for (std::uint32_t c : node.children) v |= r[c];
    return v;
  });
  const auto resolve = [&](std::uint32_t i) {
    for (;;) {
      i = past_taken_arms(graph, i);
      if (!vacuous_eval(graph, graph.nodes[i], reached)) return i;
      i = graph.nodes[i].children[0];
    }
  };
  PegGraph out;
  constexpr std::uint32_t kUnvisited = ~std::uint32_t{0};
  std::vector<std::uint32_t> index_of(graph.nodes.size(), kUnvisited);
  std::vector<std::uint32_t> todo;
  const auto visit = [&](std::uint32_t i) {
    i = resolve(i);
    if (index_of[i] == kUnvisited) {
      index_of[i] = static_cast<std::uint32_t>(out.nodes.size());
      out.nodes.push_back(graph.nodes[i]);
      todo.push_back(i);
    }
    return index_of[i];
  };
  if (graph.result) out.result = visit(*graph.result);
  out.state = visit(graph.state);
  for (std::uint32_t output : graph.outputs) out.outputs.push_back(visit(output));
  while (!todo.empty()) {
    const std::uint32_t i = todo.back();
    todo.pop_back();
    std::vector<std::uint32_t> children = graph.nodes[i].children;
    for (std::uint32_t& c : children) c = visit(c);
    out.nodes[index_of[i]].children = std::move(children);
  }
  graph = std::move(out);
}

}  // namespace

std::optional<PegGraph> extract_graph(const eqsat::EGraph& egraph, const Choices& choices,
                                      const PegRoots& roots, std::optional<eqsat::Id>* blame) {
  const auto choice = [&](eqsat::Id cls) {
    const std::uint32_t c = eqsat::index(egraph.find(cls));
    return c < choices.size() ? choices[c] : kNoChoice;
  };
  if ((roots.result && choice(*roots.result) == kNoChoice) || choice(roots.state) == kNoChoice)
    return std::nullopt;
  for (eqsat::Id output : roots.outputs)
    if (choice(output) == kNoChoice) return std::nullopt;
  PegGraph graph;
  constexpr std::uint32_t kUnvisited = ~std::uint32_t{0};
  std::vector<std::uint32_t> index_of(egraph.id_count(), kUnvisited);  // class -> node
  std::vector<std::uint32_t> todo;
  const auto visit = [&](eqsat::Id cls) {
    const eqsat::Id root = egraph.find(cls);
    std::uint32_t& node = index_of[eqsat::index(root)];
    if (node == kUnvisited) {
      node = static_cast<std::uint32_t>(graph.nodes.size());
      const eqsat::Id chosen = choice(root);
      graph.nodes.push_back(PegNode{egraph.node(chosen).label, {}, root, chosen});
      todo.push_back(node);
    }
    return node;
  };
  if (roots.result) graph.result = visit(*roots.result);
  graph.state = visit(roots.state);
  for (eqsat::Id output : roots.outputs) graph.outputs.push_back(visit(output));
  while (!todo.empty()) {
    const std::uint32_t i = todo.back();
    todo.pop_back();
    const eqsat::ENodeView v = egraph.node(graph.nodes[i].enode);
    std::vector<std::uint32_t> children;
    children.reserve(v.children.size());
    for (eqsat::Id c : v.children) {
      if (choice(c) == kNoChoice) {
        if (blame) *blame = graph.nodes[i].enode;
        return std::nullopt;
      }
      children.push_back(visit(c));
    }
    graph.nodes[i].children = std::move(children);
  }
  drop_transparent_nodes(graph);
  compute_variance(graph);
  return graph;
}

std::optional<PegGraph> extract_graph(const eqsat::EGraph& egraph,
                                      const eqsat::Extractor& extractor, const PegRoots& roots,
                                      std::optional<eqsat::Id>* blame) {
  Choices choices(egraph.id_count(), kNoChoice);
  for (eqsat::Id c : egraph.classes())
    if (extractor.cost(c)) choices[eqsat::index(c)] = extractor.choice(c);
  return extract_graph(egraph, choices, roots, blame);
}

void prefer_positive_conditions(const eqsat::EGraph& egraph, Choices& choices,
                                const std::unordered_set<std::uint32_t>& banned) {
  const auto choice = [&](eqsat::Id cls) {
    const std::uint32_t c = eqsat::index(egraph.find(cls));
    return c < choices.size() ? choices[c] : kNoChoice;
  };
  for (eqsat::Id cls : egraph.classes()) {
    const eqsat::Id chosen = choice(cls);
    if (chosen == kNoChoice) continue;
    const eqsat::ENodeView phi = egraph.node(chosen);
    if (kind_of(phi.label.op) != Kind::Phi) continue;
    const eqsat::Id cond = choice(phi.children[0]);
    if (cond == kNoChoice) continue;
    const eqsat::ENodeView negation = egraph.node(cond);
    if (kind_of(negation.label.op) != Kind::Not) continue;
    const eqsat::Id x = egraph.find(negation.children[0]);
    if (choice(x) == kNoChoice) continue;
    const eqsat::Id a = egraph.find(phi.children[1]), b = egraph.find(phi.children[2]);
    for (eqsat::Id n : egraph.nodes_of(cls)) {
      const eqsat::ENodeView other = egraph.node(n);
      if (other.label == phi.label && egraph.find(other.children[0]) == x &&
          egraph.find(other.children[1]) == b && egraph.find(other.children[2]) == a &&
          !banned.contains(eqsat::index(n))) {
        choices[eqsat::index(egraph.find(cls))] = n;
        break;
      }
    }
  }
}

bool same_program(const PegGraph& a, const PegGraph& b) {
  if (a.nodes.size() != b.nodes.size() || a.result != b.result || a.state != b.state ||
      a.outputs != b.outputs)
    return false;
  return std::equal(a.nodes.begin(), a.nodes.end(), b.nodes.begin(),
                    [](const PegNode& x, const PegNode& y) {
                      return x.label == y.label && x.children == y.children;
                    });
}

void compute_variance(PegGraph& graph) {
  to_fixpoint(graph, graph.variant, [&](const PegNode& node, const std::vector<std::uint64_t>& r) {
    std::uint64_t v = 0;
    for (std::uint32_t c : node.children) v |= r[c];
    const std::uint64_t bit = loop_bit(node);
    switch (node.kind()) {
      case Kind::Theta:
        return v | bit;
      case Kind::Eval:
        return (v & ~bit) | (r[node.children[1]] & bit);
      case Kind::Pass:
        return v & ~bit;
      default:
        return v;
    }
  });
}

std::string print_graph(const PegGraph& graph) {
  std::string out;
  for (std::uint32_t i = 0; i < graph.nodes.size(); ++i) {
    out += "%" + std::to_string(i) + " = " + label_text(graph.nodes[i].label);
    for (std::uint32_t c : graph.nodes[i].children) out += " %" + std::to_string(c);
    out += "\n";
  }
  if (graph.result) out += "result %" + std::to_string(*graph.result) + "\n";
  out += "state %" + std::to_string(graph.state) + "\n";
  for (std::uint32_t output : graph.outputs) out += "output %" + std::to_string(output) + "\n";
  return out;
}

}  // namespace augur::peg
