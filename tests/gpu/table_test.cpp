// Tables (jit::table) in GPU kernels: the CUDA emitter writes each distinct
// table once as a `__device__ const` array, NVRTC compiles it, and a staged
// kernel reading one computes the same as C++ on the CPU fallback (and on a
// device when there is one).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/cuda_emitter.h"
#include "gpu/nvrtc.h"
#include "jit/gpu.h"
#include "jit/jit.h"
#include "runtime/ir/parser.h"
#include "support.h"

namespace augur::gpu::testing {
namespace {

namespace g = jit::gpu;

const char* const kTableKernel =
    "kernel fn pick(out: i16*, n: i32) -> void {\n"
    "  var i: i32 = block_idx.x * block_dim.x + thread_idx.x;\n"
    "  if (i < n) {\n"
    "    out[i] = table i16 [-5i16, 7i16, 300i16][i % 3i32] + table i16 [-5i16, 7i16, "
    "300i16][0i32];\n"
    "  }\n"
    "}\n";

TEST(GpuTables, TheEmitterWritesEachTableOnceAsADeviceArray) {
  const CudaSource source = emit_cuda(ir::parse_module(kTableKernel));
  EXPECT_NE(
      source.text.find("__device__ const i16 augur_table_0[3] = {(i16)-5, (i16)7, (i16)300};"),
      std::string::npos)
      << source.text;
  EXPECT_EQ(source.text.find("augur_table_1"), std::string::npos) << source.text;
  EXPECT_NE(source.text.find("((i16*)augur_table_0)"), std::string::npos) << source.text;
}

TEST(GpuTables, NvrtcCompilesAKernelWithATable) {
  if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
  const CudaSource source = emit_cuda(ir::parse_module(kTableKernel));
  const NvrtcImage image = nvrtc_compile(source.text, "pick.cu", "compute_90", {});
  ASSERT_FALSE(image.bytes.empty());
  EXPECT_EQ(image.log, "") << image.log;
}

void remap(jit::dyn<std::uint8_t*> v, jit::dyn<int> n, std::vector<std::uint8_t> mapping) {
  const auto t = jit::table(mapping);
  jit::dyn<int> i = g::global_id_x();
  if (i < n) v[i] = t[v[i]];
}

// The staged remap kernel, run where `where` says, against C++.
void check_remap(g::target where) {
  std::vector<std::uint8_t> mapping(256);
  for (int b = 0; b < 256; ++b)
    mapping[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(255 - b);
  g::options options;
  options.where = where;
  options.name = "table_remap";
  const auto k = g::compile(options, remap, mapping);
  EXPECT_NE(k.cuda_source().find("__device__ const u8 augur_table_0[256]"), std::string::npos);

  std::vector<std::uint8_t> host(1000);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint8_t>(i * 7);
  g::buffer<std::uint8_t> v(host, k.where());
  k.launch(4, 256, v, static_cast<int>(host.size()));
  const std::vector<std::uint8_t> out = v.to_vector();
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_EQ(out[i], 255 - host[i]) << i;
}

TEST(GpuTables, AStagedKernelReadsItsTableOnTheFallback) {
  check_remap(g::target::cpu);
}

TEST(GpuTables, AStagedKernelReadsItsTableOnADevice) {
  if (!g::available()) GTEST_SKIP() << "no GPU: " << g::unavailable_reason();
  check_remap(g::target::cuda);
}

}  // namespace
}  // namespace augur::gpu::testing
