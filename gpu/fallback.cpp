#include "gpu/fallback.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "gpu/fiber_block.h"
#include "gpu/kernel_externs.h"
#include "gpu/statistics.h"
#include "gpu/thread_function.h"
#include "jit/cpu/invoke.h"
#include "runtime/ir/visit.h"

namespace augur::gpu {

namespace {

void barrier_extern() {
  FiberBlock::barrier();
}

// The scans a kernel may call, and the barrier of kernels run on fibers.
const ir::ExternTable& fallback_externs() {
  static const auto* table = [] {
    auto* t = new ir::ExternTable(kernel_externs());
    t->add(kBarrierExtern, &barrier_extern, ir::Effect::Effectful);
    return t;
  }();
  return *table;
}

// Declares the host functions `kernel` calls (scans) in `module`.
void declare_callees(const ir::Function& kernel, ir::Module& module) {
  ir::for_each_stmt(kernel.body, [&](const ir::Stmt& s) {
    ir::for_each_expr(s, [&](const ir::Expr& e) {
      if (e.kind != ir::ExprKind::Call) return;
      for (const ir::ExternRef& declared : module.externs) {
        if (*declared == *e.callee) return;
      }
      module.externs.push_back(e.callee);
    });
  });
}

}  // namespace

FallbackProgram fallback_program(const ir::Function& kernel) {
  FallbackProgram program;
  program.fibers = has_barrier(kernel);
  program.externs = &fallback_externs();
  if (program.fibers) {
    ThreadFunction lowered = lower_to_thread_function(kernel);
    program.module = std::move(lowered.module);
    program.entry = std::move(lowered.name);
    program.shared = std::move(lowered.shared);
  } else {
    program.module.functions.push_back(kernel);
    program.entry = kernel.name;
  }
  declare_callees(kernel, program.module);
  return program;
}

FallbackKernel::FallbackKernel(const ir::Function& kernel, FallbackProgram program,
                               std::shared_ptr<const compile::Code> code, std::string ir,
                               std::string cuda_source)
    : KernelCode(jit::gpu::backend::cpu, kernel.name, std::move(ir), std::move(cuda_source)),
      code_(std::static_pointer_cast<const cpu::CompiledCode>(std::move(code))),
      entry_(std::move(program.entry)),
      fibers_(program.fibers),
      shared_(std::move(program.shared)),
      params_(kernel.num_params) {}

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
