#include "runtime/peg/wellformed.h"

#include <algorithm>
#include <functional>

#include "runtime/eqsat/stamped_set.h"

namespace augur::peg {

namespace {

std::string node_name(const PegGraph& g, std::uint32_t n) {
  return "%" + std::to_string(n) + " (" + label_text(g.nodes[n].label) + ")";
}

bool loop_node(Kind k) {
  return k == Kind::Theta || k == Kind::Eval || k == Kind::Pass;
}

// Each check returns the first violation and the node to blame: the one whose
// edge breaks the rule, so that banning its e-node makes the extractor choose
// differently.
struct Violation {
  std::string what;
  std::uint32_t node = 0;
};

// 1: no cycle avoids θ's second child.
std::optional<Violation> check_cycles(const PegGraph& g) {
  enum : char { kWhite, kGrey, kBlack };
  std::vector<char> color(g.nodes.size(), kWhite);
  for (std::uint32_t start = 0; start < g.nodes.size(); ++start) {
    if (color[start] != kWhite) continue;
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{start, 0}};
    color[start] = kGrey;
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      const PegNode& p = g.nodes[n];
      if (next == p.children.size()) {
        color[n] = kBlack;
        stack.pop_back();
        continue;
      }
      const std::size_t i = next++;
      if (p.kind() == Kind::Theta && i == 1) continue;
      const std::uint32_t c = p.children[i];
      if (color[c] == kGrey)
        return Violation{"a cycle avoids every θ's second child at " + node_name(g, c), n};
      if (color[c] == kWhite) {
        color[c] = kGrey;
        stack.emplace_back(c, 0);
      }
    }
  }
  return std::nullopt;
}

// 2: inner θs only through the first child of their eval or pass. Blames the
// node whose edge reaches the inner θ.
std::optional<Violation> check_nesting(const PegGraph& g) {
  // A walk per loop node; what one walk at level l explored without finding
  // a deeper θ, no later walk at level l needs to explore again (what it
  // reaches is as clean), so each node is explored once per level. Walks
  // keep their order, so the violation reported is the one a walk per loop
  // node exploring everything finds first.
  std::vector<std::uint64_t> clean(g.nodes.size(), 0);  // bit l-1: clean at level l
  eqsat::StampedSet seen;
  std::vector<std::uint32_t> explored;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> todo;  // node, parent
  for (std::uint32_t x = 0; x < g.nodes.size(); ++x) {
    if (!loop_node(g.nodes[x].kind())) continue;
    const unsigned l = g.nodes[x].loop();
    const std::uint64_t bit = l >= 1 && l <= 64 ? std::uint64_t{1} << (l - 1) : 0;
    seen.clear(g.nodes.size());
    explored.clear();
    todo.clear();
    for (std::uint32_t c : g.nodes[x].children) todo.emplace_back(c, x);
    while (!todo.empty()) {
      const auto [n, parent] = todo.back();
      todo.pop_back();
      const PegNode& p = g.nodes[n];
      if (p.kind() == Kind::Theta && p.loop() > l)
        return Violation{
            "the loop node " + node_name(g, x) + " reaches the inner θ " + node_name(g, n), parent};
      if ((clean[n] & bit) != 0 || !seen.insert(n)) continue;
      explored.push_back(n);
      for (std::size_t i = 0; i < p.children.size(); ++i) {
        if ((p.kind() == Kind::Eval || p.kind() == Kind::Pass) && p.loop() > l && i == 0) continue;
        todo.emplace_back(p.children[i], n);
      }
    }
    for (std::uint32_t n : explored) clean[n] |= bit;
  }
  return std::nullopt;
}

// 3: a cycle through eval_ℓ or pass_ℓ contains a θ of an enclosing loop
// (checked per strongly connected component).
std::optional<Violation> check_loop_cycles(const PegGraph& g) {
  const std::size_t n = g.nodes.size();
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<bool> on_stack(n, false);
  std::vector<std::uint32_t> stack;
  int counter = 0;
  std::optional<Violation> error;
  // Iterative Tarjan.
  for (std::uint32_t root = 0; root < n && !error; ++root) {
    if (index[root] != -1) continue;
    std::vector<std::pair<std::uint32_t, std::size_t>> frames{{root, 0}};
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = true;
    while (!frames.empty()) {
      auto& [v, next] = frames.back();
      if (next < g.nodes[v].children.size()) {
        const std::uint32_t w = g.nodes[v].children[next++];
        if (index[w] == -1) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = true;
          frames.emplace_back(w, 0);
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        std::vector<std::uint32_t> scc;
        std::uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = false;
          scc.push_back(w);
        } while (w != v);
        if (scc.size() > 1) {
          unsigned min_theta = ~0u;
          for (std::uint32_t m : scc)
            if (g.nodes[m].kind() == Kind::Theta)
              min_theta = std::min(min_theta, g.nodes[m].loop());
          for (std::uint32_t m : scc) {
            const Kind k = g.nodes[m].kind();
            if ((k == Kind::Eval || k == Kind::Pass) && !(min_theta < g.nodes[m].loop()) && !error)
              error = Violation{
                  "a cycle through " + node_name(g, m) + " has no θ of an enclosing loop", m};
          }
        }
      }
      const std::uint32_t done = v;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
    }
  }
  return error;
}

}  // namespace

std::string check_well_formed(const PegGraph& g, std::optional<eqsat::Id>* blame) {
  std::optional<Violation> violation;
  for (std::uint32_t n = 0; n < g.nodes.size() && !violation; ++n) {
    const PegNode& p = g.nodes[n];
    if (p.kind() != Kind::Eval) continue;
    const PegNode& index = g.nodes[p.children[1]];
    if (index.kind() != Kind::Pass || index.loop() != p.loop())
      violation = Violation{"the eval " + node_name(g, n) + " is not over a pass of its loop", n};
  }
  for (const auto& check : {check_cycles, check_nesting, check_loop_cycles})
    if (!violation) violation = check(g);
  if (!violation) return {};
  if (blame) *blame = g.nodes[violation->node].enode;
  return violation->what;
}

}  // namespace augur::peg
