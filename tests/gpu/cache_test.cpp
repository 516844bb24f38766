// The image keys. keyed_test.cpp tests the kernels' in-memory cache,
// disk_cache_test.cpp images on disk.
#include <gtest/gtest.h>

#include <string>

#include "gpu/image.h"
#include "gpu/nvrtc.h"

namespace augur::gpu::testing {
namespace {

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
