#include "jit/cpu/split_compile.h"

#include <atomic>

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "jit/cpu/backend.h"
#include "jit/cpu/codegen.h"
#include "jit/cpu/compile_job.h"
#include "jit/cpu/engine.h"
#include "jit/cpu/llvm_error.h"
#include "jit/cpu/statistics.h"

namespace augur::cpu {

namespace {

// The parts in modules of at least `split_nodes` nodes (the last may be
// smaller): fewer modules cost less in per-module overhead, and each still
// holds functions of bounded size.
std::vector<std::vector<PartRef>> group_parts(const std::vector<FunctionPlan>& plans,
                                              std::size_t split_nodes) {
  std::vector<std::vector<PartRef>> groups;
  std::size_t nodes = split_nodes;
  for (const FunctionPlan& plan : plans) {
    for (const Part& part : plan.parts) {
      if (nodes >= split_nodes) {
        groups.emplace_back();
        nodes = 0;
      }
      groups.back().push_back({&plan, &part});
      nodes += part.nodes;
    }
  }
  return groups;
}

void verify_llvm(const llvm::Module& module, const Options& options) {
  if (!verifies(options)) return;
  std::string report;
  llvm::raw_string_ostream stream(report);
  if (llvm::verifyModule(module, &stream)) {
    throw jit::compile_error("LLVM verifier rejected the code generated for " +
                             module.getModuleIdentifier() + ": " + report);
  }
  stats::count(stats::Counter::ModulesVerified);
}

}  // namespace

std::vector<FunctionPlan> plan_module(const ir::Module& module, const Options& options) {
  std::vector<FunctionPlan> plans;
  plans.reserve(module.functions.size());
  for (const ir::Function& function : module.functions) {
    plans.push_back(plan_split(function, options.split_nodes));
  }
  return plans;
}

bool split_any(const std::vector<FunctionPlan>& plans) {
  for (const FunctionPlan& plan : plans) {
    if (plan.split()) return true;
  }
  return false;
}

std::vector<std::unique_ptr<llvm::MemoryBuffer>> compile_split(
    const ir::Module& module, const std::vector<FunctionPlan>& plans, const Options& options,
    const std::string& label) {
  for (const FunctionPlan& plan : plans) {
    if (plan.split()) stats::count(stats::Counter::FunctionsSplit);
  }
  const std::vector<std::vector<PartRef>> groups = group_parts(plans, options.split_nodes);
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects(groups.size() + 1);
  Engine& engine = Engine::get();
  // parallel_for hands the IR to its workers, and they hand the objects
  // back, inside libtbb, which ThreadSanitizer cannot see: a release before
  // and an acquire in each piece show it the IR, `finished` the way back.
  std::atomic<bool> published{false};
  std::atomic<std::size_t> finished{0};
  auto compile_piece = [&](std::size_t i) {
    static_cast<void>(published.load(std::memory_order_acquire));
    std::unique_ptr<llvm::LLVMContext> context = make_context(options);
    std::unique_ptr<llvm::Module> piece;
    {
      stats::Scope timer(stats::Timer::IrToLlvm);
      piece = i == 0 ? generate_llvm(module, *context, engine.data_layout(), engine.triple(), label,
                                     options.invokers, plans)
                     : generate_parts(groups[i - 1], *context, engine.data_layout(),
                                      engine.triple(), label + ".part" + std::to_string(i));
      verify_llvm(*piece, options);
    }
    objects[i] = unwrap(compile_to_object(*piece), "cannot compile " + piece->getName().str());
    stats::count(stats::Counter::PiecesCompiled);
    finished.fetch_add(1, std::memory_order_release);
  };
  // Isolated: while it waits for the other pieces, this thread runs only
  // them, never a task of the outer program that might wait on this very
  // compilation (a single-flight cache entry).
  published.store(true, std::memory_order_release);
  tbb::this_task_arena::isolate(
      [&] { tbb::parallel_for(std::size_t{0}, objects.size(), compile_piece); });
  static_cast<void>(finished.load(std::memory_order_acquire));
  return objects;
}

}  // namespace augur::cpu
