#include "jit/cpu/schedule_regions.h"

#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include "jit/cpu/statistics.h"

namespace augur::cpu {

namespace {

// Whether an instruction must keep its place among the others like it.
bool keeps_order(const llvm::Instruction& instruction) {
  return instruction.mayReadOrWriteMemory() || instruction.mayHaveSideEffects() ||
         !llvm::isSafeToSpeculativelyExecute(&instruction);
}

// The block's instructions from its first insertion point to its
// terminator, in an order where each comes as soon after its operands as it
// can: a depth-first walk of the instructions as they become ready (all
// operands in the block placed), the first-made first. Linear in the
// instructions and their operands. Empty where an instruction uses itself,
// through others or not, which only unreachable code can.
std::vector<llvm::Instruction*> operands_first_order(llvm::BasicBlock& block) {
  std::vector<llvm::Instruction*> body;
  for (auto it = block.getFirstInsertionPt(); it != block.end() && !it->isTerminator(); ++it)
    body.push_back(&*it);
  llvm::DenseMap<const llvm::Instruction*, unsigned> index;
  for (unsigned i = 0; i < body.size(); ++i) index[body[i]] = i;

  std::vector<unsigned> waiting(body.size(), 0);  // operands not placed yet
  std::vector<std::vector<unsigned>> after(body.size());
  const auto depend = [&](unsigned later, unsigned earlier) {
    ++waiting[later];
    after[earlier].push_back(later);
  };
  int last_ordered = -1;
  for (unsigned i = 0; i < body.size(); ++i) {
    llvm::SmallVector<unsigned, 4> operands;
    for (const llvm::Value* operand : body[i]->operands()) {
      const auto* definition = llvm::dyn_cast<llvm::Instruction>(operand);
      const auto found = definition ? index.find(definition) : index.end();
      if (found != index.end() && !llvm::is_contained(operands, found->second))
        operands.push_back(found->second);
    }
    if (keeps_order(*body[i])) {
      if (last_ordered >= 0 && !llvm::is_contained(operands, static_cast<unsigned>(last_ordered)))
        operands.push_back(static_cast<unsigned>(last_ordered));
      last_ordered = static_cast<int>(i);
    }
    for (const unsigned operand : operands) depend(i, operand);
  }

  std::vector<llvm::Instruction*> order;
  order.reserve(body.size());
  std::vector<unsigned> ready;
  for (unsigned i = body.size(); i-- > 0;)
    if (waiting[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    const unsigned next = ready.back();
    ready.pop_back();
    order.push_back(body[next]);
    for (auto user = after[next].rbegin(); user != after[next].rend(); ++user)
      if (--waiting[*user] == 0) ready.push_back(*user);
  }
  if (order.size() != body.size()) return {};
  return order;
}

}  // namespace

llvm::PreservedAnalyses BoundScheduleRegionsPass::run(llvm::Function& function,
                                                      llvm::FunctionAnalysisManager&) {
  bool changed = false;
  for (llvm::BasicBlock& block : function) {
    if (block.size() <= kLongBlock) continue;
    const std::vector<llvm::Instruction*> order = operands_first_order(block);
    if (order.empty()) continue;
    llvm::Instruction* terminator = block.getTerminator();
    llvm::LLVMContext& context = function.getContext();
    llvm::Function* label =
        llvm::Intrinsic::getDeclaration(function.getParent(), llvm::Intrinsic::codeview_annotation);
    llvm::Value* no_annotation =
        llvm::MetadataAsValue::get(context, llvm::MDTuple::get(context, {}));
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (i > 0 && i % kInstructionsPerRegion == 0)
        llvm::CallInst::Create(label, {no_annotation}, "", terminator->getIterator());
      order[i]->moveBefore(terminator);
    }
    stats::count(stats::Counter::ScheduleRegionsBounded);
    changed = true;
  }
  if (!changed) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses preserved;
  preserved.preserveSet<llvm::CFGAnalyses>();
  return preserved;
}

}  // namespace augur::cpu
