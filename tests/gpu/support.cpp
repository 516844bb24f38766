#include "support.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/compile/backends.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/value.h"
#include "tests/support/golden.h"

namespace augur::gpu::testing {

std::filesystem::path test_data_dir() {
  const char* moved = std::getenv("AUGUR_GPU_TEST_DATA");
  return moved && *moved ? std::filesystem::path(moved) : std::filesystem::path(AUGUR_TEST_DATA);
}

::testing::AssertionResult matches_golden(const std::string& name, const std::string& text) {
  return augur::testing::matches_golden_file((test_data_dir() / "golden" / (name + ".cu")).string(),
                                             text);
}

std::shared_ptr<const KernelCode> build_kernel(const ir::Module& module,
                                               const jit::gpu::options& options) {
  return std::static_pointer_cast<const KernelCode>(
      compile::gpu_backend(options)->build(module, ir::ExternTable{}));
}

std::shared_ptr<const KernelCode> reload_kernel(const ir::Module& module,
                                                const jit::gpu::options& options) {
  const auto backend = compile::gpu_backend(options);
  const std::vector<char> artifact = backend->compile(module);
  return std::static_pointer_cast<const KernelCode>(
      backend->load(artifact, module, ir::ExternTable{}));
}

void interpret(const ir::Module& module, const KernelCase& c, KernelInputs& inputs) {
  const ir::Interpreter interpreter(module, module.functions.front().name);
  interpreter.run_kernel(c.grid, c.block, inputs.values());
}

namespace {

bool is_nan(ir::Type type, std::uint64_t bits) {
  if (type.scalar() == ir::Scalar::F32) {
    float f;
    const auto b32 = static_cast<std::uint32_t>(bits);
    std::memcpy(&f, &b32, sizeof f);
    return f != f;
  }
  if (type.scalar() == ir::Scalar::F64) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d != d;
  }
  return false;
}

std::string hex(std::uint64_t bits) {
  std::ostringstream out;
  out << "0x" << std::hex << bits;
  return out.str();
}

}  // namespace

// Bit for bit, except that any NaN matches any NaN: the bits of a NaN that
// arithmetic makes are not specified (docs/ir.md; x86 and NVIDIA GPUs differ).
::testing::AssertionResult same_memory(const KernelCase& c, const KernelInputs& expected,
                                       const KernelInputs& actual) {
  for (std::size_t a = 0; a < c.args.size(); ++a) {
    const std::vector<std::uint8_t>& e = expected.buffers()[a];
    const std::vector<std::uint8_t>& g = actual.buffers()[a];
    if (e == g) continue;
    const ir::Type type = c.args[a].type;
    const std::size_t size = type.size();
    for (std::size_t i = 0; i < e.size(); i += size) {
      std::uint64_t want = 0;
      std::uint64_t got = 0;
      std::memcpy(&want, e.data() + i, size);
      std::memcpy(&got, g.data() + i, size);
      if (want == got || (is_nan(type, want) && is_nan(type, got))) continue;
      return ::testing::AssertionFailure()
             << c.name << ": argument " << a << " (" << type.name() << "[]) element " << i / size
             << ": expected bits " << hex(want) << ", got " << hex(got);
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<std::string> kernel_case_names() {
  std::vector<std::string> names;
  for (const KernelCase& c : kernel_cases()) names.push_back(c.name);
  return names;
}

const KernelCase& kernel_case(const std::string& name) {
  static const auto* cases = new std::vector<KernelCase>(kernel_cases());
  for (const KernelCase& c : *cases) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no kernel case " + name);
}

}  // namespace augur::gpu::testing
