// Loop invariance per loop index, for PEGs (Tate's invariant_ℓ, Def. 6.2).
//
// The client says which e-nodes are θ_ℓ, eval_ℓ and pass_ℓ (LoopRole). A class
// varies in loop ℓ unless one of its e-nodes is invariant there:
//   θ_ℓ           varies in ℓ, and wherever a child varies;
//   eval_ℓ(s, i)  varies in ℓ only if its index child i does; elsewhere where
//                 any child varies;
//   pass_ℓ(c)     never varies in ℓ; elsewhere where c varies;
//   anything else varies where any child varies.
// invariant_ℓ is the largest such predicate, so on θ cycles it is
// optimistic; but an e-class may also hold e-nodes that refer to the class
// itself without a θ (x = 1*x once a rule has run), and optimism there would
// make anything invariant. So it is recomputed at every rebuild() by a
// pessimistic fixpoint (from "varies everywhere") in which a θ's second child
// counts with an assumed variance, raised from "invariant" until stable
// (read from the e-graph's matching index; a round after which no θ's value
// would grow is stable without another). The first round, which assumes
// "invariant" for every θ, starts from the last rebuild's first round and
// revisits only the classes that got an e-node or a merge and their parents:
// the e-graph only gains e-nodes (constant folding's pruning keeps a leaf,
// which is invariant), so that result is above the new fixpoint and the
// classes left alone are at theirs; the fixpoint reached from above is the
// same, for a fraction of the visits. Between rebuilds a
// class keeps its last value (a merge intersects the two), and a class created
// since reads as varying in every loop; both are safe. changed() lists the
// classes whose value differs from the last rebuild's (for the runner's
// incremental search).
//
// Optimism through θ is an induction on the θ's own iteration index; an
// e-graph can hold cycles it does not cover (through an exit of the θ's own
// loop). After the fixpoint, every rebuild checks that what it concluded is
// well founded, withdraws the optimism of θs on cycles that are not and
// settles again (loop_invariance_founded.cpp).
//
// Loops are numbered 1..64 (ℓ = nesting depth in a PEG).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/eqsat/analysis.h"
#include "runtime/eqsat/egraph.h"

namespace augur::eqsat {

struct LoopRole {
  enum class Kind : std::uint8_t { Plain, Theta, Eval, Pass };
  Kind kind = Kind::Plain;
  unsigned loop = 0;              // ℓ, 1..64, for Theta, Eval, Pass
  std::uint32_t index_child = 1;  // Eval: which child is the iteration index
};

class LoopInvariance : public Analysis {
 public:
  static constexpr unsigned kMaxLoop = 64;
  using Classify = std::function<LoopRole(const EGraph&, const ENodeView&)>;

  explicit LoopInvariance(Classify classify) : classify_(std::move(classify)) {}

  std::string_view name() const override { return "loop-invariance"; }
  // The classes whose invariance the last rebuild changed.
  std::span<const Id> changed() const override { return changed_; }

  // Bit ℓ-1 is set when the class may vary in loop ℓ.
  std::uint64_t variant_loops(Id cls) const { return variant_[index(graph().find(cls))]; }
  bool invariant(Id cls, unsigned loop) const;
  // The deepest loop the class varies in; 0 if it varies in none.
  unsigned depth(Id cls) const;
  // The same for one e-node, from its children's classes (extraction costs).
  std::uint64_t node_variant_loops(const ENodeView& node) const;
  unsigned node_depth(const ENodeView& node) const;
  // How many (θ e-node, loop) pairs the last rebuild took without optimism,
  // because a cycle through the θ's next value was not well founded.
  std::size_t withdrawn_count() const { return withdrawn_count_; }

 private:
  void on_add(const EGraph& g, Id id, const ENodeView* node) override;
  MergeResult on_merge(Id root, Id absorbed) override;
  bool on_update(const EGraph&, Id, const ENodeView&) override { return false; }
  void on_rebuilt(const EGraph& g) override;

  std::uint64_t loop_bit(unsigned loop) const;
  // classify_(node), from the copy on_add kept when the node is the one it saw.
  const LoopRole* known_role(Id node, Label label) const;
  LoopRole role(const ENodeView& node) const;
  LoopRole role(const EGraph& g, const EGraph::IndexedNode& node) const;
  // node_variant_loops, reading a θ's second child from `theta_next`.
  std::uint64_t node_variant(const ENodeView& node,
                             std::span<const std::uint64_t> theta_next) const;
  // The rounds of the fixpoint, the first from the last rebuild's first round
  // when `incremental`.
  void settle(const EGraph& g, bool incremental);
  // Checks that every invariance settle() concluded is well founded; where
  // one is not, withdraws the optimism of the θs on its cycle and returns
  // true (settle again). Defined in loop_invariance_founded.cpp.
  bool withdraw_unfounded_optimism(const EGraph& g);

  Classify classify_;
  std::vector<std::uint64_t> variant_;
  // By e-node id: its label and role when on_add saw it (classify_ is a call
  // through std::function per e-node visit otherwise: on_rebuilt visits
  // every e-node of the graph at every rebuild, and more than once).
  struct KnownRole {
    bool known = false;
    Label label;
    LoopRole role;
  };
  std::vector<KnownRole> roles_;
  // on_rebuilt's work lists, kept between rebuilds so that their memory is
  // reused: the variance assumed for θs' second children (by class index),
  // every θ e-node's children's classes, the fixpoint's work list.
  struct Theta {
    std::uint32_t start = 0, next = 0;
    std::uint64_t bit = 0;
    std::uint64_t withdrawn = 0;  // loops whose next value counts without optimism
  };
  struct Rounds {
    std::vector<std::uint64_t> assumed;
    std::vector<Theta> thetas;
    std::vector<std::uint32_t> work;
    std::vector<bool> queued;
  };
  Rounds rounds_;
  // By class index, the last rebuild's first round (merges intersect it as
  // they do variant_), and the classes given an e-node or merged into since.
  std::vector<std::uint64_t> first_round_;
  std::vector<Id> touched_;
  bool have_first_round_ = false;
  // Every θ e-node added (one a rebuild found congruent to another reads
  // the same classes), so that a rebuild does not look through every class.
  std::vector<Id> theta_nodes_;
  // By class index, what the last rebuild gave, to list what changed.
  struct Published {
    bool known = false;
    std::uint64_t variant = 0;
  };
  std::vector<Published> published_;
  std::vector<Id> changed_;
  // By e-node id: the loops in which this θ's next value counts as it is,
  // without optimism (this rebuild's withdrawals).
  std::vector<std::uint64_t> withdrawn_;
  std::size_t withdrawn_count_ = 0;
  // The loops that have θ e-nodes, exit e-nodes, any (ever added).
  std::uint64_t theta_loops_ = 0, exit_loops_ = 0;
  // withdraw_unfounded_optimism's work lists, kept for their memory.
  struct Founding {
    // A graph of classes (CSR), each edge marked by what it does to the
    // iteration indices: a θ_ℓ's next value lowers index ℓ, an exit of ℓ
    // reads any, other children read the same.
    enum class Step : std::uint8_t { Same, Theta, Exit };
    struct Edge {
      std::uint32_t to;
      Step step;
      std::uint8_t loop;
    };
    // What each vertex stands for (a class index, or a suspect's), a class
    // index's vertex (kNone outside candidate_graph), each vertex's first
    // edge.
    std::vector<std::uint32_t> vertex_class, vertex_of, first_edge;
    std::vector<Edge> edges;
    // Per vertex: the e-node whose children its edges are (proof graphs).
    std::vector<Id> edge_node;
    // The parts whose cycles are not well founded, and Tarjan's algorithm's
    // state (iterative, one part at a time).
    struct Part {
      std::vector<std::uint32_t> vertices;
      std::uint64_t dropped = 0;  // loops whose θ edges are left out
    };
    std::vector<Part> parts, bad_parts;
    std::vector<std::uint32_t> all;
    std::vector<std::uint32_t> part, order, low, stack;
    std::vector<bool> on_stack;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> calls;
    // The classes of the loops' candidate graphs' bad parts (suspects), and
    // by class index their place in that list (kNone for others, between
    // calls too).
    // By suspect: the loops it is proven invariant in; per loop in use
    // (slot), its proof.
    std::vector<std::uint32_t> suspects, suspect_of;
    std::vector<std::uint64_t> proven;
    std::vector<Id> proof;
    // By suspect, its vertex in the proof graph of one loop (kNone if none).
    std::vector<std::uint32_t> vertex_of_suspect;
    // The class indices the next candidate graph may take as vertices.
    std::vector<std::uint32_t> within;
    std::vector<std::uint32_t> work;
    std::vector<bool> queued;
  };
  // Builds in founding_ the graph of the e-nodes that could prove their
  // class invariant in the loop `bit` (for 0, every e-node that does not
  // read its own class but at a θ's next value), over the classes of
  // founding_.within invariant there.
  void candidate_graph(const EGraph& g, std::uint64_t bit);
  // Fills founding_.bad_parts from the graph in founding_ (vertex_class.size()
  // vertices).
  void find_bad_parts();
  // How child `child` of an e-node in `role` moves the iteration indices,
  // for invariance in the loop `bit`; none where invariance there does not
  // read it (an exit's operand, in the exit's own loop).
  std::optional<Founding::Step> step_to_child(const LoopRole& role, std::size_t child,
                                              std::uint64_t bit) const;
  Founding founding_;
};

}  // namespace augur::eqsat
