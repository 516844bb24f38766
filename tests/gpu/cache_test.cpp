// The GPU backend's toolchain line, which keys its programs in memory and on
// disk beside the program's IR. keyed_test.cpp tests the kernels' in-memory
// cache, disk_cache_test.cpp kernels on disk.
#include <gtest/gtest.h>

#include <string>

#include "gpu/nvrtc.h"
#include "jit/gpu.h"
#include "runtime/compile/backends.h"

namespace augur::gpu::testing {
namespace {

std::string toolchain(const jit::gpu::options& options) {
  return compile::gpu_backend(options)->toolchain();
}

TEST(GpuToolchain, EveryOptionThatDecidesTheCodeIsInIt) {
  jit::gpu::options a;
  a.where = jit::gpu::target::cpu;
  a.check_cuda = true;
  a.arch = "compute_90";
  jit::gpu::options b = a;
  b.nvrtc_options = {"-DX=1"};
  jit::gpu::options c = a;
  c.arch = "compute_80";
  jit::gpu::options d = a;
  d.cpu_opt_level = 0;
  jit::gpu::options e = a;
  e.check_cuda = false;
  EXPECT_NE(toolchain(a), toolchain(b));
  EXPECT_NE(toolchain(a), toolchain(c));
  EXPECT_NE(toolchain(a), toolchain(d));
  EXPECT_NE(toolchain(a), toolchain(e));
  EXPECT_NE(toolchain(a).find(nvrtc_version()), std::string::npos) << toolchain(a);
  EXPECT_NE(toolchain(a).find("--fmad=false"), std::string::npos) << toolchain(a);
  // Where a kernel may come from is not what it is.
  jit::gpu::options f = a;
  f.cache_dir = "/elsewhere";
  f.disk_cache = false;
  EXPECT_EQ(toolchain(a), toolchain(f));
  // Unchecked fallback kernels do not depend on NVRTC's settings.
  jit::gpu::options g = e;
  g.arch = "compute_80";
  EXPECT_EQ(toolchain(e), toolchain(g));
}

TEST(GpuToolchain, OptionsAreSeparatedSoNoTwoListsReadAlike) {
  jit::gpu::options a;
  a.where = jit::gpu::target::cpu;
  a.check_cuda = true;
  a.arch = "compute_90";
  a.nvrtc_options = {"-DA", "-DB"};
  jit::gpu::options b = a;
  b.nvrtc_options = {"-DA -DB"};
  EXPECT_NE(toolchain(a), toolchain(b));
}

}  // namespace
}  // namespace augur::gpu::testing
