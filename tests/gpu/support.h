// Helpers for the GPU tests: golden CUDA sources, running a kernel case in
// the interpreter, and comparing the memory two runs leave.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gpu/kernel_code.h"
#include "jit/gpu/options.h"
#include "kernels.h"
#include "runtime/ir/ir.h"

namespace augur::gpu::testing {

// Compares `text` with tests/gpu/golden/<name>.cu byte for byte. Run the test
// with AUGUR_UPDATE_GOLDEN=1 in the environment to write the file instead.
// tests/gpu in the source tree, or $AUGUR_GPU_TEST_DATA where the tests run
// from a bundle on another machine (scripts/gpu_bundle.sh).
std::filesystem::path test_data_dir();

::testing::AssertionResult matches_golden(const std::string& name, const std::string& text);

// `module`'s one kernel compiled by the GPU backend (compile::gpu_backend) for
// `options`, outside the pipeline and its caches.
std::shared_ptr<const KernelCode> build_kernel(const ir::Module& module,
                                               const jit::gpu::options& options);
// The same through the backend's artifact, as a disk cache hit gets it:
// compiled to bytes, then loaded from them.
std::shared_ptr<const KernelCode> reload_kernel(const ir::Module& module,
                                                const jit::gpu::options& options);

// Runs the case's kernel in the interpreter on `inputs` (its buffers change).
void interpret(const ir::Module& module, const KernelCase& c, KernelInputs& inputs);

// Every buffer byte for byte, naming the first difference.
::testing::AssertionResult same_memory(const KernelCase& c, const KernelInputs& expected,
                                       const KernelInputs& actual);

// The names of kernel_cases(), for parameterized tests.
std::vector<std::string> kernel_case_names();
const KernelCase& kernel_case(const std::string& name);

}  // namespace augur::gpu::testing
