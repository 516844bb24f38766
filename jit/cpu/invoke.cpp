#include "jit/cpu/invoke.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "jit/cpu/abi.h"
#include "jit/error.h"

namespace augur::cpu {

namespace {

std::vector<std::uint64_t> pack(const EntryPoint& entry, std::span<const ir::Value> args) {
  if (args.size() != entry.params.size()) {
    throw jit::error("'" + entry.name + "' takes " + std::to_string(entry.params.size()) +
                     " arguments, got " + std::to_string(args.size()));
  }
  std::vector<std::uint64_t> bits;
  bits.reserve(args.size());
  for (const ir::Value& v : args) bits.push_back(v.bits);
  return bits;
}

std::int32_t dimension(std::uint32_t extent, const char* what, const std::string& kernel) {
  if (extent == 0 ||
      extent > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max())) {
    throw jit::error(std::string(what) + " extent " + std::to_string(extent) + " of kernel '" +
                     kernel + "' must be between 1 and 2^31-1");
  }
  return static_cast<std::int32_t>(extent);
}

static_assert(alignof(std::max_align_t) >= kSharedAlignment);

}  // namespace

ir::Value invoke(const CompiledCode& code, std::string_view function,
                 std::span<const ir::Value> args) {
  const EntryPoint& entry = code.entry(function);
  if (entry.kernel) throw jit::error("'" + entry.name + "' is a kernel: launch it with run_kernel");
  if (!entry.invoker) {
    throw jit::error("'" + entry.name + "' was compiled without an invoker (Options::invokers)");
  }
  const std::vector<std::uint64_t> bits = pack(entry, args);
  std::uint64_t result = 0;
  entry.invoker(bits.data(), &result);
  return {ir::canonical_bits(entry.ret, result)};
}

void run_kernel(const CompiledCode& code, std::string_view kernel, ir::Dim3 grid, ir::Dim3 block,
                std::span<const ir::Value> args) {
  const EntryPoint& entry = code.entry(kernel);
  if (!entry.kernel) throw jit::error("'" + entry.name + "' is not a kernel: call it with invoke");
  const std::vector<std::uint64_t> bits = pack(entry, args);
  BlockContext base;
  base.grid_dim = {dimension(grid.x, "grid", entry.name), dimension(grid.y, "grid", entry.name),
                   dimension(grid.z, "grid", entry.name)};
  base.block_dim = {dimension(block.x, "block", entry.name),
                    dimension(block.y, "block", entry.name),
                    dimension(block.z, "block", entry.name)};
  const auto run_block = reinterpret_cast<BlockFn>(entry.address);
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;

  tbb::parallel_for(
      tbb::blocked_range<std::uint64_t>(0, blocks),
      [&](const tbb::blocked_range<std::uint64_t>& range) {
        // One shared memory area per task, reused block after block.
        std::vector<std::max_align_t> shared((entry.shared_bytes + sizeof(std::max_align_t) - 1) /
                                             sizeof(std::max_align_t));
        BlockContext context = base;
        for (std::uint64_t id = range.begin(); id != range.end(); ++id) {
          context.block_idx = {static_cast<std::int32_t>(id % grid.x),
                               static_cast<std::int32_t>(id / grid.x % grid.y),
                               static_cast<std::int32_t>(id / grid.x / grid.y)};
          run_block(&context, bits.data(), shared.data());
        }
      });
}

}  // namespace augur::cpu
