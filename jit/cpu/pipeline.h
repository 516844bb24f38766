// LLVM's optimization pipelines and machine code emission, built once for a
// TargetMachine and run on many modules, one module at a time.
#pragma once

#include <memory>

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

namespace augur::cpu {

// The new pass manager's default O0..O3 pipeline, tuned for `machine`, with
// its analysis managers. Building it costs about as much as running it on a
// small function, so it is kept; the analyses cached for one module are
// dropped after its run.
class OptimizationPipeline {
 public:
  OptimizationPipeline(llvm::TargetMachine& machine, int opt_level);
  OptimizationPipeline(const OptimizationPipeline&) = delete;
  OptimizationPipeline& operator=(const OptimizationPipeline&) = delete;

  void run(llvm::Module& module);

 private:
  llvm::PassBuilder builder_;
  llvm::LoopAnalysisManager loops_;
  llvm::FunctionAnalysisManager functions_;
  llvm::CGSCCAnalysisManager cgscc_;
  llvm::ModuleAnalysisManager modules_;
  int opt_level_;
};

// The code generator's pass pipeline writing object files. Setting it up
// (about a hundred legacy passes, the MC layer) costs more than generating the
// code of a small function, so it is reused: LLVM supports running it on one
// module after another (llc -run-twice tests that), each run writing a fresh
// object file.
class ObjectEmitter {
 public:
  static llvm::Expected<std::unique_ptr<ObjectEmitter>> create(llvm::TargetMachine& machine);
  ObjectEmitter(const ObjectEmitter&) = delete;
  ObjectEmitter& operator=(const ObjectEmitter&) = delete;

  // The object file of `module`. Codegen passes rewrite the module, so each
  // module is emitted once.
  llvm::SmallVector<char, 0> emit(llvm::Module& module);

 private:
  ObjectEmitter() = default;

  llvm::SmallVector<char, 0> buffer_;
  llvm::raw_svector_ostream stream_{buffer_};
  llvm::legacy::PassManager passes_;
};

// Appends `module` as an object file or assembly to `out` with a pipeline of
// its own (for dumps).
llvm::Error emit(llvm::Module& module, llvm::TargetMachine& machine, llvm::CodeGenFileType type,
                 llvm::SmallVectorImpl<char>& out);

}  // namespace augur::cpu
