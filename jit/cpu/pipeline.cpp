#include "jit/cpu/pipeline.h"

#include <utility>

#include <llvm/Transforms/Scalar/DeadStoreElimination.h>
#include <llvm/Transforms/Scalar/SROA.h>

#include "jit/cpu/chain_cuts.h"
#include "jit/cpu/llvm_error.h"
#include "jit/cpu/schedule_regions.h"

namespace augur::cpu {

namespace {

llvm::OptimizationLevel level_of(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::OptimizationLevel::O0;
    case 1:
      return llvm::OptimizationLevel::O1;
    case 2:
      return llvm::OptimizationLevel::O2;
    default:
      return llvm::OptimizationLevel::O3;
  }
}

// As clang does: loop and SLP vectorization from O2 on.
llvm::PipelineTuningOptions tuning_for(int opt_level) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  tuning.LoopUnrolling = opt_level >= 1;
  return tuning;
}

}  // namespace

// The pipeline's passes may refer to the builder, so it lives as long.
OptimizationPipeline::OptimizationPipeline(llvm::TargetMachine& machine, int opt_level)
    : builder_(&machine, tuning_for(opt_level)) {
  llvm::PassBuilder& builder = builder_;
  builder.registerModuleAnalyses(modules_);
  builder.registerCGSCCAnalyses(cgscc_);
  builder.registerFunctionAnalyses(functions_);
  builder.registerLoopAnalyses(loops_);
  builder.crossRegisterProxies(loops_, functions_, cgscc_, modules_);
  // Chains of squarings are cut before the first InstCombine, chains of
  // multiplies and long reductions once Reassociate has run, and all joined
  // after the last pass (chain_cuts.h); SROA first, so that a variable
  // squared in a row is one value. At O2 and O3, dead-store elimination again
  // before the vectorizers: the pipeline's own runs while the guards of loops
  // it folded still split the code into blocks, and keeps the stores the
  // next folded loop overwrites (docs/cpu.md, "Stores that folded loops
  // leave"). Last, long blocks get bounded scheduling regions
  // (schedule_regions.h).
  builder.registerPipelineEarlySimplificationEPCallback(
      [](llvm::ModulePassManager& passes, llvm::OptimizationLevel level) {
        if (level == llvm::OptimizationLevel::O0) return;
        llvm::FunctionPassManager sroa;
        sroa.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
        passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(sroa)));
        passes.addPass(CutSquareChainsPass());
      });
  builder.registerScalarOptimizerLateEPCallback(
      [](llvm::FunctionPassManager& passes, llvm::OptimizationLevel level) {
        if (level == llvm::OptimizationLevel::O0) return;
        passes.addPass(CutLateChainsPass());
      });
  builder.registerVectorizerStartEPCallback(
      [](llvm::FunctionPassManager& passes, llvm::OptimizationLevel level) {
        if (level == llvm::OptimizationLevel::O0 || level == llvm::OptimizationLevel::O1) return;
        passes.addPass(llvm::DSEPass());
      });
  builder.registerOptimizerLastEPCallback(
      [](llvm::ModulePassManager& passes, llvm::OptimizationLevel level) {
        if (level == llvm::OptimizationLevel::O0) return;
        passes.addPass(JoinChainCutsPass());
        passes.addPass(llvm::createModuleToFunctionPassAdaptor(BoundScheduleRegionsPass()));
      });

  opt_level_ = opt_level;
}

void OptimizationPipeline::run(llvm::Module& module) {
  const llvm::OptimizationLevel level = level_of(opt_level_);
  llvm::ModulePassManager passes = opt_level_ == 0 ? builder_.buildO0DefaultPipeline(level)
                                                   : builder_.buildPerModuleDefaultPipeline(level);
  passes.run(module, modules_);
  // The cached results are keyed by this module's IR, which is about to go.
  loops_.clear();
  functions_.clear();
  cgscc_.clear();
  modules_.clear();
}

llvm::Expected<std::unique_ptr<ObjectEmitter>> ObjectEmitter::create(llvm::TargetMachine& machine) {
  std::unique_ptr<ObjectEmitter> emitter(new ObjectEmitter());
  if (machine.addPassesToEmitFile(emitter->passes_, emitter->stream_, nullptr,
                                  llvm::CodeGenFileType::ObjectFile)) {
    return make_error("the target cannot emit object files");
  }
  return emitter;
}

llvm::SmallVector<char, 0> ObjectEmitter::emit(llvm::Module& module) {
  passes_.run(module);
  // The stream is unbuffered and writes at the buffer's end: taking the
  // buffer leaves it empty for the next module.
  return std::exchange(buffer_, {});
}

llvm::Error emit(llvm::Module& module, llvm::TargetMachine& machine, llvm::CodeGenFileType type,
                 llvm::SmallVectorImpl<char>& out) {
  llvm::raw_svector_ostream stream(out);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, type)) {
    return make_error("the target cannot emit this file type");
  }
  passes.run(module);
  return llvm::Error::success();
}

}  // namespace augur::cpu
