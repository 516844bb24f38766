// Random arguments for a RandomProgram's entry function. The arrays live here;
// the pointer arguments point into them. Copies are deep: a copy owns its own
// arrays, with the same contents, and its arguments point there, so one input
// can be run through two executions and the memory compared afterwards.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/ir/interp.h"
#include "runtime/ir/value.h"
#include "tests/support/random_program.h"

namespace augur::testing {

class RandomInputs {
 public:
  // Scalars and array elements favour edge values (0, ±1, the limits, NaN,
  // infinities, -0.0); bool elements hold 0 or 1.
  RandomInputs(std::span<const ParamDesc> params, std::uint64_t seed);

  RandomInputs(const RandomInputs& other);
  RandomInputs& operator=(const RandomInputs& other);
  RandomInputs(RandomInputs&&) noexcept =
      default;  // the arrays' storage moves, pointers stay valid
  RandomInputs& operator=(RandomInputs&&) noexcept = default;

  std::span<const ir::Value> args() const { return args_; }
  // The bytes of every array argument, in parameter order.
  std::vector<std::vector<std::uint8_t>> memory() const;
  // The arrays as buffers for the interpreter's bounds-checked mode.
  std::vector<ir::Buffer> buffers() const;

 private:
  void point_args_at_arrays();

  std::vector<ParamDesc> params_;
  std::vector<std::vector<std::uint64_t>> storage_;  // per parameter; empty for scalars
  std::vector<ir::Value> args_;
};

}  // namespace augur::testing
