// GPU images on disk, through the shared augur::cache::DiskCache: NVRTC,
// then memory hits, then disk hits; damaged and foreign files rejected,
// reported, counted and rebuilt; processes writing one image at once; a
// directory that cannot be made or is not trusted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpu/cuda_emitter.h"
#include "gpu/image.h"
#include "gpu/statistics.h"
#include "runtime/cache/disk_cache.h"
#include "runtime/ir/hash.h"
#include "support.h"
#include "tests/cache/disk_test_util.h"

namespace augur::gpu::testing {
namespace {

using cache::test::read_file;
using cache::test::write_file;

ImageRequest request_for(const std::string& kernel, const std::filesystem::path& root) {
  ImageRequest r;
  r.source = emit_cuda(kernel_case(kernel).module()).text;
  r.name = kernel;
  r.arch = "compute_90";
  r.disk_dir = root;
  return r;
}

std::string hash_of(const std::string& bytes) {
  ir::Hasher hasher;
  hasher.add(bytes);
  return hasher.finish().hex();
}

class GpuDiskCache : public cache::test::DiskCacheTest {
 protected:
  void SetUp() override {
    if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
    DiskCacheTest::SetUp();
    clear_image_cache();
  }
  // The file of `request` in the shared cache's layout.
  std::filesystem::path file_of(const ImageRequest& request) {
    return cache::DiskCache(image_disk_directory(dir())).path_of(image_disk_key(request));
  }
  bool any_report_contains(const std::string& text) {
    for (const std::string& r : reports()) {
      if (r.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

TEST_F(GpuDiskCache, NvrtcThenMemoryThenDisk) {
  const ImageRequest request = request_for("histogram", dir());
  Counters& c = counters();
  const std::uint64_t nvrtc = c.nvrtc_compiles;
  const std::uint64_t writes = c.disk.writes;
  const std::uint64_t misses = c.disk.misses;
  const std::uint64_t disk_hits = c.disk.hits;

  ImageOrigin origin{};
  const auto first = compile_image(request, &origin);
  EXPECT_EQ(origin, ImageOrigin::Nvrtc);
  EXPECT_EQ(c.nvrtc_compiles, nvrtc + 1);
  EXPECT_EQ(c.disk.misses, misses + 1);
  EXPECT_EQ(c.disk.writes, writes + 1);

  const auto second = compile_image(request, &origin);
  EXPECT_EQ(origin, ImageOrigin::Memory);
  EXPECT_EQ(second.get(), first.get());

  clear_image_cache();
  const auto third = compile_image(request, &origin);
  EXPECT_EQ(origin, ImageOrigin::Disk);
  EXPECT_EQ(c.disk.hits, disk_hits + 1);
  EXPECT_EQ(c.nvrtc_compiles, nvrtc + 1);  // no NVRTC for a disk hit
  EXPECT_EQ(third->image().bytes, first->image().bytes);
  EXPECT_EQ(third->image().cubin, first->image().cubin);
  EXPECT_TRUE(reports().empty());
}

TEST_F(GpuDiskCache, ImagesAreFilesOfTheSharedFormat) {
  const ImageRequest request = request_for("histogram", dir());
  const auto image = compile_image(request);
  // One file, in <dir>/gpu, and no temp file beside it.
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(image_disk_directory(dir()))) {
    files.push_back(entry.path());
  }
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0], file_of(request));
  // Any DiskCache on the directory reads it back under the image's key.
  cache::DiskCache disk(image_disk_directory(dir()));
  const std::optional<std::vector<char>> payload = disk.load(image_disk_key(request));
  ASSERT_TRUE(payload.has_value());
  EXPECT_EQ(std::string(payload->begin(), payload->end()), image->image().bytes);
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
  const ImageRequest request = request_for("scan", dir());
  const ImageRequest other = request_for("histogram", dir());
  const auto original = compile_image(request);
  compile_image(other);
  const std::filesystem::path file = file_of(request);
  std::vector<char> bytes = read_file(file);
  GetParam().apply(bytes, read_file(file_of(other)));
  write_file(file, bytes);

  clear_image_cache();
  Counters& c = counters();
  const std::uint64_t rejected = c.disk.rejected;
  const std::uint64_t misses = c.disk.misses;
  const std::uint64_t nvrtc = c.nvrtc_compiles;
  ImageOrigin origin{};
  const auto rebuilt = compile_image(request, &origin);
  EXPECT_EQ(origin, ImageOrigin::Nvrtc);
  EXPECT_EQ(c.disk.rejected, rejected + 1);
  EXPECT_EQ(c.disk.misses, misses);  // a rejected file is not also a miss
  EXPECT_EQ(c.nvrtc_compiles, nvrtc + 1);
  EXPECT_EQ(rebuilt->image().bytes, original->image().bytes);
  EXPECT_TRUE(any_report_contains("rejected " + file.string()))
      << ::testing::PrintToString(reports());

  // The file was rewritten: the next process (here: an empty memory cache) reads it.
  clear_image_cache();
  compile_image(request, &origin);
  EXPECT_EQ(origin, ImageOrigin::Disk);
}

INSTANTIATE_TEST_SUITE_P(Damages, DamagedGpuFile, ::testing::ValuesIn(damages()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(GpuDiskCache, AnUnusableDirectoryIsReportedAndImagesStillCompile) {
  std::filesystem::create_directories(dir());
  write_file(image_disk_directory(dir()), {'n', 'o', 't', ' ', 'a', ' ', 'd', 'i', 'r'});
  Counters& c = counters();
  const std::uint64_t writes = c.disk.writes;
  ImageOrigin origin{};
  const auto image = compile_image(request_for("scan", dir()), &origin);
  EXPECT_EQ(origin, ImageOrigin::Nvrtc);
  EXPECT_FALSE(image->image().bytes.empty());
  EXPECT_EQ(c.disk.writes, writes);
  EXPECT_TRUE(any_report_contains(image_disk_directory(dir()).string()))
      << ::testing::PrintToString(reports());
}

TEST_F(GpuDiskCache, AnUntrustedDirectoryIsRefusedCountedAndLeftUntouched) {
  std::filesystem::create_directories(image_disk_directory(dir()));
  std::filesystem::permissions(image_disk_directory(dir()), std::filesystem::perms::all);
  Counters& c = counters();
  const std::uint64_t refused = c.disk.refused;
  const std::uint64_t writes = c.disk.writes;
  ImageOrigin origin{};
  compile_image(request_for("scan", dir()), &origin);
  EXPECT_EQ(origin, ImageOrigin::Nvrtc);
  EXPECT_EQ(c.disk.refused, refused + 1);
  EXPECT_EQ(c.disk.writes, writes);
  EXPECT_TRUE(std::filesystem::is_empty(image_disk_directory(dir())));
  EXPECT_TRUE(any_report_contains("writable by others")) << ::testing::PrintToString(reports());
}

// The child: compiles the kernel AUGUR_TEST_GPU_KERNEL names with the disk cache in
// AUGUR_TEST_GPU_DIR and prints what it got.
TEST(GpuDiskChild, DISABLED_CompilesOneImage) {
  const char* root = std::getenv("AUGUR_TEST_GPU_DIR");
  const char* kernel = std::getenv("AUGUR_TEST_GPU_KERNEL");
  ASSERT_NE(root, nullptr);
  ASSERT_NE(kernel, nullptr);
  ImageOrigin origin{};
  const auto image = compile_image(request_for(kernel, root), &origin);
  std::printf("child: origin=%d rejected=%llu image=%s\n", static_cast<int>(origin),
              static_cast<unsigned long long>(counters().disk.rejected.load()),
              hash_of(image->image().bytes).c_str());
}

TEST_F(GpuDiskCache, ProcessesWritingOneImageAtOnceLeaveOneWholeFile) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe");
  const std::string command = "AUGUR_TEST_GPU_DIR='" + dir().string() +
                              "' AUGUR_TEST_GPU_KERNEL=scan '" + self +
                              "' --gtest_also_run_disabled_tests "
                              "--gtest_filter=GpuDiskChild.DISABLED_CompilesOneImage 2>&1";
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

  ImageOrigin origin{};
  const auto image = compile_image(request_for("scan", dir()), &origin);
  EXPECT_EQ(origin, ImageOrigin::Disk);
  for (const std::string& output : outputs) {
    EXPECT_THAT(output, ::testing::HasSubstr("rejected=0 image=" + hash_of(image->image().bytes)));
  }
  int files = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator(image_disk_directory(dir()))) {
    ++files;
  }
  EXPECT_EQ(files, 1);  // no temp file left behind
}

}  // namespace
}  // namespace augur::gpu::testing
