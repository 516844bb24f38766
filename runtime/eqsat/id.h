// The vocabulary of the e-graph engine: e-class/e-node ids, operators, labels.
//
// The engine is generic over the operator set: a client numbers its operators
// (Op) and gives each e-node a 64-bit payload (a constant's bit pattern, a loop
// index, a variable or extern id). The engine never interprets either; two
// e-nodes are equal when their labels (op, payload) and children are equal.
#pragma once

#include <compare>
#include <cstdint>
#include <span>

namespace augur::eqsat {

// An e-node id. Every added e-node gets its own id; an e-class is named by the
// id of its union-find root (EGraph::find gives the canonical id).
enum class Id : std::uint32_t {};

constexpr std::uint32_t index(Id id) {
  return static_cast<std::uint32_t>(id);
}
constexpr Id make_id(std::uint32_t i) {
  return static_cast<Id>(i);
}

// An operator as the client numbers it. Keep the numbers dense: the engine
// indexes tables by them.
using Op = std::uint32_t;

struct Label {
  Op op = 0;
  std::uint64_t payload = 0;

  friend constexpr bool operator==(Label, Label) = default;
  friend constexpr auto operator<=>(Label, Label) = default;
};

// A read-only view of one e-node inside an EGraph. It stays valid until the
// e-graph is next modified (add, merge, rebuild).
struct ENodeView {
  Id id;  // the e-node's own id (not necessarily canonical)
  Label label;
  std::span<const Id> children;  // canonical after EGraph::rebuild()
};

}  // namespace augur::eqsat
