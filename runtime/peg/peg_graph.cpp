#include "runtime/peg/peg_graph.h"

#include <algorithm>
#include <bit>

#include "runtime/peg/peg_fold.h"

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

// Whether eval_ℓ(x, p) leaves its loop in the first iteration: p is
// pass_ℓ(true), past the φs that take one arm.
bool first_pass_eval(const PegGraph& graph, const PegNode& node) {
  if (node.kind() != Kind::Eval) return false;
  const PegNode& pass = graph.nodes[node.children[1]];
  if (pass.kind() != Kind::Pass) return false;
  const PegNode& cond = graph.nodes[past_taken_arms(graph, pass.children[0])];
  return cond.kind() == Kind::Const && cond.label.payload != 0;
}

// eval_ℓ(x, pass_ℓ(true)) where x reaches no node of loop ℓ or deeper
// (`reached`): x at the loop's first test, where it is what it is anywhere.
// Translation makes such a loop where a body always leaves in its first
// iteration through an inner loop (which the body could have left by), and
// its exit condition may be φ(c, true, true).
bool vacuous_eval(const PegGraph& graph, const PegNode& node,
                  const std::vector<std::uint64_t>& reached) {
  return first_pass_eval(graph, node) && (reached[node.children[0]] >> (node.loop() - 1)) == 0;
}

// The loops of one pass: a loop every eval of which is eval_ℓ(x, pass_ℓ(true))
// computes x in its first iteration, where each θ_ℓ(a, b) is a. A loop here
// is a component of the nodes that vary in loop ℓ and in no deeper one,
// joined by the edges between them; it is taken when its only readers from
// outside are such evals, no node of it is a loop operator of another loop
// (a nested loop is taken first, by the next call) and nothing it reads
// reaches a deeper loop (which would be left without its enclosing one).
// Returns, by node, whether the node is a θ or an eval of such a loop.
std::vector<bool> one_pass_loops(const PegGraph& graph, const std::vector<std::uint64_t>& reached) {
  const std::size_t n = graph.nodes.size();
  std::vector<std::uint32_t> parent(n);
  for (std::uint32_t i = 0; i < n; ++i) parent[i] = i;
  const auto root = [&](std::uint32_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::vector<bool> refused(n, false);
  for (std::uint32_t i = 0; i < n; ++i) {
    const PegNode& node = graph.nodes[i];
    const unsigned depth = graph.depth(i);
    if (depth > 0 && (node.kind() == Kind::Eval || node.kind() == Kind::Pass ||
                      (node.kind() == Kind::Theta && node.loop() != depth)))
      refused[i] = true;
    for (std::uint32_t k = 0; k < node.children.size(); ++k) {
      const std::uint32_t c = node.children[k];
      const unsigned child_depth = graph.depth(c);
      if (child_depth == 0) continue;
      if (child_depth < depth) {
        if ((reached[c] >> depth) != 0) refused[i] = true;
      } else if (child_depth == depth) {
        parent[root(i)] = root(c);
      } else if (!(node.kind() == Kind::Eval && k == 0 && node.loop() == child_depth &&
                   first_pass_eval(graph, node))) {
        refused[c] = true;
      }
    }
  }
  std::vector<bool> refused_loop(n, false);
  for (std::uint32_t i = 0; i < n; ++i)
    if (refused[i]) refused_loop[root(i)] = true;
  std::vector<bool> taken(n, false);
  for (std::uint32_t i = 0; i < n; ++i) {
    const PegNode& node = graph.nodes[i];
    if (node.kind() == Kind::Theta && graph.depth(i) == node.loop())
      taken[i] = !refused_loop[root(i)];
    else if (node.kind() == Kind::Eval && graph.depth(node.children[0]) == node.loop())
      taken[i] = first_pass_eval(graph, node) && !refused_loop[root(node.children[0])];
  }
  return taken;
}

// The graph read through `resolve`: each read of node i reads resolve(i)
// instead. Nodes are numbered again in the order a walk from the roots
// meets them.
template <class Resolve>
void rebuild(PegGraph& graph, Resolve resolve) {
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
  out.decided = std::move(graph.decided);
  graph = std::move(out);
}

using DecidedFlags = std::vector<std::pair<std::uint32_t, bool>>;

// The flags decided by cases, each with its value: a bool φ (through ¬, ∧,
// ∨, ≠ on bools and other such φs) over at most kMaxAtoms other conditions
// and at most kMaxFlagNodes nodes that is the same under every assignment
// of those conditions. Translation makes such flags where every path of a
// loop's body returns: "returned" is φ(a, true, φ(b, ¬c, c)), true however
// a, b and c come out, and reversion would otherwise need the loop's
// values to choose memory by it.
DecidedFlags decided_flags(const PegGraph& graph) {
  constexpr std::size_t kMaxAtoms = 4, kMaxFlagNodes = 32;
  const PegType boolean(ir::Type::bool_());
  const auto is_operator = [&](const PegNode& n) {
    if (n.type() != boolean) return false;
    switch (n.kind()) {
      case Kind::Phi:
      case Kind::Not:
      case Kind::Const:
        return true;
      case Kind::BitAnd:
      case Kind::BitOr:
      case Kind::BitXor:
      case Kind::Ne:
        return graph.nodes[n.children[0]].type() == boolean;
      default:
        return false;
    }
  };
  std::vector<std::uint32_t> order, atoms, todo;
  std::vector<std::uint8_t> slot(graph.nodes.size(), 0);  // 1 + index in order or atoms
  std::vector<bool> value;
  DecidedFlags flags;
  for (std::uint32_t root = 0; root < graph.nodes.size(); ++root) {
    if (graph.nodes[root].kind() != Kind::Phi || !is_operator(graph.nodes[root])) continue;
    // The flag's nodes, children first, and its atoms.
    order.clear();
    atoms.clear();
    todo.assign(1, root);
    bool small = true;
    while (!todo.empty() && small) {
      const std::uint32_t i = todo.back();
      if (slot[i] != 0) {
        todo.pop_back();
        continue;
      }
      const PegNode& n = graph.nodes[i];
      if (!is_operator(n)) {
        todo.pop_back();
        atoms.push_back(i);
        slot[i] = static_cast<std::uint8_t>(atoms.size());
        small = atoms.size() <= kMaxAtoms;
        continue;
      }
      bool ready = true;
      for (std::uint32_t c : n.children)
        if (slot[c] == 0) {
          todo.push_back(c);
          ready = false;
        }
      if (!ready) continue;
      todo.pop_back();
      order.push_back(i);
      slot[i] = static_cast<std::uint8_t>(order.size());
      small = order.size() <= kMaxFlagNodes;
    }
    // (Two bools, not an optional: GCC 12 warns of an uninitialized one at
    // -O1 under ThreadSanitizer.)
    bool decided = small, first = false;
    if (small) {
      value.assign(order.size(), false);
      const auto read = [&](std::uint32_t i, unsigned assignment) {
        const PegNode& n = graph.nodes[i];
        if (!is_operator(n)) return ((assignment >> (slot[i] - 1)) & 1) != 0;
        return static_cast<bool>(value[slot[i] - 1]);
      };
      for (unsigned assignment = 0; assignment < (1u << atoms.size()); ++assignment) {
        for (std::size_t k = 0; k < order.size(); ++k) {
          const PegNode& n = graph.nodes[order[k]];
          const auto child = [&](unsigned c) { return read(n.children[c], assignment); };
          switch (n.kind()) {
            case Kind::Const:
              value[k] = n.label.payload != 0;
              break;
            case Kind::Not:
              value[k] = !child(0);
              break;
            case Kind::Phi:
              value[k] = child(0) ? child(1) : child(2);
              break;
            case Kind::BitAnd:
              value[k] = child(0) && child(1);
              break;
            case Kind::BitOr:
              value[k] = child(0) || child(1);
              break;
            default:  // BitXor, Ne
              value[k] = child(0) != child(1);
              break;
          }
        }
        const bool v = value.back();
        if (assignment == 0) {
          first = v;
        } else if (v != first) {
          decided = false;
          break;
        }
      }
    }
    for (std::uint32_t i : order) slot[i] = 0;
    for (std::uint32_t i : atoms) slot[i] = 0;
    for (std::uint32_t i : todo) slot[i] = 0;
    if (decided) flags.emplace_back(root, first);
  }
  return flags;
}

// Each flag made the constant it is, in place, and noted in
// graph.decided.
void fold_flags(PegGraph& graph, const DecidedFlags& flags) {
  for (const auto& [flag, value] : flags) {
    graph.nodes[flag].label = label(Kind::Const, PegType(ir::Type::bool_()), value ? 1 : 0);
    graph.nodes[flag].children.clear();
    graph.decided.emplace_back(graph.nodes[flag].eclass, value);
  }
}

// The graph without the nodes that stand for one of their children: φs that
// take one arm and vacuous evals.
void drop_one_child_nodes(PegGraph& graph) {
  const bool any = std::any_of(graph.nodes.begin(), graph.nodes.end(), [&](const PegNode& node) {
    return taken_arm(graph, node) || first_pass_eval(graph, node);
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
  rebuild(graph, [&](std::uint32_t i) {
    for (;;) {
      i = past_taken_arms(graph, i);
      if (!vacuous_eval(graph, graph.nodes[i], reached)) return i;
      i = graph.nodes[i].children[0];
    }
  });
}

// The graph without the loops of one pass (one_pass_loops), each θ of one
// read as its first value and each eval as what it evaluates; run on a
// graph without one-child nodes. Returns whether it dropped a loop.
bool drop_one_pass_loops(PegGraph& graph) {
  if (std::none_of(graph.nodes.begin(), graph.nodes.end(),
                   [&](const PegNode& node) { return first_pass_eval(graph, node); }))
    return false;
  std::vector<std::uint64_t> reached;
  to_fixpoint(graph, reached, [&](const PegNode& node, const std::vector<std::uint64_t>& r) {
    std::uint64_t v = loop_bit(node);
    for (std::uint32_t c : node.children) v |= r[c];
    return v;
  });
  compute_variance(graph);
  const std::vector<bool> one_pass = one_pass_loops(graph, reached);
  if (std::none_of(one_pass.begin(), one_pass.end(), [](bool b) { return b; })) return false;
  rebuild(graph, [&](std::uint32_t i) {
    while (one_pass[i]) i = graph.nodes[i].children[0];
    return i;
  });
  return true;
}

// Folds each node whose children are constants (peg_fold.h) into a
// constant, in place; a condition so folded is noted in graph.decided.
void fold_constants(PegGraph& graph) {
  std::vector<std::optional<eqsat::Label>> folded(graph.nodes.size());
  std::vector<std::uint64_t> constant;
  std::vector<eqsat::Label> children;
  to_fixpoint(graph, constant, [&](const PegNode& node, const std::vector<std::uint64_t>& c) {
    if (node.kind() == Kind::Const) return std::uint64_t{1};
    const auto i = static_cast<std::size_t>(&node - graph.nodes.data());
    children.clear();
    for (std::uint32_t child : node.children) {
      if (!c[child]) return std::uint64_t{0};
      children.push_back(folded[child] ? *folded[child] : graph.nodes[child].label);
    }
    folded[i] = fold(node.label, children);
    return std::uint64_t{folded[i].has_value()};
  });
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    PegNode& node = graph.nodes[i];
    if (!folded[i] || node.kind() == Kind::Const) continue;
    node.label = *folded[i];
    node.children.clear();
    if (node.type() == PegType(ir::Type::bool_()))
      graph.decided.emplace_back(node.eclass, node.label.payload != 0);
  }
}

// What a dropped loop's θs leave where they were: their first values. The
// nodes on constants fold; a flag φ(c, true, false) is c and φ(c, false,
// true) is ¬c (translation's flags of a `break` or `return`, the loop's
// only pass deciding them), and a φ on ¬c is one on c with its arms
// swapped, so the φs of one `if` branch on one condition, as
// prefer_positive_conditions makes them after saturation.
void simplify_first_values(PegGraph& graph) {
  fold_constants(graph);
  const auto is_bool = [&](std::uint32_t i, std::optional<bool> value) {
    const PegNode& n = graph.nodes[i];
    if (n.type() != PegType(ir::Type::bool_())) return false;
    return !value || (n.kind() == Kind::Const && (n.label.payload != 0) == *value);
  };
  std::vector<bool> is_condition(graph.nodes.size(), false);
  for (PegNode& node : graph.nodes) {
    if (node.kind() != Kind::Phi || !is_bool(node.children[1], std::nullopt)) continue;
    if (is_bool(node.children[1], true) && is_bool(node.children[2], false)) {
      is_condition[static_cast<std::size_t>(&node - graph.nodes.data())] = true;
    } else if (is_bool(node.children[1], false) && is_bool(node.children[2], true)) {
      node.label = label(Kind::Not, PegType(ir::Type::bool_()));
      node.children = {node.children[0]};
    }
  }
  const auto resolve = [&](std::uint32_t i) {
    for (i = past_taken_arms(graph, i); is_condition[i]; i = past_taken_arms(graph, i))
      i = graph.nodes[i].children[0];
    return i;
  };
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    PegNode& node = graph.nodes[i];
    if (node.kind() != Kind::Phi || is_condition[i]) continue;  // (a condition reads as c)
    const PegNode& cond = graph.nodes[resolve(node.children[0])];
    if (cond.kind() != Kind::Not) continue;
    node.children = {resolve(cond.children[0]), node.children[2], node.children[1]};
  }
  rebuild(graph, resolve);
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
  drop_one_child_nodes(graph);
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

std::optional<PegGraph> simplified(const PegGraph& graph) {
  const DecidedFlags flags = decided_flags(graph);
  if (flags.empty() && std::none_of(graph.nodes.begin(), graph.nodes.end(),
                                    [&](const PegNode& n) { return first_pass_eval(graph, n); }))
    return std::nullopt;
  PegGraph out = graph;
  fold_flags(out, flags);
  drop_one_child_nodes(out);
  bool changed = !flags.empty();
  // Dropping a loop leaves its θs' first values where the θs were: what
  // they computed simplifies, and a φ or a loop around may then be one to
  // drop too. Each round drops at least one θ, so this ends.
  while (drop_one_pass_loops(out)) {
    changed = true;
    simplify_first_values(out);
    fold_flags(out, decided_flags(out));
    drop_one_child_nodes(out);
  }
  if (!changed) return std::nullopt;
  compute_variance(out);
  return out;
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
