// What one execution of a random program does, observed: its result, the
// arrays it can write and the log of effectful extern calls; and how two
// executions differ. Floats compare bit for bit, any NaN matching any NaN
// (payloads are not part of the IR's semantics), with the ulps a program
// that calls exp, log or pow allows.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "runtime/ir/value.h"
#include "tests/support/random_inputs.h"
#include "tests/support/random_program.h"
#include "tests/support/test_externs.h"

namespace augur::cpu::test {

struct Outcome {
  ir::Value result;
  std::vector<std::vector<std::uint8_t>> memory;
  std::vector<std::uint64_t> effects;
};

template <class Run>
Outcome observe(const testing::RandomInputs& inputs, const Run& run) {
  testing::RandomInputs own = inputs;  // a deep copy: each execution writes its own arrays
  testing::reset_effect_log();
  Outcome outcome;
  outcome.result = run(own.args());
  outcome.memory = own.memory();
  outcome.effects = testing::effect_log();
  return outcome;
}

template <class F>
bool close(F expected, F actual, int ulps) {
  if (std::isnan(expected)) return std::isnan(actual);
  for (int i = 0; i < ulps && expected != actual; ++i) expected = std::nextafter(expected, actual);
  return std::memcmp(&expected, &actual, sizeof(F)) == 0;
}

// Values of `type` agree: bits, except NaN against NaN and the ulps allowed.
inline bool same_value(ir::Type type, std::uint64_t expected, std::uint64_t actual, int ulps) {
  if (type == ir::Type::f32()) {
    return close(ir::Value{expected}.as<float>(), ir::Value{actual}.as<float>(), ulps);
  }
  if (type == ir::Type::f64()) {
    return close(ir::Value{expected}.as<double>(), ir::Value{actual}.as<double>(), ulps);
  }
  return expected == actual;
}

inline std::uint64_t element(const std::vector<std::uint8_t>& bytes, std::size_t index,
                             std::size_t size) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, bytes.data() + index * size, size);
  return bits;
}

// Empty when the outcomes agree; otherwise what differs.
inline std::string difference(const testing::RandomProgram& program, const Outcome& expected,
                              const Outcome& actual) {
  const int ulps = program.inexact_math ? 4 : 0;
  const ir::Type ret = program.module.find_function(program.entry)->ret;
  if (!same_value(ret, expected.result.bits, actual.result.bits, ulps)) {
    return "result " + std::to_string(actual.result.bits) + ", interpreter " +
           std::to_string(expected.result.bits);
  }
  std::size_t array = 0;
  for (const testing::ParamDesc& param : program.params) {
    if (!param.type.is_pointer()) continue;
    const std::size_t size = param.type.pointee().size();
    for (std::size_t i = 0; i < param.length; ++i) {
      const std::uint64_t want = element(expected.memory[array], i, size);
      const std::uint64_t got = element(actual.memory[array], i, size);
      if (!same_value(param.type.pointee(), want, got, ulps)) {
        return param.name + "[" + std::to_string(i) + "] is " + std::to_string(got) +
               ", interpreter " + std::to_string(want);
      }
    }
    ++array;
  }
  if (expected.effects != actual.effects) return "the effectful calls differ";
  return {};
}

}  // namespace augur::cpu::test
