// The in-memory cache (one computation per key however many threads ask,
// least recently used out first, failures not kept) and the image pipeline
// through it and the disk cache: NVRTC, then memory hits, then disk hits.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <unistd.h>

#include "gpu/cuda_emitter.h"
#include "gpu/disk_cache.h"
#include "gpu/image.h"
#include "gpu/lru_cache.h"
#include "gpu/statistics.h"
#include "jit/error.h"
#include "support.h"

namespace augur::gpu::testing {
namespace {

TEST(LruCache, EachKeyIsComputedOnceByConcurrentCallers) {
  LruCache<int> cache(1000);
  std::array<std::atomic<int>, 50> computed{};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        const int k = (round * 7 + t * 3) % 50;  // overlapping keys, in different orders
        const auto v = cache.get(CacheKey("key " + std::to_string(k)), [&] {
          ++computed[static_cast<std::size_t>(k)];
          std::this_thread::yield();
          return std::make_shared<const int>(k * k);
        });
        if (*v != k * k) ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, 0);
  for (int k = 0; k < 50; ++k) {
    EXPECT_LE(computed[static_cast<std::size_t>(k)], 1) << k;
  }
  EXPECT_EQ(cache.size(), 50u);
}

TEST(LruCache, EvictsTheLeastRecentlyUsedAndKeepsValuesInUse) {
  LruCache<std::string> cache(2);
  int made = 0;
  auto get = [&](const std::string& k) {
    return cache.get(CacheKey(k), [&] {
      ++made;
      return std::make_shared<const std::string>(k + "!");
    });
  };
  const auto a = get("a");
  get("b");
  get("a");  // a is now the most recent
  get("c");  // evicts b
  EXPECT_EQ(made, 3);
  get("a");
  EXPECT_EQ(made, 3);
  get("b");
  EXPECT_EQ(made, 4);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(*a, "a!");  // evicted or not, a value held stays valid
}

TEST(LruCache, AFailureIsNotKept) {
  LruCache<int> cache(4);
  bool hit = true;
  EXPECT_THROW(cache.get(
                   CacheKey("k"),
                   []() -> std::shared_ptr<const int> { throw jit::compile_error("no"); }, &hit),
               jit::compile_error);
  EXPECT_FALSE(hit);
  const auto v = cache.get(
      CacheKey("k"), [] { return std::make_shared<const int>(7); }, &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(*v, 7);
  cache.get(
      CacheKey("k"), [] { return std::make_shared<const int>(8); }, &hit);
  EXPECT_TRUE(hit);
}

TEST(LruCache, KeysCompareInFull) {
  const CacheKey a("same hash?");
  CacheKey b("another text");
  b.hash = a.hash;  // a collision: the text still tells them apart
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a == CacheKey("same hash?"));
}

// A fresh directory for one test.
std::filesystem::path scratch_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("augur_gpu_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

ImageRequest request_for(const std::string& kernel, const std::filesystem::path& dir) {
  ImageRequest r;
  r.source = emit_cuda(kernel_case(kernel).module()).text;
  r.name = kernel;
  r.arch = "compute_90";
  r.disk_dir = dir;
  return r;
}

TEST(ImageCache, NvrtcThenMemoryThenDisk) {
  if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
  const std::filesystem::path dir = scratch_dir("pipeline");
  const ImageRequest request = request_for("histogram", dir);
  Counters& c = counters();
  const std::uint64_t nvrtc = c.nvrtc_compiles;
  const std::uint64_t writes = c.disk_writes;
  const std::uint64_t disk_hits = c.disk_hits;

  ImageOrigin origin{};
  const auto first = compile_image(request, &origin);
  EXPECT_EQ(origin, ImageOrigin::Nvrtc);
  EXPECT_EQ(c.nvrtc_compiles, nvrtc + 1);
  EXPECT_EQ(c.disk_writes, writes + 1);

  const auto second = compile_image(request, &origin);
  EXPECT_EQ(origin, ImageOrigin::Memory);
  EXPECT_EQ(second.get(), first.get());

  clear_image_cache();
  const auto third = compile_image(request, &origin);
  EXPECT_EQ(origin, ImageOrigin::Disk);
  EXPECT_EQ(c.disk_hits, disk_hits + 1);
  EXPECT_EQ(c.nvrtc_compiles, nvrtc + 1);  // no NVRTC for a disk hit
  EXPECT_EQ(third->image().bytes, first->image().bytes);
  EXPECT_EQ(third->image().cubin, first->image().cubin);
  std::filesystem::remove_all(dir);
}

TEST(ImageCache, EveryOptionIsPartOfTheKey) {
  ImageRequest a;
  a.source = "x";
  a.arch = "compute_90";
  ImageRequest b = a;
  b.options = {"-DX=1"};
  ImageRequest c = a;
  c.arch = "compute_80";
  ImageRequest d = a;
  d.source = "y";
  EXPECT_NE(image_key_text(a), image_key_text(b));
  EXPECT_NE(image_key_text(a), image_key_text(c));
  EXPECT_NE(image_key_text(a), image_key_text(d));
  EXPECT_NE(image_key_text(a).find(nvrtc_version()), std::string::npos);
  EXPECT_NE(image_key_text(a).find("--fmad=false"), std::string::npos);
}

TEST(ImageCache, ACorruptFileIsRebuiltNotUsed) {
  if (!have_nvrtc()) GTEST_SKIP() << "Augur was built without NVRTC";
  const std::filesystem::path dir = scratch_dir("corrupt");
  const ImageRequest request = request_for("scan", dir);
  const auto original = compile_image(request);
  const std::filesystem::path file = DiskCache(dir).file_for(CacheKey(image_key_text(request)));
  ASSERT_TRUE(std::filesystem::exists(file));
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(file) / 2));
    f.put('#');
  }
  clear_image_cache();
  Counters& c = counters();
  const std::uint64_t rejected = c.disk_rejected;
  const std::uint64_t nvrtc = c.nvrtc_compiles;
  ImageOrigin origin{};
  const auto rebuilt = compile_image(request, &origin);
  EXPECT_EQ(origin, ImageOrigin::Nvrtc);
  EXPECT_EQ(c.disk_rejected, rejected + 1);
  EXPECT_EQ(c.nvrtc_compiles, nvrtc + 1);
  EXPECT_EQ(rebuilt->image().bytes, original->image().bytes);
  // The file was rewritten: the next process (here: an empty memory cache) reads it.
  clear_image_cache();
  compile_image(request, &origin);
  EXPECT_EQ(origin, ImageOrigin::Disk);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace augur::gpu::testing
