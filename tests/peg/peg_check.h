// Differential checks for the PEG optimizer: a function and its optimized
// version run in the interpreter on the same inputs must agree on the result,
// on every array the function can write, and on the log of effectful calls.
// Floats compare bit for bit except that any NaN matches any NaN (payloads
// are not part of the IR's semantics).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/ir/externs.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/ir.h"
#include "tests/support/random_inputs.h"
#include "tests/support/random_program.h"

namespace augur::peg::test {

struct Outcome {
  ir::Value result;
  std::vector<std::vector<std::uint8_t>> memory;
  std::vector<std::uint64_t> effects;
};

// Runs `function` of `module` on a deep copy of `inputs`.
Outcome observe(const ir::Module& module, const std::string& function,
                const ir::ExternTable& externs, const testing::RandomInputs& inputs);

// Empty when the outcomes agree; otherwise what differs.
std::string difference(ir::Type ret, std::span<const testing::ParamDesc> params,
                       const Outcome& expected, const Outcome& actual, int ulps = 0);

// Both modules on `count` random inputs; empty when they always agree.
std::string compare_on_random_inputs(const ir::Module& original, const ir::Module& optimized,
                                     const std::string& function,
                                     std::span<const testing::ParamDesc> params,
                                     const ir::ExternTable& externs, std::uint64_t seed, int count,
                                     int ulps = 0);

// Parameters for a hand-written function: scalars as they are, pointers to
// arrays of `array_length` elements.
std::vector<testing::ParamDesc> params_of(const ir::Function& f, std::size_t array_length = 16);

// `module` optimized with the DAG search's pruning on and off, saturated
// for `iterations` (counted work only) and searched under a budget neither
// reaches: the two results printed, and the search steps each took.
struct PruningRuns {
  std::string pruned, evaluated;
  std::size_t pruned_work = 0, evaluated_work = 0;
};
PruningRuns optimize_with_and_without_pruning(const ir::Module& module, std::size_t iterations);

}  // namespace augur::peg::test
