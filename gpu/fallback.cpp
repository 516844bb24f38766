#include "gpu/fallback.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "gpu/fiber_block.h"
#include "gpu/statistics.h"
#include "gpu/thread_function.h"
#include "jit/cpu/compile.h"
#include "jit/cpu/invoke.h"

namespace augur::gpu {

namespace {

void barrier_extern() {
  FiberBlock::barrier();
}

const ir::ExternTable& barrier_externs() {
  static const auto* table = [] {
    auto* t = new ir::ExternTable;
    t->add(kBarrierExtern, &barrier_extern, ir::Effect::Effectful);
    return t;
  }();
  return *table;
}

cpu::Options cpu_options(int opt_level) {
  cpu::Options options;
  options.opt_level = opt_level;
  options.invokers = false;  // kernels and thread functions are called through their C ABI
  return options;
}

}  // namespace

FallbackKernel::FallbackKernel(const ir::Function& kernel, int opt_level, std::string ir,
                               std::string cuda_source)
    : KernelCode(jit::gpu::backend::cpu, kernel.name, std::move(ir), std::move(cuda_source)),
      fibers_(has_barrier(kernel)),
      params_(kernel.num_params) {
  if (fibers_) {
    ThreadFunction lowered = lower_to_thread_function(kernel);
    code_ = cpu::compile(lowered.module, barrier_externs(), cpu_options(opt_level));
    entry_ = lowered.name;
    shared_ = std::move(lowered.shared);
  } else {
    ir::Module alone;
    alone.functions.push_back(kernel);
    code_ = cpu::compile(alone, ir::ExternTable{}, cpu_options(opt_level));
    entry_ = kernel.name;
  }
  ++counters().fallback_compiles;
}

void FallbackKernel::launch(const LaunchConfig& config) const {
  check_launch(name(), config, params_);
  ++counters().fallback_launches;
  if (fibers_) {
    launch_with_fibers(config);
    return;
  }
  std::vector<ir::Value> args;
  args.reserve(config.bits.size());
  for (std::uint64_t b : config.bits) args.push_back({b});
  cpu::run_kernel(*code_, entry_, config.grid, config.block, args);
}

void FallbackKernel::launch_with_fibers(const LaunchConfig& config) const {
  const auto entry = reinterpret_cast<ThreadEntry>(code_->address(entry_));
  const ir::Dim3 grid = config.grid;
  const ir::Dim3 block = config.block;
  const std::uint64_t* args = config.bits.data();
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
  const std::size_t shared_words =
      (shared_.bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, blocks),
                    [&](const tbb::blocked_range<std::uint64_t>& range) {
                      // Fibers and shared memory are reused block after block.
                      FiberBlock runner(entry);
                      std::vector<std::max_align_t> shared(shared_words);
                      for (std::uint64_t id = range.begin(); id != range.end(); ++id) {
                        // Bytewise (max_align_t has padding); memset must not get null.
                        if (!shared.empty()) {
                          std::memset(shared.data(), 0, shared.size() * sizeof(std::max_align_t));
                        }
                        const std::array<std::uint32_t, 3> index = {
                            static_cast<std::uint32_t>(id % grid.x),
                            static_cast<std::uint32_t>(id / grid.x % grid.y),
                            static_cast<std::uint32_t>(id / grid.x / grid.y)};
                        runner.run(args, grid, block, index, shared.data(), name());
                      }
                    });
}

}  // namespace augur::gpu
