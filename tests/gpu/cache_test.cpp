// The in-memory cache (one computation per key however many threads ask,
// least recently used out first, failures not kept) and the image keys.
// disk_cache_test.cpp tests images on disk.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gpu/image.h"
#include "gpu/lru_cache.h"
#include "gpu/nvrtc.h"
#include "jit/error.h"

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
  // The disk key: the source's hash, and every other part in the toolchain line.
  EXPECT_NE(image_disk_key(a).program, image_disk_key(d).program);
  EXPECT_EQ(image_disk_key(a).program, image_disk_key(b).program);
  EXPECT_NE(image_disk_key(a).toolchain, image_disk_key(b).toolchain);
  EXPECT_NE(image_disk_key(a).toolchain, image_disk_key(c).toolchain);
  EXPECT_EQ(image_disk_key(a).toolchain, image_disk_key(d).toolchain);
}

}  // namespace
}  // namespace augur::gpu::testing
