// The index behind the expression pool and the tag index
// (runtime/stage/node_index.h): every key found again, in the small table of
// recent keys, after they move to the big table, across its growth and the
// filter it builds past kDeferFrom slots, whatever the two hashes (equal
// hashes for different keys, filter hashes as local as the pool's); and keys
// never added not found.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "runtime/stage/node_index.h"

namespace augur::stage::testing {
namespace {

// Key k's hashes: a few keys share each table hash (matches() tells them
// apart), and the filter hash is local, like the pool's: runs of 64 keys
// share a word.
std::uint32_t table_hash(std::uint32_t k) {
  return (k / 3) * 0x9e3779b1u;
}
std::uint32_t filter_hash(std::uint32_t k) {
  return (((k / 64) * 0x85ebca6bu) & ~std::uint32_t{63}) | (k % 64);
}

constexpr std::uint32_t kKeys = 600'000;  // past kDeferFrom slots (2^19), many flushes

TEST(NodeIndex, FindsEveryKeyAndNoOther) {
  NodeIndex index;
  // Node n holds key 2n: odd keys are never added.
  const auto find = [&](std::uint32_t k) {
    return index.find(table_hash(k), filter_hash(k),
                      [&](std::uint32_t node) { return 2 * node == k; });
  };
  for (std::uint32_t n = 0; n < kKeys; ++n) {
    ASSERT_EQ(find(2 * n), NodeIndex::kNone) << n;
    index.insert(table_hash(2 * n), filter_hash(2 * n), n);
    ASSERT_EQ(find(2 * n), n) << n;  // among the recent keys, or in the table
    if (n % 1000 == 0) {
      for (std::uint32_t m = 0; m <= n; m += 97) ASSERT_EQ(find(2 * m), m) << n << " " << m;
    }
  }
  ASSERT_EQ(index.size(), kKeys);
  for (std::uint32_t n = 0; n < kKeys; ++n) {
    ASSERT_EQ(find(2 * n), n) << n;
    ASSERT_EQ(find(2 * n + 1), NodeIndex::kNone) << n;
  }
  index.clear();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(find(0), NodeIndex::kNone);
}

}  // namespace
}  // namespace augur::stage::testing
