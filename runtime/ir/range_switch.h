// Trees of `if`s that compare one integer variable with constants, found so
// that code generation can emit them as one LLVM `switch` (jit/cpu), and so
// that the PEG optimizer's regions keep them whole (runtime/peg/regions.h).
//
// A first stage that dispatches on a dyn value by narrowing a static range
// (`if (state < 32) { if (state < 16) ... } else ...`, the O(n log n) way
// docs/staging.md recommends) makes a binary search tree of compares. Each
// leaf runs for one interval of the variable's values, so the tree is a
// switch; LLVM lowers a switch by its density (a jump table, bit tests or a
// balanced tree) and threads what the cases leave behind, where a compare
// tree costs one unpredictable branch per level: a staged 64-state automaton
// ran 1.9x slower as a tree than gcc's code, which threads the tree itself.
//
// A tree qualifies when every inner node is an `if` whose branch holds only
// the next `if` of the tree, every condition is `v OP constant` or
// `constant OP v` for one integer variable v and OP one of < <= > >=, and it
// has at least kMinSwitchLeaves leaves whose intervals, but for the lowest
// and the highest, hold at most kMaxSwitchCases values in all. Conditions read
// v and nothing else, and nothing runs between them, so the switch on v's
// value at the root takes the leaf the tree would. The matcher walks the tree
// with an explicit stack (statement depth is the user's), in time linear in
// the tree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "runtime/ir/ir.h"

namespace augur::ir {

// Smaller trees stay compares: a balanced tree of 8 leaves (three levels)
// ran as fast as a switch or faster in measurements on a staged automaton's
// byte dispatch.
inline constexpr std::size_t kMinSwitchLeaves = 16;
// Case values a switch may list (its lowest and highest intervals excluded).
inline constexpr std::uint64_t kMaxSwitchCases = 4096;

struct RangeLeaf {
  const Block* block = nullptr;
  // How the leaf is reached from the root: "then" or "else" at each level
  // (for the emitter's statement paths in messages).
  std::vector<bool> path;
};

struct RangeSwitch {
  VarId var;
  Type type;                      // v's type: an integer type
  std::vector<RangeLeaf> leaves;  // in the tree's order, then before else
  // Values are the variable's bits, zero-extended from its width.
  // The leaf for values below `low_bound` (compared as `type` compares), or
  // none when the cases list them.
  std::optional<std::size_t> below;
  std::uint64_t low_bound = 0;
  std::size_t default_leaf = 0;  // the leaf of the highest values
  struct Case {
    std::uint64_t value = 0;
    std::size_t leaf = 0;
  };
  std::vector<Case> cases;  // in increasing order of the values as `type` orders them
};

struct RangeSwitchMatch {
  std::optional<RangeSwitch> found;
  // Otherwise, the inner `if`s below the root. The emitter does not try them
  // as roots again, so each statement is looked at once (a subtree that would
  // qualify alone, past a root with too many case values, stays compares).
  std::vector<const Stmt*> inner;
};

// The switch `stmt` (an `if`) is the root of, if it qualifies. `stops_at` is
// true for a statement the tree must not descend into (the start of a part of
// a split function, which is emitted as a call).
RangeSwitchMatch match_range_switch(const Stmt& stmt,
                                    const std::function<bool(const Stmt&)>& stops_at);

}  // namespace augur::ir
