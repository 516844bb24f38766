#include "runtime/peg/peg_graph.h"

#include <bit>
#include <unordered_map>

namespace augur::peg {

unsigned PegGraph::depth(std::uint32_t i) const {
  return static_cast<unsigned>(std::bit_width(variant[i]));
}

std::optional<PegGraph> extract_graph(const eqsat::EGraph& egraph,
                                      const std::unordered_map<std::uint32_t, eqsat::Id>& choices,
                                      const PegRoots& roots, std::optional<eqsat::Id>* blame) {
  const auto choice = [&](eqsat::Id cls) -> std::optional<eqsat::Id> {
    auto it = choices.find(eqsat::index(egraph.find(cls)));
    if (it == choices.end()) return std::nullopt;
    return it->second;
  };
  if ((roots.result && !choice(*roots.result)) || !choice(roots.state)) return std::nullopt;
  for (eqsat::Id output : roots.outputs)
    if (!choice(output)) return std::nullopt;
  PegGraph graph;
  std::unordered_map<std::uint32_t, std::uint32_t> index_of;  // class -> node
  std::vector<std::uint32_t> todo;
  const auto visit = [&](eqsat::Id cls) {
    const eqsat::Id root = egraph.find(cls);
    auto [it, added] =
        index_of.emplace(eqsat::index(root), static_cast<std::uint32_t>(graph.nodes.size()));
    if (added) {
      const eqsat::Id chosen = *choice(root);
      graph.nodes.push_back(PegNode{egraph.node(chosen).label, {}, root, chosen});
      todo.push_back(it->second);
    }
    return it->second;
  };
  if (roots.result) graph.result = visit(*roots.result);
  graph.state = visit(roots.state);
  for (eqsat::Id output : roots.outputs) graph.outputs.push_back(visit(output));
  while (!todo.empty()) {
    const std::uint32_t i = todo.back();
    todo.pop_back();
    const eqsat::ENodeView v = egraph.node(graph.nodes[i].enode);
    std::vector<std::uint32_t> children;
    for (eqsat::Id c : v.children) {
      if (!choice(c)) {
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
  std::unordered_map<std::uint32_t, eqsat::Id> choices;
  for (eqsat::Id c : egraph.classes())
    if (extractor.cost(c)) choices.emplace(eqsat::index(c), extractor.choice(c));
  return extract_graph(egraph, choices, roots, blame);
}

void compute_variance(PegGraph& graph) {
  const std::size_t n = graph.nodes.size();
  std::vector<std::vector<std::uint32_t>> parents(n);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t c : graph.nodes[i].children) parents[c].push_back(i);
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
    for (std::uint32_t p : parents[i]) {
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
