// Long blocks cut into bounded scheduling regions for the code generator.
//
// LLVM's x86 instruction schedulers (the machine scheduler before register
// allocation, and the list scheduler after it where the CPU's model asks for
// one, as Zen's does) build a dependence graph per scheduling region, and
// for each instruction that defines EFLAGS (every integer ALU instruction,
// the definition dead) they walk every earlier dead EFLAGS definition of the
// region (`ScheduleDAGInstrs::addPhysRegDeps` prunes only calls'):
// quadratic in a block's arithmetic. On the corpus's power_110, one block of
// 7,620 IR instructions, the two took 0.4 s of its 0.6 s of machine code.
//
// A region ends at a label. BoundScheduleRegionsPass, the optimizer's last
// pass, takes each block longer than kLongBlock instructions, orders it so
// that each instruction comes as soon after its operands as it can (a value
// is used soon after it is made, so few values are live across a label),
// and puts a label (`llvm.codeview.annotation`, which emits a local symbol
// and nothing else outside CodeView) every kInstructionsPerRegion
// instructions. Instructions that touch memory, have side effects or may
// trap keep their order among themselves.
#pragma once

#include <llvm/IR/PassManager.h>

namespace augur::cpu {

// Blocks up to this many instructions are left as they are: their
// scheduling costs little, and a label would only take freedom from it.
inline constexpr unsigned kLongBlock = 4096;

// Instructions between two labels. power_110's machine code: 0.63 s whole,
// 0.24 s at 1,000 (its code about 6% slower: each region interleaves fewer
// independent chains), 0.26 s at 500 with more values spilt at the labels.
inline constexpr unsigned kInstructionsPerRegion = 1000;

class BoundScheduleRegionsPass : public llvm::PassInfoMixin<BoundScheduleRegionsPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace augur::cpu
