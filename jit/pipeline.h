// LLVM's optimization pipelines and machine code emission.
#pragma once

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

namespace augur::cpu {

// Runs the new pass manager's default O0..O3 pipeline, tuned for `machine`.
void optimize(llvm::Module& module, llvm::TargetMachine& machine, int opt_level);

// Appends `module` as an object file or assembly to `out`. Codegen passes
// rewrite the module, so it is emitted once.
llvm::Error emit(llvm::Module& module, llvm::TargetMachine& machine, llvm::CodeGenFileType type,
                 llvm::SmallVectorImpl<char>& out);

}  // namespace augur::cpu
