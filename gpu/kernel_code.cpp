#include "gpu/kernel_code.h"

#include <algorithm>

#include "jit/error.h"

namespace augur::gpu {

namespace {
constexpr std::uint32_t kMaxExtent = 0x7fffffff;
// CUDA's limit on every current GPU; the CPU fallback keeps it, so that a
// program that runs on the fallback launches on a GPU too.
constexpr std::uint64_t kMaxBlockThreads = 1024;
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
