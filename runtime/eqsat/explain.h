// Explanations: an optional record of why classes merged, from which a proof
// that two terms are equal can be printed (for translation validation).
//
// This is egg's proof forest. Every merge adds an edge between the two exact
// e-nodes it was asked about (a rule's instantiated left and right sides, or
// two congruent e-nodes), labelled with its Reason; the edges form a forest
// whose trees are the e-classes. A proof is the path between two e-nodes; a
// congruence edge is justified by proofs for each pair of children.
//
// Each e-node keeps the children it was built with, so the terms in a proof
// are exactly the terms rules matched and built. It is recorded only when
// EGraphOptions::explanations is set; with it off the e-graph pays one null
// check per add and merge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/id.h"
#include "runtime/eqsat/language.h"
#include "runtime/eqsat/node_table.h"
#include "runtime/eqsat/term.h"

namespace augur::eqsat {

struct Proof {
  struct Step {
    Id from;
    Id to;
    Reason why;
    // The merge was recorded as (to, from): a rule was applied right to left.
    bool reversed = false;
    // Congruence steps: a proof per child position (empty where equal ids).
    std::vector<std::shared_ptr<const Proof>> children;
  };
  Id from;
  Id to;
  std::vector<Step> steps;  // steps[i].to == steps[i+1].from

  // Steps in this proof and in all nested congruence proofs.
  std::size_t size() const;
};

class Explain {
 public:
  // Recording; the EGraph calls these.
  void add_node(Id id, Label label, std::span<const Id> original_children);
  void add_placeholder(Id id);
  std::optional<Id> find_exact(Label label, std::span<const Id> children) const;
  void record_merge(Id a, Id b, Reason why);

  // What an id was built as.
  Label label(Id id) const { return labels_[index(id)]; }
  std::span<const Id> original_children(Id id) const;
  // The term `id` was built as; throws jit::error if it reaches a placeholder.
  Term term(Id id) const;
  // The same as text; a placeholder prints as #id.
  std::string term_text(Id id, const Language& language) const;

  // A proof that the e-nodes a and b are equal; throws jit::error if they
  // are not in one class.
  Proof prove(Id a, Id b) const;

  std::size_t memory_bytes() const;

 private:
  struct Edge {
    Id parent;
    Reason why;
    bool forward = true;  // recorded as merge(this node, parent)
  };
  void record(Id id, Label label, std::span<const Id> original_children, bool placeholder);
  std::vector<Id> path_to_root(Id id) const;
  void reroot(Id id);
  using ProofCache = std::map<std::pair<Id, Id>, std::shared_ptr<const Proof>>;
  std::shared_ptr<const Proof> prove_cached(Id a, Id b, ProofCache& cache) const;

  std::vector<Label> labels_;
  std::vector<std::uint32_t> first_child_;
  std::vector<std::uint32_t> arity_;
  std::vector<Id> child_pool_;
  std::vector<bool> placeholder_;
  std::vector<Edge> edges_;
  NodeTable exact_;
};

// The proof as text: one equality per line, each with its reason; the child
// proofs of a congruence step are indented under it.
std::string print_proof(const Proof& proof, const EGraph& egraph, const Language& language);

}  // namespace augur::eqsat
