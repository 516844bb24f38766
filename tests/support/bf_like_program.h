// Large staged-Brainfuck-like IR programs, for the CPU backend's tests and
// benchmarks at 1k–100k statements: what a BF interpreter staged on a long
// program leaves (bench/compile, tests/stage/bf.h) — one function, a u8 tape,
// an i64 pointer, thousands of sibling and nested while loops.
//
//   fn bf(tape: u8*, input: u8*, output: u8*) -> i64
//
// Every program verifies, terminates and stays in bounds on any input: a loop
// sets its counter cell from the input (0..7) and decrements it once per
// iteration; its body moves the pointer back where it started and never
// writes the counter cells of the loops around it. Scan loops (`[>]`,
// `[<]`), which leave the pointer where the data says, appear only outside
// counted loops, are bounded by a pointer limit and wrap the pointer into the
// tape's first half after them; input and output indices wrap at 256. The
// tape has kBfTapeLength bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tests/support/random_program.h"

namespace augur::testing {

struct BfLikeOptions {
  std::uint64_t seed = 0;
  std::size_t statements = 1000;  // IR statements to generate, give or take a loop's closing
  unsigned max_loop_depth = 3;    // loops and ifs nested in each other
};

inline constexpr std::size_t kBfTapeLength = 1024;
inline constexpr std::size_t kBfIoLength = 256;

// The program as a RandomProgram (no externs; arrays tape, input and output),
// so that RandomInputs makes its arguments. `nodes` holds its statement count.
RandomProgram bf_like_program(const BfLikeOptions& options);

// Statements of a function, nested ones included.
std::size_t count_statements(const ir::Function& function);

}  // namespace augur::testing
