// The scans of jit/scan.h in GPU kernels: the CUDA emitter gives each a
// device helper (gpu/kernel_externs.h), NVRTC compiles them, and a staged
// kernel that scans finds what the host functions find, on the CPU fallback
// (and on a device when there is one).
#include <gtest/gtest.h>

#include <bitset>
#include <cstdint>
#include <random>
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

const char* const kScanKernel =
    "extern fn augur_find_byte(u8*, i64, i64, u8) -> i64 readonly;\n"
    "extern fn augur_find_any_of(u8*, i64, i64, u64, u64, u64, u64) -> i64 readonly;\n"
    "extern fn augur_find_literal(u8*, i64, i64, u64, u64, u8) -> i64 readonly;\n"
    "kernel fn scan(text: u8*, out: i64*, n: i64) -> void {\n"
    "  var i: i64 = i64(block_idx.x * block_dim.x + thread_idx.x);\n"
    "  if (i < n) {\n"
    "    out[i] = @augur_find_byte(text, i, n, 10u8) + @augur_find_any_of(text, i, n, 0u64, "
    "2u64, 0u64, 0u64) + @augur_find_literal(text, i, n, 25185u64, 0u64, 2u8);\n"
    "  }\n"
    "}\n";

TEST(GpuScans, TheEmitterGivesEachScanADeviceHelper) {
  const CudaSource source = emit_cuda(ir::parse_module(kScanKernel));
  for (const char* name : {"find_byte", "find_any_of", "find_literal"}) {
    EXPECT_NE(source.text.find(std::string("i64 ") + name + "(const u8* t, i64 from, i64 to"),
              std::string::npos)
        << name << "\n"
        << source.text;
    EXPECT_NE(source.text.find(std::string(name) + "(text, i, n"), std::string::npos)
        << name << "\n"
        << source.text;
  }
}

TEST(GpuScans, AHostFunctionWithAScansNameButAnotherSignatureIsRejected) {
  const char* const text =
      "extern fn augur_find_byte(u8*, i64, i64, u32) -> i64 readonly;\n"
      "kernel fn scan(text: u8*, out: i64*) -> void {\n"
      "  out[0i32] = @augur_find_byte(text, 0i64, 8i64, 10u32);\n"
      "}\n";
  try {
    emit_cuda(ir::parse_module(text));
    FAIL() << "expected a compile_error";
  } catch (const jit::compile_error& e) {
    EXPECT_NE(std::string(e.what()).find("augur_find_byte"), std::string::npos) << e.what();
  }
}

TEST(GpuScans, NvrtcCompilesTheScans) {
  if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
  const CudaSource source = emit_cuda(ir::parse_module(kScanKernel));
  const NvrtcImage image = nvrtc_compile(source.text, "scan.cu", "compute_90", {});
  ASSERT_FALSE(image.bytes.empty());
  EXPECT_EQ(image.log, "") << image.log;
}

// Thread i writes where each of the four scans finds its next match from position i.
void scans(jit::dyn<const std::uint8_t*> text, jit::dyn<std::int64_t*> out,
           jit::dyn<std::int64_t> n, std::string literal) {
  jit::dyn<std::int64_t> i = jit::dyn<std::int64_t>(g::global_id_x());
  if (i < n) {
    out[4 * i] = jit::find_byte(text, i, n, 'e');
    out[4 * i + 1] = jit::find_any_of(text, i, n, {'q', 'x', 'z', '\n'});
    out[4 * i + 2] = jit::find_literal(text, i, n, literal);
    std::bitset<256> ab, xz;
    ab.set('a').set('b');
    xz.set('x').set('z');
    out[4 * i + 3] = jit::find_sets(text, i, n, {{0, ab}, {2, xz}});
  }
}

std::int64_t first_of(const std::string& text, std::int64_t from, const std::string& bytes) {
  const std::size_t p = text.find_first_of(bytes, static_cast<std::size_t>(from));
  return p == std::string::npos ? static_cast<std::int64_t>(text.size())
                                : static_cast<std::int64_t>(p);
}

// The staged scans kernel, run where `where` says, against std::string.
void check_scans(g::target where) {
  std::mt19937 random(7);
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "abcdeqxz \n"[random() % 10];
  const std::string literal = "ab";
  g::options options;
  options.where = where;
  options.name = "scans";
  const auto k = g::compile(options, scans, literal);
  EXPECT_NE(k.cuda_source().find("find_literal("), std::string::npos) << k.cuda_source();
  EXPECT_NE(k.cuda_source().find("= find_sets("), std::string::npos) << k.cuda_source();
  if (have_nvrtc()) {
    EXPECT_EQ(nvrtc_compile(k.cuda_source(), "scans.cu", "compute_90", {}).log, "");
  }

  const auto n = static_cast<std::int64_t>(text.size());
  g::buffer<std::uint8_t> in(std::vector<std::uint8_t>(text.begin(), text.end()), k.where());
  g::buffer<std::int64_t> out(std::vector<std::int64_t>(4 * text.size(), -1), k.where());
  k.launch(static_cast<unsigned>((text.size() + 255) / 256), 256, in, out, n);
  const std::vector<std::int64_t> found = out.to_vector();
  for (std::int64_t i = 0; i < n; ++i) {
    const auto at = static_cast<std::size_t>(4 * i);
    ASSERT_EQ(found[at], first_of(text, i, "e")) << i;
    ASSERT_EQ(found[at + 1], first_of(text, i, "qxz\n")) << i;
    const std::size_t lit = text.find(literal, static_cast<std::size_t>(i));
    ASSERT_EQ(found[at + 2], lit == std::string::npos ? n : static_cast<std::int64_t>(lit)) << i;
    std::int64_t sets = i;
    while (sets + 2 < n && !((text[sets] == 'a' || text[sets] == 'b') &&
                             (text[sets + 2] == 'x' || text[sets + 2] == 'z')))
      ++sets;
    ASSERT_EQ(found[at + 3], sets + 2 < n ? sets : n) << i;
  }
}

TEST(GpuScans, AStagedKernelScansLikeTheHostOnTheFallback) {
  check_scans(g::target::cpu);
}

TEST(GpuScans, AStagedKernelScansLikeTheHostOnADevice) {
  if (!g::available()) GTEST_SKIP() << "no GPU: " << g::unavailable_reason();
  check_scans(g::target::cuda);
}

}  // namespace
}  // namespace augur::gpu::testing
