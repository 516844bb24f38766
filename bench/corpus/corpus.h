// The corpus: real programs made by staging, from about 1,000 to 100,000 IR
// statements, that the optimizer and the backends are measured and tested on
// (issue 13, item 6).
//
// Each family is a staged generator written with the public API (<jit/jit.h>)
// and a knob that sets its size: a Brainfuck interpreter specialized to a
// generated BF program, a DFA matcher, a convolution pipeline unrolled over
// static shapes, a register VM specialized to a bytecode program, and long
// unrolled arithmetic (power, polynomials, FFT butterflies). A program knows
// how to extract itself (one jit::extract, timed by its report) and what its
// inputs are, so that a driver can run it on random arguments
// (corpus_inputs.h) without knowing the family.
//
//   for (const corpus::Program& p : corpus::programs(corpus::Sizes::standard)) {
//     jit::extraction e = p.stage();
//     const ir::Module& m = e.result().extracted.module;   // one function, named p.name
//   }
//
// Every program verifies, terminates on every argument its parameters allow,
// and never traps nor leaves its buffers: loop trip counts are bounded by
// construction and indices are static or masked to the buffer's length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "jit/jit.h"
#include "runtime/ir/type.h"

namespace augur::bench::corpus {

// One parameter of a program's entry function.
struct Param {
  std::string name;
  ir::Type type;            // a scalar, or a pointer to the element type
  std::size_t length = 0;   // elements behind a pointer; 0 for a scalar
  double min = 0, max = 0;  // the values a scalar or an element may take (integers: inclusive)
  bool written = false;     // the program stores through this pointer
};

struct Program {
  std::string family;
  std::size_t size = 0;  // the family's knob
  std::string name;      // "<family>_<size>": also the IR function's name
  std::string description;
  std::vector<Param> params;
  // Runs the first stage: the module holds one function named `name`.
  std::function<jit::extraction()> stage;
};

struct Family {
  std::string name;
  std::string knob;                // what the size counts
  std::vector<std::size_t> sizes;  // ~1k, 10k, 50k and 100k IR statements
  std::function<Program(std::size_t size)> make;
};

// The families, in a fixed order.
const std::vector<Family>& families();

// Which sizes of each family programs() lists.
enum class Sizes {
  small,     // the ~1k-statement member of each family (what the tests run)
  standard,  // ~1k and ~10k
  all,       // ~1k, 10k, 50k and 100k
};

std::vector<Program> programs(Sizes sizes);

// The program of `family` with knob `size`; throws jit::error naming the
// families for an unknown one, and for a size the family cannot make.
Program program(std::string_view family, std::size_t size);

// Parses "small", "standard" or "all"; throws jit::error otherwise.
Sizes parse_sizes(std::string_view text);

}  // namespace augur::bench::corpus
