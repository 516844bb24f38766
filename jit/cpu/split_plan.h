// Where a large function is split for code generation.
//
// LLVM's loop passes (LoopRotate, LICM, LoopUnroll, with the ScalarEvolution
// and MemorySSA updates they make) do work per loop that scans the whole
// function, so a function of thousands of loops compiles in superlinear
// time. The plan cuts the function's blocks into runs of statements of
// bounded size ("parts"), each of which becomes a function of its own
// (codegen_part.cpp): every function that reaches LLVM then has about
// `split_nodes` IR nodes or fewer, whatever the size of the program, and the
// parts compile concurrently.
//
// A block is cut only when its statements, less the parts already cut inside
// them, exceed the bound, working from the innermost blocks out: a loop nest
// that fits is never cut, so hot inner loops stay whole in one function.
//
// The plan is computed without recursion: statement depth is the user's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "runtime/ir/ir.h"

namespace augur::cpu {

// How a part leaves, besides falling through: its status code (the part
// function's i32 result), which the caller acts on.
enum class PartExit : std::uint32_t { FallThrough = 0, Break = 1, Continue = 2, Return = 3 };

// A break or continue that leaves `levels` loops around the part (2 or more:
// one loop is Part::breaks or Part::continues).
struct FarExit {
  PartExit kind = PartExit::Break;  // Break or Continue
  std::uint32_t levels = 2;

  friend bool operator==(const FarExit&, const FarExit&) = default;
};

// The status code of a loop exit leaving `levels` loops around a part: the
// PartExit itself for one level; past Return, two codes (break, continue) a
// level for more.
std::uint32_t exit_status(PartExit kind, std::uint32_t levels);

struct Part {
  const ir::Block* block = nullptr;  // the statements [begin, end) of *block
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t index = 0;  // its number in the function: part_symbol(function, index)
  std::size_t nodes = 0;  // IR nodes, less those of the parts inside it
  // Variables of the function used inside and outside the part, in VarId
  // order: those the part reads only (passed by value) and those it assigns
  // or declares (passed by pointer, copied in and out).
  std::vector<ir::VarId> inputs;
  std::vector<ir::VarId> inouts;
  // Variables used only inside the part (its own, not the caller's).
  std::vector<ir::VarId> locals;
  // Exits through break or continue of a loop around the part, or return.
  bool breaks = false;
  bool continues = false;
  bool returns = false;
  std::vector<FarExit> far_exits;  // those that leave more than one loop around it
};

struct FunctionPlan {
  const ir::Function* function = nullptr;
  std::vector<Part> parts;  // parts inside others come first
  // The part that starts at a statement, by the statement's address.
  std::unordered_map<const ir::Stmt*, std::size_t> starts;

  bool split() const { return !parts.empty(); }
  const Part* part_at(const ir::Stmt& first) const {
    const auto it = starts.find(&first);
    return it == starts.end() ? nullptr : &parts[it->second];
  }
};

// The plan for `function` with parts of about `split_nodes` nodes; no parts
// if the function is that small, if split_nodes is 0, or for kernels.
FunctionPlan plan_split(const ir::Function& function, std::size_t split_nodes);

}  // namespace augur::cpu
