#include "gpu/kernel_code.h"

#include <algorithm>

#include "jit/error.h"

namespace augur::gpu {

namespace {
constexpr std::uint32_t kMaxExtent = 0x7fffffff;
// CUDA's limits on every current GPU; the CPU fallback keeps them, so that a
// program that runs on the fallback launches on a GPU too. They also keep the
// block count (at most 2^31-1 * 65535 * 65535) within 64 bits: a grid of
// 2^30 x 2^30 x 16 would count 2^64 = 0 blocks and run none.
constexpr std::uint64_t kMaxBlockThreads = 1024;
constexpr std::uint32_t kMaxGridYZ = 65535;
}  // namespace

void check_launch(const std::string& kernel, const LaunchConfig& config, std::size_t params) {
  const ir::Dim3* dims[] = {&config.grid, &config.block};
  const char* names[] = {"grid", "block"};
  for (int i = 0; i < 2; ++i) {
    const ir::Dim3& d = *dims[i];
    const std::uint32_t largest = std::max({d.x, d.y, d.z});
    if (d.x == 0 || d.y == 0 || d.z == 0 || largest > kMaxExtent) {
      throw jit::error(std::string("kernel '") + kernel + "' launched with a " + names[i] + " of " +
                       std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z) +
                       ": every extent must be between 1 and 2^31-1");
    }
  }
  const ir::Dim3& grid = config.grid;
  if (grid.y > kMaxGridYZ || grid.z > kMaxGridYZ) {
    throw jit::error("kernel '" + kernel + "' launched with a grid of " + std::to_string(grid.x) +
                     "x" + std::to_string(grid.y) + "x" + std::to_string(grid.z) +
                     ": CUDA allows at most 65535 blocks in y and z");
  }
  const std::uint64_t threads = std::uint64_t{config.block.x} * config.block.y * config.block.z;
  if (threads > kMaxBlockThreads) {
    throw jit::error("kernel '" + kernel + "' launched with " + std::to_string(threads) +
                     " threads per block; CUDA allows at most " + std::to_string(kMaxBlockThreads));
  }
  if (config.bits.size() != params) {
    throw jit::error("kernel '" + kernel + "' takes " + std::to_string(params) +
                     " arguments, got " + std::to_string(config.bits.size()));
  }
}

}  // namespace augur::gpu
