// The e-graph: e-nodes hash-consed into e-classes kept in a union-find, with
// egg's deferred congruence closure ("rebuilding").
//
// Every added e-node gets an id; an e-class is named by the id at the root of
// its union-find tree. Cycles are allowed: add_placeholder() makes an empty
// class that e-nodes can use as a child before it is merged with the class it
// stands for (this is how a PEG's θ refers to itself).
//
// Invariants after rebuild() (the e-graph is then clean()):
//  - congruence: two e-nodes with equal labels and equal canonical children
//    (in either order for a commutative operator: EGraphOptions) are in one
//    class;
//  - every live e-node's children are canonical ids, and the hash-consing
//    table maps each live e-node's content to it and to nothing else;
//  - each class's e-nodes are sorted by label, then id, without duplicates;
//    classes() lists the canonical ids in ascending order, classes_with(op)
//    the classes holding an e-node with that operator, and the matching index
//    (indexed()) holds every class's e-nodes by value;
//  - every analysis's data is the join over the class's e-nodes.
// add() and merge() break these until the next rebuild(); in between, find()
// is always right, lookup() may miss e-nodes that rebuilding would merge, and
// the per-class lists and the index may be stale. Queries (matching,
// extraction) need a clean e-graph. After an exception (an analysis found a
// contradiction) the e-graph must be discarded.
//
// Const member functions never mutate, so any number of threads may query a
// clean e-graph at once (the search phase does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/eqsat/analysis.h"
#include "runtime/eqsat/id.h"
#include "runtime/eqsat/id_list.h"
#include "runtime/eqsat/node_table.h"

namespace augur::eqsat {

class Explain;

// Why two classes were merged, for explanations: an interned name
// (EGraph::reason). Reason{} is "given": a merge the client asserts.
struct Reason {
  std::uint32_t index = 0;
  friend bool operator==(Reason, Reason) = default;
};
inline constexpr Reason kGivenReason{0};
inline constexpr Reason kCongruenceReason{1};

struct EGraphOptions {
  // Record why classes merge, so that explanations() can later justify an
  // equality. It costs memory per e-node and must be chosen up front.
  bool explanations = false;
  // Operators whose two operands may be swapped (a+b = b+a). A binary
  // e-node of such an operator and its mirror are one e-node: hash-consing
  // keys it by its unordered children, lookup() finds it in either order,
  // congruence holds up to order and e-matching binds both orders. Stored
  // children keep the order they were added in. Not with explanations (a
  // congruence step pairs children by position): jit::error.
  bool (*commutative)(Op) = nullptr;
};

class EGraph {
 public:
  explicit EGraph(EGraphOptions options = {});
  EGraph(const EGraph&) = delete;
  EGraph& operator=(const EGraph&) = delete;
  ~EGraph();

  // Creates an analysis owned by this e-graph; only before the first e-node.
  template <class A, class... Args>
  A& add_analysis(Args&&... args);

  // The analysis of type A; throws jit::error if there is none.
  template <class A>
  const A& analysis() const;
  // The i-th analysis added (no type check: for clients that know the
  // order, on paths where analysis<A>()'s dynamic_cast would show).
  const Analysis& analysis_at(std::size_t i) const { return *analyses_[i]; }

  // ------------------------------------------------------------ building

  // Adds the e-node (or finds an equal one) and returns its canonical class.
  Id add(Label label, std::span<const Id> children = {});
  Id add(Label label, std::initializer_list<Id> children) {
    return add(label, std::span<const Id>(children.begin(), children.size()));
  }
  // Like add(), but returns the id of the exact e-node: with explanations on,
  // an e-node whose children are other (equal) ids is a distinct id, so a
  // proof can name the term as it was built. Without explanations it equals
  // an id of the class add() returns.
  Id add_uncanonical(Label label, std::span<const Id> children);
  // An empty class, to be merged with a real one: lets e-nodes refer to a
  // class before it exists (cycles). Until merged it matches nothing and
  // cannot be extracted.
  Id add_placeholder();

  // Asserts that a and b are equal. Returns whether they were in different
  // classes. `why` is recorded when explanations are on.
  bool merge(Id a, Id b, Reason why = {});
  // Interns a reason name (a rule's name, "constant-fold", ...).
  Reason reason(std::string_view name);
  std::string_view reason_name(Reason r) const { return reason_names_[r.index]; }

  // Restores the invariants above; returns the number of merges congruence
  // caused.
  std::size_t rebuild();
  bool clean() const { return clean_; }
  // What changed between the rebuild before the last one and the last one
  // (the runner's incremental search rests on these):
  //  - is_new(node): the e-node was added, moved to another class (its class
  //    was merged into another) or got other children (one of them was);
  //    an e-node that is not new is in the class it was in, over the same
  //    child classes;
  //  - data_changed(): the classes (canonical, ascending) whose analysis
  //    data changed (a merge, a child's data, Analysis::changed);
  //  - changed(): those, and the classes that got an e-node (a new class, a
  //    merge) or lost one to prune(). Every new e-node is in a changed class
  //    or has a changed child.
  bool is_new(Id node) const { return node_epoch_[index(node)] == epoch_; }
  // This e-graph among all of the process's (never reused), and how many
  // times it was rebuilt: what a rule memoizes between the matches of one
  // apply phase is valid for the same pair only.
  std::uint64_t serial() const { return serial_; }
  std::uint32_t rebuilds() const { return epoch_; }
  std::span<const Id> data_changed() const { return data_changed_; }
  std::span<const Id> changed() const { return changed_; }

  // Removes from `cls`'s list the e-nodes `keep` rejects: they stay equal to
  // the class (and in the hash-consing table) but no longer match or get
  // extracted. Constant folding prunes a constant class to its leaves.
  template <class Keep>
  void prune(Id cls, Keep&& keep);

  // ------------------------------------------------------------ queries

  Id find(Id id) const {
    std::uint32_t i = index(id);
    while (index(parent_[i]) != i) i = index(parent_[i]);
    return make_id(i);
  }
  bool equivalent(Id a, Id b) const { return find(a) == find(b); }

  // The class holding an e-node equal to this one, without adding it.
  std::optional<Id> lookup(Label label, std::span<const Id> children = {}) const;

  ENodeView node(Id node) const {
    const NodeRecord& r = nodes_[index(node)];
    return {node, r.label, std::span<const Id>(child_pool_.data() + r.first, r.arity)};
  }
  // The e-nodes of a class (any id of it); sorted by label and without
  // duplicates when clean.
  std::span<const Id> nodes_of(Id cls) const { return classes_[index(find(cls))].nodes; }
  // The matching index rebuild() makes: each class's e-nodes stored by value,
  // sorted by label, in one contiguous block. Clean e-graph only; `root` must
  // be canonical.
  struct IndexedNode {
    Label label;
    Id id;
    std::uint32_t first_child;  // the next entry's first_child ends this one's children
  };
  // All of the class's indexed e-nodes; those with operator `op`, or with
  // exactly `label`.
  std::span<const IndexedNode> indexed(Id root) const;
  std::span<const IndexedNode> indexed(Id root, Op op) const;
  std::span<const IndexedNode> indexed(Id root, Label label) const;
  // The children of an entry of a span indexed() returned.
  std::span<const Id> children_of(const IndexedNode& n) const {
    return {index_children_.data() + n.first_child, (&n + 1)->first_child - n.first_child};
  }
  // The e-nodes that have the class as a child (may hold duplicates).
  std::span<const Id> parents_of(Id cls) const { return classes_[index(find(cls))].parents; }

  std::span<const Id> classes() const { return roots_; }
  std::span<const Id> classes_with(Op op) const {
    return op < by_op_.size() ? std::span<const Id>(by_op_[op]) : std::span<const Id>();
  }

  // Live, hash-consed e-nodes (egg's total_size).
  std::size_t node_count() const { return memo_.size(); }
  // Whether e-nodes of `op` are one with their mirrors (EGraphOptions).
  bool commutative(Op op) const {
    if (op < commutes_.size() && commutes_[op] != kUnknown) return commutes_[op] != 0;
    return commutative_ && commutative_(op);
  }
  std::size_t class_count() const { return class_count_; }
  // Ids handed out so far (every e-node ever added, placeholders included).
  std::size_t id_count() const { return nodes_.size(); }
  // Bytes held by the e-graph's own tables and explanations (not by its
  // analyses).
  std::size_t memory_bytes() const;

  // The recorded merges, or null when explanations are off.
  const Explain* explanations() const { return explain_.get(); }

 private:
  struct NodeRecord {
    Label label;
    std::uint32_t first = 0;  // into child_pool_
    std::uint32_t arity : 24 = 0;
    std::uint32_t dead : 1 = 0;  // not hash-consed: a congruent duplicate, a shadow, a placeholder
    std::uint32_t pruned : 1 = 0;  // removed from its class's list by prune()
  };
  struct EClass {
    IdList nodes;
    IdList parents;
  };

  [[noreturn]] static void throw_analysis_too_late(std::string_view name);
  [[noreturn]] static void throw_no_analysis();
  Id find_mut(Id id);
  Id new_id(Label label, std::span<const Id> children, bool dead);
  // Hash-consing up to the order of a commutative e-node's operands.
  std::uint64_t memo_hash(Label label, std::span<const Id> children) const;
  std::optional<Id> memo_find(Label label, std::span<const Id> children, std::uint64_t hash) const;
  void canonicalize(Id node, std::size_t& merges);
  void normalize(Id cls);
  void index_classes();

  std::vector<NodeRecord> nodes_;
  std::vector<Id> child_pool_;
  std::vector<Id> parent_;
  std::vector<EClass> classes_;
  NodeTable memo_;
  bool (*commutative_)(Op) = nullptr;
  // By operator, commutative_'s answer once an e-node of it was added (e-
  // matching asks at every binary e-node it binds; kUnknown before).
  static constexpr std::int8_t kUnknown = -1;
  std::vector<std::int8_t> commutes_;
  std::size_t class_count_ = 0;

  std::vector<Id> pending_;           // e-nodes whose children may have merged
  std::vector<Id> analysis_pending_;  // e-nodes whose children's data changed
  std::vector<Id> touched_;           // classes whose lists need normalizing
  std::vector<Id> changing_;          // classes added, merged into or pruned since the rebuild
  std::vector<Id> data_changing_;     // classes whose analysis data changed since the rebuild
  std::vector<Id> changed_, data_changed_;  // changed(), data_changed()
  std::vector<std::uint32_t> node_epoch_;   // by e-node: the rebuild after which it is new
  std::uint32_t epoch_ = 0;                 // rebuilds so far
  std::uint64_t serial_;
  bool clean_ = true;

  // The matching index, made by rebuild(): class c's e-nodes are
  // index_[index_begin_[c] .. index_begin_[c + 1]), with a sentinel entry at
  // the end; their children are in index_children_, in the same order.
  std::vector<Id> roots_;
  std::vector<std::vector<Id>> by_op_;
  std::vector<std::uint32_t> index_begin_;
  std::vector<IndexedNode> index_;
  std::vector<Id> index_children_;

  std::vector<std::unique_ptr<Analysis>> analyses_;
  std::unique_ptr<Explain> explain_;
  std::vector<std::string> reason_names_;
  std::unordered_map<std::string, std::uint32_t> reason_index_;  // name -> index
};

template <class A, class... Args>
A& EGraph::add_analysis(Args&&... args) {
  auto owned = std::make_unique<A>(std::forward<Args>(args)...);
  A& a = *owned;
  static_cast<Analysis&>(a).graph_ = this;
  if (!nodes_.empty()) throw_analysis_too_late(a.name());
  analyses_.push_back(std::move(owned));
  return a;
}

template <class A>
const A& EGraph::analysis() const {
  // Guards and costs ask at every match and e-node: an analysis of exactly
  // type A is found by its type_info, without a dynamic_cast.
  for (const auto& a : analyses_)
    if (typeid(*a) == typeid(A)) return static_cast<const A&>(*a);
  for (const auto& a : analyses_)
    if (const A* found = dynamic_cast<const A*>(a.get())) return *found;
  throw_no_analysis();
}

template <class Keep>
void EGraph::prune(Id cls, Keep&& keep) {
  changing_.push_back(find_mut(cls));
  IdList& list = classes_[index(find_mut(cls))].nodes;
  list.erase_if([&](Id n) {
    if (nodes_[index(n)].dead || keep(node(n))) return false;
    nodes_[index(n)].pruned = 1;
    return true;
  });
  clean_ = false;
}

template <class Data>
requires std::default_initializable<Data> && std::equality_comparable<Data>
const Data& ClassAnalysis<Data>::operator[](Id id) const {
  return data_[index(graph().find(id))];
}

}  // namespace augur::eqsat
