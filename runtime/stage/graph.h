// The control-flow graph that the runs of one exploration build: one node per
// tagged first-stage event (a statement, a branch, the end), edges in the
// order the runs met them. Nodes are found again by tag and content: a run
// that reaches a known node links to it (a loop back-edge, or code that an
// earlier run already recorded) instead of recording it twice.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ir/ir.h"
#include "runtime/stage/huge_pages.h"
#include "runtime/stage/node_index.h"
#include "runtime/stage/tag.h"

namespace augur::stage {

inline constexpr std::uint32_t kNoNode = ~std::uint32_t{0};

enum class EventKind : std::uint8_t { Decl, Assign, Store, Eval, Branch, Return, End, Barrier };

// What the first stage did at one point. Variables are graph variables
// (indices into Graph::vars), written into the IR as VarIds.
struct Event {
  Tag tag;
  EventKind kind = EventKind::Eval;
  ir::VarId var;      // Decl, Assign
  ir::ExprPtr expr;   // Decl init (may be null), Assign/Store value, Eval, Branch condition,
                      // Return value (null for End)
  ir::ExprPtr ptr;    // Store
  ir::ExprPtr index;  // Store
};

inline bool is_terminal(EventKind k) {
  return k == EventKind::Return || k == EventKind::End;
}

// Same tag, same statement.
bool same_event(const Event& a, const Event& b);

struct Node {
  Event event;
  // Statements: succ[0]. Branches: succ[1] when the condition holds, succ[0] when not.
  std::array<std::uint32_t, 2> succ{kNoNode, kNoNode};
};

struct GraphVar {
  std::string name;  // the user's name, or empty
  ir::Type type;
  bool param = false;
  std::uint32_t shared_count = 0;  // > 0: a kernel's block-shared array of this many elements
};

// Recorded events by tag and content: 32 bits of a hash of the event and the
// node in a NodeIndex, a match confirmed by same_event(). The hash covers the
// tag, the kind, the variable and the first nodes of each expression (a
// bounded walk, so an event costs the same however tall its expressions are;
// equal events hash equal). So the statements one call site makes with
// different contents (a plain loop around dyn code: staging rule 1) are found
// in constant time, not by comparing each with every earlier one of its tag.
class Graph;
class EventIndex {
 public:
  static std::uint32_t hash(const Event& event);
  // The indexed node whose event equals `event` (whose hash is `hash`), or kNoNode.
  std::uint32_t find(const Event& event, std::uint32_t hash, const Graph& graph) const;
  // Indexes `node` under `hash` (its event's; no indexed node has that event yet).
  void insert(std::uint32_t hash, std::uint32_t node) { index_.insert(hash, hash, node); }
  void clear() { index_.clear(); }

 private:
  NodeIndex index_;
};

class Graph {
 public:
  // The node with the same tag and content as `event`, if any; `hash` is
  // EventIndex::hash(event), which a caller that may add the event next
  // computes once for both.
  std::uint32_t find(const Event& event, std::uint32_t hash) const;
  std::uint32_t find(const Event& event) const { return find(event, EventIndex::hash(event)); }
  // Adds a node for `event`, which find() does not know (its hash: `hash`).
  std::uint32_t add(Event event, std::uint32_t hash);
  // Adds a node for any event (structuring copies nodes): find() goes on
  // answering the first node with it.
  std::uint32_t add(Event event);

  Node& operator[](std::uint32_t n) { return chunks_[chunk_of(n)][offset_in_chunk(n)]; }
  const Node& operator[](std::uint32_t n) const { return chunks_[chunk_of(n)][offset_in_chunk(n)]; }
  std::uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear();
  // Frees the event index once nothing finds nodes (after exploring):
  // find() then sees only the nodes added since.
  void forget_tags();

  std::vector<GraphVar> vars;

 private:
  // Nodes in chunks that are never reallocated: a graph of a million nodes
  // grows without copying its nodes and touches each page of them once. The
  // first kSmallChunks chunks hold kSmallChunk nodes (a small graph allocates
  // little), the later ones a huge page (and a 4 KiB page for the rest).
  static constexpr std::uint32_t kSmallChunk = 1024;
  static constexpr std::uint32_t kSmallChunks = 32;
  static constexpr std::uint32_t kInSmallChunks = kSmallChunk * kSmallChunks;
  static constexpr std::uint32_t kBigChunk = (kHugePage + sizeof(Node) - 1) / sizeof(Node);
  static std::uint32_t chunk_of(std::uint32_t n) {
    return n < kInSmallChunks ? n / kSmallChunk : kSmallChunks + (n - kInSmallChunks) / kBigChunk;
  }
  static std::uint32_t offset_in_chunk(std::uint32_t n) {
    return n < kInSmallChunks ? n % kSmallChunk : (n - kInSmallChunks) % kBigChunk;
  }
  std::uint32_t append(Event event);  // a node, not indexed

  std::vector<BigVector<Node>> chunks_;
  std::uint32_t size_ = 0;
  EventIndex by_event_;
};

}  // namespace augur::stage
