#include "runtime/peg/peg_graph.h"

#include <algorithm>
#include <bit>

namespace augur::peg {

unsigned PegGraph::depth(std::uint32_t i) const {
  return static_cast<unsigned>(std::bit_width(variant[i]));
}

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
  graph.variant.assign(n, 0);
  std::vector<std::uint32_t> work;
  for (std::uint32_t i = 0; i < n; ++i) work.push_back(i);
  std::vector<bool> queued(n, true);
  while (!work.empty()) {
    const std::uint32_t i = work.back();
    work.pop_back();
    queued[i] = false;
    const PegNode& node = graph.nodes[i];
    std::uint64_t v = 0;
    for (std::uint32_t c : node.children) v |= graph.variant[c];
    const std::uint64_t bit = is_loop_op(node.kind()) ? std::uint64_t{1} << (node.loop() - 1) : 0;
    switch (node.kind()) {
      case Kind::Theta:
        v |= bit;
        break;
      case Kind::Eval:
        v = (v & ~bit) | (graph.variant[node.children[1]] & bit);
        break;
      case Kind::Pass:
        v &= ~bit;
        break;
      default:
        break;
    }
    if (v == graph.variant[i]) continue;
    graph.variant[i] = v;
    for (std::uint32_t k = first[i]; k < first[i + 1]; ++k) {
      const std::uint32_t p = parents[k];
      if (!queued[p]) {
        queued[p] = true;
        work.push_back(p);
      }
    }
  }
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
