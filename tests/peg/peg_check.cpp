#include "tests/peg/peg_check.h"

#include <cmath>
#include <cstring>

#include "jit/error.h"
#include "runtime/ir/printer.h"
#include "runtime/peg/optimize.h"
#include "tests/support/test_externs.h"

namespace augur::peg::test {

namespace {

template <class F>
bool close(F expected, F actual, int ulps) {
  if (std::isnan(expected)) return std::isnan(actual);
  for (int i = 0; i < ulps && expected != actual; ++i) expected = std::nextafter(expected, actual);
  return std::memcmp(&expected, &actual, sizeof(F)) == 0;
}

bool same_value(ir::Type type, std::uint64_t expected, std::uint64_t actual, int ulps) {
  if (type == ir::Type::f32())
    return close(ir::Value{expected}.as<float>(), ir::Value{actual}.as<float>(), ulps);
  if (type == ir::Type::f64())
    return close(ir::Value{expected}.as<double>(), ir::Value{actual}.as<double>(), ulps);
  return expected == actual;
}

std::uint64_t element(const std::vector<std::uint8_t>& bytes, std::size_t index, std::size_t size) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, bytes.data() + index * size, size);
  return bits;
}

}  // namespace

Outcome observe(const ir::Module& module, const std::string& function,
                const ir::ExternTable& externs, const testing::RandomInputs& inputs) {
  testing::RandomInputs own = inputs;
  ir::InterpOptions options;
  options.externs = &externs;
  options.bounds_check = true;
  options.buffers = own.buffers();
  options.step_limit = 10'000'000;
  const ir::Interpreter interpreter(module, function, options);
  testing::reset_effect_log();
  Outcome out;
  out.result = interpreter.run(own.args());
  out.memory = own.memory();
  out.effects = testing::effect_log();
  return out;
}

std::string difference(ir::Type ret, std::span<const testing::ParamDesc> params,
                       const Outcome& expected, const Outcome& actual, int ulps) {
  if (!ret.is_void() && !same_value(ret, expected.result.bits, actual.result.bits, ulps))
    return "result " + std::to_string(actual.result.bits) + ", original " +
           std::to_string(expected.result.bits);
  std::size_t array = 0;
  for (const testing::ParamDesc& p : params) {
    if (!p.type.is_pointer()) continue;
    const std::size_t size = p.type.pointee().size();
    for (std::size_t i = 0; i < p.length; ++i) {
      const std::uint64_t want = element(expected.memory[array], i, size);
      const std::uint64_t got = element(actual.memory[array], i, size);
      if (!same_value(p.type.pointee(), want, got, ulps))
        return p.name + "[" + std::to_string(i) + "] is " + std::to_string(got) + ", original " +
               std::to_string(want);
    }
    ++array;
  }
  if (expected.effects != actual.effects) return "the effectful calls differ";
  return {};
}

std::string compare_on_random_inputs(const ir::Module& original, const ir::Module& optimized,
                                     const std::string& function,
                                     std::span<const testing::ParamDesc> params,
                                     const ir::ExternTable& externs, std::uint64_t seed, int count,
                                     int ulps) {
  const ir::Type ret = original.find_function(function)->ret;
  for (int i = 0; i < count; ++i) {
    const testing::RandomInputs inputs(params, seed * 1000 + static_cast<std::uint64_t>(i));
    Outcome expected;
    try {
      expected = observe(original, function, externs, inputs);
    } catch (const jit::trap_error&) {
      continue;  // the original traps: nothing to compare
    }
    Outcome actual;
    try {
      actual = observe(optimized, function, externs, inputs);
    } catch (const jit::trap_error& e) {
      return "input " + std::to_string(i) + ": the optimized function traps: " + e.what();
    }
    std::string diff = difference(ret, params, expected, actual, ulps);
    if (!diff.empty()) return "input " + std::to_string(i) + ": " + diff;
  }
  return {};
}

std::vector<testing::ParamDesc> params_of(const ir::Function& f, std::size_t array_length) {
  std::vector<testing::ParamDesc> out;
  for (const ir::Variable& v : f.params())
    out.push_back({v.name, v.type, v.type.is_pointer() ? array_length : 0});
  return out;
}

PruningRuns optimize_with_and_without_pruning(const ir::Module& module, std::size_t iterations) {
  PegOptions pruning;
  pruning.limits.time = std::chrono::hours(1);
  pruning.limits.iterations = iterations;
  pruning.extract_work_base = 1'000'000'000;
  pruning.extract_work_per_node = 0;
  PegOptions evaluating = pruning;
  evaluating.extract_pruning = false;
  const PegResult pruned = optimize(module, pruning);
  const PegResult evaluated = optimize(module, evaluating);
  return PruningRuns{ir::print(pruned.module), ir::print(evaluated.module),
                     pruned.report.functions.front().extract_work,
                     evaluated.report.functions.front().extract_work};
}

}  // namespace augur::peg::test
