#include "runtime/eqsat/explain.h"

#include <algorithm>

#include "jit/error.h"

namespace augur::eqsat {

std::size_t Proof::size() const {
  std::size_t n = steps.size();
  for (const Step& s : steps)
    for (const auto& c : s.children) n += c->size();
  return n;
}

void Explain::record(Id id, Label label, std::span<const Id> original_children, bool placeholder) {
  const std::size_t i = index(id);
  labels_.resize(i + 1);
  first_child_.resize(i + 1);
  arity_.resize(i + 1);
  placeholder_.resize(i + 1);
  edges_.resize(i + 1);
  labels_[i] = label;
  first_child_[i] = static_cast<std::uint32_t>(child_pool_.size());
  arity_[i] = static_cast<std::uint32_t>(original_children.size());
  child_pool_.insert(child_pool_.end(), original_children.begin(), original_children.end());
  placeholder_[i] = placeholder;
  edges_[i] = Edge{id, kGivenReason, true};
}

void Explain::add_node(Id id, Label label, std::span<const Id> original_children) {
  record(id, label, original_children, false);
  exact_.insert(hash_node(label, original_children), id);
}

void Explain::add_placeholder(Id id) {
  record(id, Label{}, {}, true);
}

std::span<const Id> Explain::original_children(Id id) const {
  return {child_pool_.data() + first_child_[index(id)], arity_[index(id)]};
}

std::optional<Id> Explain::find_exact(Label label, std::span<const Id> children) const {
  return exact_.find(hash_node(label, children), [&](Id candidate) {
    const std::span<const Id> c = original_children(candidate);
    return labels_[index(candidate)] == label &&
           std::equal(c.begin(), c.end(), children.begin(), children.end());
  });
}

void Explain::reroot(Id id) {
  // Reverse every edge on the path from `id` to its root.
  Id child = id;
  Edge carried = edges_[index(id)];
  edges_[index(id)].parent = id;
  while (carried.parent != child) {
    const Id p = carried.parent;
    const Edge next = edges_[index(p)];
    edges_[index(p)] = Edge{child, carried.why, !carried.forward};
    child = p;
    carried = next;
  }
}

void Explain::record_merge(Id a, Id b, Reason why) {
  reroot(a);
  edges_[index(a)] = Edge{b, why, true};
}

std::vector<Id> Explain::path_to_root(Id id) const {
  std::vector<Id> path{id};
  while (edges_[index(path.back())].parent != path.back())
    path.push_back(edges_[index(path.back())].parent);
  return path;
}

Proof Explain::prove(Id a, Id b) const {
  ProofCache cache;
  return *prove_cached(a, b, cache);
}

std::shared_ptr<const Proof> Explain::prove_cached(Id a, Id b, ProofCache& cache) const {
  if (auto it = cache.find({a, b}); it != cache.end()) return it->second;
  const std::vector<Id> up = path_to_root(a);
  const std::vector<Id> down = path_to_root(b);
  if (up.back() != down.back())
    throw jit::error("explain: e-nodes " + std::to_string(index(a)) + " and " +
                     std::to_string(index(b)) + " are not equal");
  // Drop the common part above the lowest common ancestor.
  std::size_t i = up.size() - 1;
  std::size_t j = down.size() - 1;
  while (i > 0 && j > 0 && up[i - 1] == down[j - 1]) --i, --j;

  auto proof = std::make_shared<Proof>();
  proof->from = a;
  proof->to = b;
  const auto add_step = [&](Id from, Id to, const Edge& edge, bool reversed) {
    Proof::Step step{from, to, edge.why, reversed, {}};
    if (edge.why == kCongruenceReason) {
      const std::span<const Id> x = original_children(from);
      const std::span<const Id> y = original_children(to);
      for (std::size_t k = 0; k < x.size(); ++k) {
        step.children.push_back(x[k] == y[k] ? std::make_shared<const Proof>(Proof{x[k], y[k], {}})
                                             : prove_cached(x[k], y[k], cache));
      }
    }
    proof->steps.push_back(std::move(step));
  };
  for (std::size_t k = 0; k < i; ++k) {
    const Edge& e = edges_[index(up[k])];
    add_step(up[k], up[k + 1], e, !e.forward);
  }
  for (std::size_t k = j; k-- > 0;) {
    const Edge& e = edges_[index(down[k])];
    add_step(down[k + 1], down[k], e, e.forward);
  }
  cache.emplace(std::pair{a, b}, proof);
  return proof;
}

Term Explain::term(Id id) const {
  // Original children always have smaller ids, so ascending id order puts
  // children before parents.
  std::vector<Id> reachable{id};
  std::vector<bool> seen(labels_.size(), false);
  seen[index(id)] = true;
  for (std::size_t k = 0; k < reachable.size(); ++k) {
    if (placeholder_[index(reachable[k])])
      throw jit::error("explain: the term of e-node " + std::to_string(index(id)) +
                       " contains a placeholder");
    for (Id c : original_children(reachable[k])) {
      if (!seen[index(c)]) {
        seen[index(c)] = true;
        reachable.push_back(c);
      }
    }
  }
  std::sort(reachable.begin(), reachable.end());
  Term t;
  std::vector<std::uint32_t> position(labels_.size());
  for (Id n : reachable) {
    Term::Node node{labels_[index(n)], {}};
    for (Id c : original_children(n)) node.children.push_back(position[index(c)]);
    position[index(n)] = static_cast<std::uint32_t>(t.nodes.size());
    t.nodes.push_back(std::move(node));
  }
  t.roots.push_back(position[index(id)]);
  return t;
}

std::string Explain::term_text(Id id, const Language& language) const {
  if (placeholder_[index(id)]) return "#" + std::to_string(index(id));
  const std::span<const Id> children = original_children(id);
  if (children.empty()) return language.print_label(labels_[index(id)]);
  std::string out = "(" + language.print_label(labels_[index(id)]);
  for (Id c : children) out += " " + term_text(c, language);
  return out + ")";
}

std::size_t Explain::memory_bytes() const {
  return labels_.capacity() * sizeof(Label) + (first_child_.capacity() + arity_.capacity()) * 4 +
         child_pool_.capacity() * sizeof(Id) + placeholder_.capacity() / 8 +
         edges_.capacity() * sizeof(Edge) + exact_.memory_bytes();
}

namespace {
void print_proof_into(const Proof& proof, const Explain& explain, const EGraph& egraph,
                      const Language& language, const std::string& indent, std::string& out) {
  out += indent + explain.term_text(proof.from, language) + "\n";
  for (const Proof::Step& step : proof.steps) {
    out += indent + "= " + explain.term_text(step.to, language) + "   [" +
           std::string(egraph.reason_name(step.why)) +
           (step.reversed && step.why != kCongruenceReason ? ", right to left" : "") + "]\n";
    for (const auto& child : step.children)
      if (!child->steps.empty())
        print_proof_into(*child, explain, egraph, language, indent + "    ", out);
  }
}
}  // namespace

std::string print_proof(const Proof& proof, const EGraph& egraph, const Language& language) {
  const Explain* explain = egraph.explanations();
  if (!explain) throw jit::error("print_proof: the e-graph records no explanations");
  std::string out;
  print_proof_into(proof, *explain, egraph, language, "", out);
  return out;
}

}  // namespace augur::eqsat
