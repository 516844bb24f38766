// The staged kernels of the GPU tests, each with a launch configuration and
// the arguments to run it on: golden CUDA sources, NVRTC compilation, the CPU
// fallback against the interpreter, and the same on a GPU where there is one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/ir/interp.h"
#include "runtime/ir/ir.h"

namespace augur::gpu::testing {

// One kernel argument: a buffer of `count` elements (random contents unless
// `fill` says otherwise) or a scalar.
struct KernelArg {
  ir::Type type;          // the element type of a buffer; the type of a scalar
  std::size_t count = 0;  // > 0: a buffer
  ir::Value value;        // a scalar's value
  // Fills a buffer's bytes; default: random values suited to the type.
  std::function<void(std::vector<std::uint8_t>& bytes, std::uint64_t seed)> fill;

  static KernelArg buffer(ir::Type element, std::size_t count) { return {element, count, {}, {}}; }
  template <class T>
  static KernelArg scalar(T v) {
    return {ir::type_of<T>(), 0, ir::Value::of(v), {}};
  }
};

struct KernelCase {
  std::string name;                    // also the golden file's
  std::function<ir::Module()> module;  // extracts the staged kernel
  ir::Dim3 grid;
  ir::Dim3 block;
  std::vector<KernelArg> args;
};

std::vector<KernelCase> kernel_cases();

// The memory and argument values of one run of a case.
class KernelInputs {
 public:
  KernelInputs(const KernelCase& c, std::uint64_t seed);

  std::vector<ir::Value> values() const;  // buffers as host pointers
  const std::vector<std::vector<std::uint8_t>>& buffers() const { return buffers_; }
  std::vector<std::vector<std::uint8_t>>& buffers() { return buffers_; }

 private:
  const KernelCase& case_;
  std::vector<std::vector<std::uint8_t>> buffers_;  // one per argument (empty for scalars)
};

}  // namespace augur::gpu::testing
