// NVRTC compiles every test kernel's CUDA source (PTX for a virtual
// architecture, so no GPU is needed), and every program of the IR corpus;
// its failures carry its log.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpu/cuda_emitter.h"
#include "gpu/nvrtc.h"
#include "jit/error.h"
#include "runtime/ir/parser.h"
#include "support.h"

namespace augur::gpu::testing {
namespace {

class KernelNvrtc : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
  }
};

TEST_P(KernelNvrtc, CompilesToPtx) {
  const KernelCase& c = kernel_case(GetParam());
  const CudaSource source = emit_cuda(c.module());
  const NvrtcImage image = nvrtc_compile(source.text, c.name + ".cu", "compute_90", {});
  EXPECT_FALSE(image.cubin);
  ASSERT_FALSE(image.bytes.empty());
  EXPECT_EQ(image.bytes.back(), '\0');  // cuModuleLoadData reads PTX up to its NUL
  EXPECT_NE(image.bytes.find(".entry " + source.functions[0].cuda), std::string::npos);
  // No warnings either: generated code is clean.
  EXPECT_EQ(image.log, "") << image.log;
}

INSTANTIATE_TEST_SUITE_P(Kernels, KernelNvrtc, ::testing::ValuesIn(kernel_case_names()),
                         [](const auto& info) { return info.param; });

TEST(Nvrtc, CompilesACubinForARealArchitecture) {
  if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
  const CudaSource source = emit_cuda(kernel_case("matmul_tiled").module());
  const NvrtcImage image = nvrtc_compile(source.text, "matmul.cu", "sm_80", {});
  EXPECT_TRUE(image.cubin);
  ASSERT_GE(image.bytes.size(), 4u);
  EXPECT_EQ(image.bytes.substr(0, 4),
            "\x7f"
            "ELF");
}

TEST(Nvrtc, CompilesEveryCorpusProgramWithoutHostCalls) {
  if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
  const std::filesystem::path dir = test_data_dir() / ".." / "ir" / "programs";
  int compiled = 0;
  int rejected = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".ir") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const ir::Module module = ir::parse_module(text.str(), entry.path().string());
    CudaSource source;
    try {
      source = emit_cuda(module);
    } catch (const jit::compile_error& e) {
      // Only calls to host functions are refused.
      EXPECT_FALSE(module.externs.empty()) << entry.path() << ": " << e.what();
      ++rejected;
      continue;
    }
    // Relocatable device code keeps the non-kernel functions, so they are
    // compiled, not just parsed.
    EXPECT_NO_THROW(
        nvrtc_compile(source.text, entry.path().filename().string(), "compute_90", {{"-rdc=true"}}))
        << entry.path() << "\n"
        << source.text;
    ++compiled;
  }
  EXPECT_GE(compiled, 25);
  EXPECT_GE(rejected, 1);
}

TEST(Nvrtc, AFailureCarriesTheLog) {
  if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
  try {
    nvrtc_compile("extern \"C\" __global__ void k() { undeclared_thing(); }", "broken.cu",
                  "compute_90", {});
    FAIL() << "expected a compile_error";
  } catch (const jit::compile_error& e) {
    EXPECT_NE(e.message().find("undeclared_thing"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("broken.cu"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("compute_90"), std::string::npos) << e.message();
  }
}

TEST(Nvrtc, RejectsWhatIsNotAnArchitecture) {
  if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
  EXPECT_THROW(nvrtc_compile("", "empty.cu", "gfx90a", {}), jit::compile_error);
}

TEST(Nvrtc, KeepsIeeeSemantics) {
  const std::vector<std::string> options = nvrtc_base_options("compute_90");
  auto has = [&](const std::string& o) {
    return std::find(options.begin(), options.end(), o) != options.end();
  };
  EXPECT_TRUE(has("--fmad=false"));
  EXPECT_TRUE(has("--prec-div=true"));
  EXPECT_TRUE(has("--prec-sqrt=true"));
  EXPECT_TRUE(has("--ftz=false"));
  EXPECT_FALSE(has("--use_fast_math"));
}

TEST(Nvrtc, ReportsItsVersionAndArchitectures) {
  if (!have_nvrtc()) {
    EXPECT_EQ(nvrtc_version(), "none");
    return;
  }
  EXPECT_NE(nvrtc_version().find('.'), std::string::npos);
  const std::vector<std::string> archs = nvrtc_architectures();
  ASSERT_FALSE(archs.empty());
  EXPECT_NE(std::find(archs.begin(), archs.end(), "sm_90"), archs.end());
}

}  // namespace
}  // namespace augur::gpu::testing
