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
#include "runtime/stage/tag.h"

namespace augur::stage {

inline constexpr std::uint32_t kNoNode = ~std::uint32_t{0};

enum class EventKind : std::uint8_t { Decl, Assign, Store, Eval, Branch, Return, End, Barrier };

// What the first stage did at one point. Variables are graph variables
// (indices into Graph::vars), written into the IR as VarIds.
struct Event {
  EventKind kind = EventKind::Eval;
  Tag tag;
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
  std::uint32_t next_variant = kNoNode;  // another node with the same tag
};

struct GraphVar {
  std::string name;  // the user's name, or empty
  ir::Type type;
  bool param = false;
  std::uint32_t shared_count = 0;  // > 0: a kernel's block-shared array of this many elements
};

// Tag → the first node with it, by open addressing and linear probing: a
// node-based map costs a cache miss for the bucket and another for the node
// on every event once an exploration outgrows the caches (a million nodes).
class TagIndex {
 public:
  // The first node of `tag`, or kNoNode.
  std::uint32_t find(Tag tag) const;
  // Records `node` as the first of `tag` unless `tag` has one; returns the first.
  std::uint32_t insert(Tag tag, std::uint32_t node);
  void clear();

 private:
  struct Slot {
    Tag tag;
    std::uint32_t node = kNoNode;  // kNoNode: empty
  };
  std::size_t home(Tag tag) const { return TagHash{}(tag) & (slots_.size() - 1); }
  void grow();

  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t count_ = 0;
};

class Graph {
 public:
  std::uint32_t add(Event event);
  // The node with the same tag and content as `event`, if any.
  std::uint32_t find(const Event& event) const;

  Node& operator[](std::uint32_t n) { return nodes_[n]; }
  const Node& operator[](std::uint32_t n) const { return nodes_[n]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(nodes_.size()); }
  bool empty() const { return nodes_.empty(); }
  void clear();

  std::vector<GraphVar> vars;

 private:
  std::vector<Node> nodes_;
  TagIndex by_tag_;  // the first variant
};

}  // namespace augur::stage
