#include "jit/pipeline.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>

#include "jit/llvm_error.h"

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
}  // namespace

void optimize(llvm::Module& module, llvm::TargetMachine& machine, int opt_level) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;

  // As clang does: loop and SLP vectorization from O2 on.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  tuning.LoopUnrolling = opt_level >= 1;

  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);

  const llvm::OptimizationLevel level = level_of(opt_level);
  llvm::ModulePassManager passes = opt_level == 0 ? builder.buildO0DefaultPipeline(level)
                                                  : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, modules);
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
