// Random IR programs for differential tests.
//
// Every program verifies, terminates on every input (loops count up to small
// bounds) and never traps on any input: divisions are guarded against 0 and
// MIN / -1, indices are reduced modulo the length of the array they index
// (or, with `guarded_loads`, checked by an `if` around the load),
// shift counts need nothing (the IR takes them modulo the width). Floats may
// become NaN or infinite. Programs using exp, log or pow say so, because the
// backends may differ from the interpreter in the last bits there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ir/externs.h"
#include "runtime/ir/ir.h"

namespace augur::testing {

struct RandomFeatures {
  bool branches = true;            // if / else
  bool loops = true;               // while loops, counted and `while (true)` with a break
  bool for_loops = true;           // for loops counting up or down
  bool nested_loops = true;        // loops inside loops
  bool break_continue = true;      // break and continue inside loops
  bool labelled_exits = true;      // break 2, continue 3, ...: leaving several loops at once
  bool early_returns = true;       // return from inside nested blocks
  bool arrays = true;              // pointer parameters, loads and stores
  bool pointer_arithmetic = true;  // p + k, pointer locals
  bool pure_calls = true;          // externs by effect (test_externs.h)
  bool readonly_calls = true;
  bool effectful_calls = true;
  bool floats = true;          // f32 and f64
  bool all_int_widths = true;  // i8..u64; otherwise i32 and i64 only
  bool casts = true;
  bool select = true;
  bool short_circuit = true;  // && and ||
  bool math = true;           // sqrt fabs floor min max fma
  bool inexact_math = false;  // exp log pow
  bool atomics = false;       // atomic_* on array elements
  bool tables = false;        // elements of constant tables (`table T [...]`), read in range
  // Loads whose index is not reduced, under an `if` that checks it
  // (`if (i < n) { var t = p[i]; v = t; }`): a load read ahead of its
  // guard reads out of bounds, which the bounds-checked interpreter reports.
  bool guarded_loads = false;
};

// What the statements lean to, for the shapes of staged programs (the corpus
// in bench/corpus): `target_nodes` sizes them.
enum class RandomShape : std::uint8_t {
  mixed,          // every enabled statement, by its usual weight
  sibling_loops,  // many loops one after another at the top level, none nested
  deep_nests,     // loops and branches nested down to max_depth on most paths
  straight_line,  // no control flow: declarations, assignments, stores, calls
  memory,         // mostly stores (with loads in their operands), at least one array
};

struct RandomProgramOptions {
  std::uint64_t seed = 0;
  unsigned max_depth = 3;             // nesting of if / while / for
  unsigned max_block_statements = 5;  // statements a nested block gets, at most
  unsigned max_expr_depth = 3;
  // Size in IR nodes (count_nodes) the body grows to, give or take its last
  // statement. 0: a size drawn from the seed, mostly between 20 and 200.
  // Larger values (up to ~10,000) suit benchmarks.
  std::size_t target_nodes = 0;
  unsigned max_scalar_params = 3;
  unsigned max_array_params = 2;
  std::uint32_t max_array_length = 16;
  RandomFeatures features;
  RandomShape shape = RandomShape::mixed;
};

// A parameter of the entry function: a scalar, or a pointer to an array the
// caller provides (RandomInputs makes one).
struct ParamDesc {
  std::string name;
  ir::Type type;
  std::size_t length = 0;  // elements of the array, for pointer parameters; 0 for scalars
};

struct RandomProgram {
  ir::Module module;  // the entry function and the externs it calls
  std::string entry;
  std::vector<ParamDesc> params;
  ir::ExternTable externs;    // binds every extern the module may declare
  bool inexact_math = false;  // calls exp, log or pow: compare floats with a tolerance
  std::size_t nodes = 0;      // count_nodes of the entry function
};

RandomProgram random_program(const RandomProgramOptions& options);

// Statements plus expression nodes of a function.
std::size_t count_nodes(const ir::Function& function);

}  // namespace augur::testing
