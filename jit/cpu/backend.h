// The back half of a compilation: LLVM IR → optimized LLVM IR → object code.
#pragma once

#include <memory>

#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

namespace augur::cpu {

// Optimizes `module` and emits its object code, as the CompileJob of its
// context asks (opt level, target, verification, dumps; defaults without one).
// ORC calls it on its task pool, so it reports failures as llvm::Error and
// never throws.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> compile_to_object(llvm::Module& module);

}  // namespace augur::cpu
