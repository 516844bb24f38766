// Kernels on disk, through jit::gpu::compile and the compile pipeline's disk
// cache (the shared augur::cache::DiskCache): compiled, then memory hits,
// then disk hits; damaged and foreign files rejected, reported, counted and
// rebuilt; processes writing one kernel at once; a directory that cannot be
// made or is not trusted. "A new process" is an emptied kernel cache with no
// kernel alive (the program cache holds none then).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpu/nvrtc.h"
#include "jit/gpu.h"
#include "runtime/ir/hash.h"
#include "tests/cache/disk_test_util.h"

namespace augur::gpu::testing {
namespace {

namespace g = jit::gpu;
using cache::test::read_file;
using cache::test::write_file;

void scale(jit::dyn<float*> v, jit::dyn<int> n, float a) {
  jit::dyn<int> i = g::global_id_x();
  if (i < n) v[i] = v[i] * a;
}

std::string hash_of(const std::string& bytes) {
  ir::Hasher hasher;
  hasher.add(bytes);
  return hasher.finish().hex();
}

// What a kernel computes: scale over 64 ones.
std::vector<float> run(const g::kernel<float*, int>& k) {
  g::buffer<float> v(std::vector<float>(64, 1.0f), k.where());
  k.launch({2}, {32}, v, 64);
  return v.to_vector();
}

class GpuDiskCache : public cache::test::DiskCacheTest {
 protected:
  void SetUp() override {
    DiskCacheTest::SetUp();
    g::clear_cache();
  }
  // The CPU fallback (no device needed) through dir().
  g::options on_disk(const char* name) const {
    g::options options;
    options.where = g::target::cpu;
    options.name = name;
    options.cache_dir = dir().string();
    return options;
  }
  bool any_report_contains(const std::string& text) {
    for (const std::string& r : reports()) {
      if (r.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

TEST_F(GpuDiskCache, CompiledThenMemoryThenDisk) {
  const g::options options = on_disk("disk_scale");
  const g::statistics before = g::stats();
  std::string ir;
  std::string cuda;
  {
    const auto first = g::compile(options, scale, 2.0f);
    EXPECT_EQ(g::stats().fallback_compiles, before.fallback_compiles + 1);
    EXPECT_EQ(g::stats().disk_misses, before.disk_misses + 1);
    EXPECT_EQ(g::stats().disk_writes, before.disk_writes + 1);
    const auto second = g::compile(options, scale, 2.0f);
    EXPECT_EQ(g::stats().memory_hits, before.memory_hits + 1);
    EXPECT_EQ(g::stats().disk_hits, before.disk_hits);
    ir = first.ir();
    cuda = first.cuda_source();
    EXPECT_EQ(run(first), std::vector<float>(64, 2.0f));
  }
  g::clear_cache();
  const auto third = g::compile(options, scale, 2.0f);
  EXPECT_EQ(g::stats().disk_hits, before.disk_hits + 1);
  EXPECT_EQ(g::stats().fallback_compiles, before.fallback_compiles + 1);  // no LLVM for a hit
  EXPECT_EQ(third.ir(), ir);  // the optimized kernel, as compiled
  EXPECT_EQ(third.cuda_source(), cuda);
  EXPECT_EQ(run(third), std::vector<float>(64, 2.0f));
  EXPECT_TRUE(reports().empty()) << ::testing::PrintToString(reports());
}

TEST_F(GpuDiskCache, CheckedKernelsNeedNoNvrtcOnADiskHit) {
  if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
  g::options options = on_disk("disk_checked");
  options.check_cuda = true;
  const std::uint64_t nvrtc = g::stats().nvrtc_compiles;
  g::compile(options, scale, 3.0f);
  EXPECT_EQ(g::stats().nvrtc_compiles, nvrtc + 1);
  g::clear_cache();
  const std::uint64_t hits = g::stats().disk_hits;
  g::compile(options, scale, 3.0f);
  EXPECT_EQ(g::stats().disk_hits, hits + 1);
  EXPECT_EQ(g::stats().nvrtc_compiles, nvrtc + 1);
}

TEST_F(GpuDiskCache, KernelsAreFilesOfTheSharedFormatApartFromFunctions) {
  const auto k = g::compile(on_disk("disk_format"), scale, 2.0f);
  // One file, and no temp file beside it.
  ASSERT_EQ(files().size(), 1u);
  EXPECT_EQ(files()[0].extension(), ".aobj");
  const std::vector<char> bytes = read_file(files()[0]);
  const std::string text(bytes.begin(), bytes.end());
  EXPECT_NE(text.find("augur gpu kernel 1"), std::string::npos);
  EXPECT_NE(text.find("gpu fallback"), std::string::npos);  // the toolchain, in the key
  // A jit::compile function in the same directory has a file of its own.
  jit::compile(
      with_disk(), [](jit::dyn<float> x, float a) { return x * a; }, 2.0f);
  EXPECT_EQ(files().size(), 2u);
}

TEST_F(GpuDiskCache, NoDiskCacheMeansNoFile) {
  g::options options = on_disk("disk_off");
  options.disk_cache = false;
  const std::uint64_t misses = g::stats().disk_misses;
  g::compile(options, scale, 2.0f);
  EXPECT_FALSE(std::filesystem::exists(dir()));
  EXPECT_EQ(g::stats().disk_misses, misses);
}

struct Damage {
  const char* name;
  std::function<void(std::vector<char>& file, const std::vector<char>& foreign)> apply;
};

std::vector<Damage> damages() {
  return {
      {"truncated_payload", [](std::vector<char>& f, auto&) { f.resize(f.size() / 2); }},
      {"truncated_header", [](std::vector<char>& f, auto&) { f.resize(20); }},
      {"flipped_payload_byte", [](std::vector<char>& f, auto&) { f.back() ^= 0x20; }},
      {"bad_magic", [](std::vector<char>& f, auto&) { f[0] = 'X'; }},
      {"another_kernels_file",
       [](std::vector<char>& f, const std::vector<char>& other) { f = other; }},
  };
}

class DamagedGpuFile : public GpuDiskCache, public ::testing::WithParamInterface<Damage> {};

TEST_P(DamagedGpuFile, IsRejectedReportedCountedAndRebuilt) {
  const g::options options = on_disk("disk_damaged");
  g::compile(options, scale, 2.0f);
  ASSERT_EQ(files().size(), 1u);
  const std::filesystem::path file = files()[0];
  g::compile(options, scale, 5.0f);  // another kernel's file
  ASSERT_EQ(files().size(), 2u);
  const std::filesystem::path other = files()[0] == file ? files()[1] : files()[0];
  std::vector<char> bytes = read_file(file);
  GetParam().apply(bytes, read_file(other));
  write_file(file, bytes);

  g::clear_cache();
  const g::statistics before = g::stats();
  EXPECT_EQ(run(g::compile(options, scale, 2.0f)), std::vector<float>(64, 2.0f));
  EXPECT_EQ(g::stats().disk_rejected, before.disk_rejected + 1);
  EXPECT_EQ(g::stats().disk_misses, before.disk_misses);  // a rejected file is not also a miss
  EXPECT_EQ(g::stats().fallback_compiles, before.fallback_compiles + 1);
  EXPECT_TRUE(any_report_contains("rejected " + file.string()))
      << ::testing::PrintToString(reports());

  // The file was rewritten: the next process (no kernel alive) reads it.
  g::clear_cache();
  const std::uint64_t hits = g::stats().disk_hits;
  g::compile(options, scale, 2.0f);
  EXPECT_EQ(g::stats().disk_hits, hits + 1);
}

INSTANTIATE_TEST_SUITE_P(Damages, DamagedGpuFile, ::testing::ValuesIn(damages()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(GpuDiskCache, AnUnusableDirectoryIsReportedAndKernelsStillCompile) {
  std::filesystem::create_directories(dir().parent_path());
  write_file(dir(), {'n', 'o', 't', ' ', 'a', ' ', 'd', 'i', 'r'});
  const std::uint64_t writes = g::stats().disk_writes;
  const auto k = g::compile(on_disk("disk_unusable"), scale, 2.0f);
  EXPECT_EQ(run(k), std::vector<float>(64, 2.0f));
  EXPECT_EQ(g::stats().disk_writes, writes);
  EXPECT_TRUE(any_report_contains(dir().string())) << ::testing::PrintToString(reports());
}

TEST_F(GpuDiskCache, AnUntrustedDirectoryIsRefusedCountedAndLeftUntouched) {
  std::filesystem::create_directories(dir());
  std::filesystem::permissions(dir(), std::filesystem::perms::all);
  const std::uint64_t refused = g::stats().disk_refused;
  const std::uint64_t writes = g::stats().disk_writes;
  g::compile(on_disk("disk_untrusted"), scale, 2.0f);
  EXPECT_EQ(g::stats().disk_refused, refused + 1);
  EXPECT_EQ(g::stats().disk_writes, writes);
  EXPECT_TRUE(std::filesystem::is_empty(dir()));
  EXPECT_TRUE(any_report_contains("writable by others")) << ::testing::PrintToString(reports());
}

// On a device: the image comes back from disk and runs.
TEST_F(GpuDiskCache, ImagesComeBackFromDiskOnTheDevice) {
  if (!g::available()) GTEST_SKIP() << "no GPU: " << g::unavailable_reason();
  g::options options = on_disk("disk_device");
  options.where = g::target::cuda;
  const std::uint64_t nvrtc = g::stats().nvrtc_compiles;
  g::compile(options, scale, 2.0f);
  EXPECT_EQ(g::stats().nvrtc_compiles, nvrtc + 1);
  g::clear_cache();
  const std::uint64_t hits = g::stats().disk_hits;
  const auto k = g::compile(options, scale, 2.0f);
  EXPECT_EQ(k.where(), g::backend::cuda);
  EXPECT_EQ(g::stats().disk_hits, hits + 1);
  EXPECT_EQ(g::stats().nvrtc_compiles, nvrtc + 1);
  EXPECT_EQ(run(k), std::vector<float>(64, 2.0f));
}

// The child: compiles the kernel with the disk cache in AUGUR_TEST_GPU_DIR
// and prints what it got.
TEST(GpuDiskChild, DISABLED_CompilesOneKernel) {
  const char* root = std::getenv("AUGUR_TEST_GPU_DIR");
  ASSERT_NE(root, nullptr);
  g::options options;
  options.where = g::target::cpu;
  options.name = "disk_processes";
  options.cache_dir = root;
  const auto k = g::compile(options, scale, 2.0f);
  const bool right = run(k) == std::vector<float>(64, 2.0f);
  std::printf("child: rejected=%llu right=%d ir=%s\n",
              static_cast<unsigned long long>(g::stats().disk_rejected), right ? 1 : 0,
              hash_of(k.ir()).c_str());
}

TEST_F(GpuDiskCache, ProcessesWritingOneKernelAtOnceLeaveOneWholeFile) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe");
  const std::string command = "AUGUR_TEST_GPU_DIR='" + dir().string() + "' '" + self +
                              "' --gtest_also_run_disabled_tests "
                              "--gtest_filter=GpuDiskChild.DISABLED_CompilesOneKernel 2>&1";
  // Started together on an empty directory: each compiles and stores, or
  // reads what another stored; none may see a partial file.
  constexpr int kChildren = 3;
  std::array<FILE*, kChildren> children{};
  for (FILE*& child : children) {
    child = popen(command.c_str(), "r");
    ASSERT_NE(child, nullptr);
  }
  std::array<std::string, kChildren> outputs;
  for (int i = 0; i < kChildren; ++i) {
    std::array<char, 256> chunk;
    while (std::fgets(chunk.data(), chunk.size(), children[i])) outputs[i] += chunk.data();
    EXPECT_EQ(pclose(children[i]), 0) << outputs[i];
  }

  g::options options;
  options.where = g::target::cpu;
  options.name = "disk_processes";
  options.cache_dir = dir().string();
  const std::uint64_t hits = g::stats().disk_hits;
  const auto k = g::compile(options, scale, 2.0f);
  EXPECT_EQ(g::stats().disk_hits, hits + 1);
  for (const std::string& output : outputs) {
    EXPECT_THAT(output, ::testing::HasSubstr("rejected=0 right=1 ir=" + hash_of(k.ir())));
  }
  EXPECT_EQ(files().size(), 1u);  // no temp file left behind
}

}  // namespace
}  // namespace augur::gpu::testing
