#include "jit/cpu/chain_cuts.h"

#include <algorithm>
#include <string>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "jit/cpu/statistics.h"

namespace augur::cpu {

namespace {

// The copy: a call to a function declared for it, never defined (the join
// removes every call before machine code). Unlike an empty inline asm, a
// declared function carries attributes, so the caller's inferred ones
// (nounwind, norecurse, nosync) are those it would have without the cuts.
// No other symbol of a module has this prefix (abi.cpp names functions,
// externs and parts "augur.fn.", "augur.extern.", "augur.part.").
constexpr llvm::StringLiteral kCutPrefix = "augur.chain_cut.";

llvm::FunctionCallee cut_function(llvm::Module& module, llvm::IntegerType* type) {
  const std::string name = (kCutPrefix + std::to_string(type->getBitWidth())).str();
  llvm::FunctionCallee callee =
      module.getOrInsertFunction(name, llvm::FunctionType::get(type, {type}, false));
  auto* function = llvm::cast<llvm::Function>(callee.getCallee());
  // Pure and free to speculate, as the multiply is: later passes move,
  // merge, delete and rank a call as they would the multiply (Reassociate
  // gives any other call a rank of its own, which reordered the products
  // of a power and cost 15% of its speed).
  function->addFnAttr(llvm::Attribute::Speculatable);
  function->setDoesNotAccessMemory();
  function->setDoesNotThrow();
  function->setWillReturn();
  function->setNoSync();
  function->setDoesNotRecurse();
  function->setDoesNotFreeMemory();
  return callee;
}

// Which multiplies a run counts.
enum class Chain { Squares, Multiplies };

// The integer multiplies of `function` (squares only, or all) that end a run
// of `per_cut` in a row, in blocks outside `loops` when it is given.
std::vector<llvm::BinaryOperator*> multiplies_to_cut(llvm::Function& function, Chain chain,
                                                     unsigned per_cut,
                                                     const llvm::LoopInfo* loops) {
  // Multiplies in a row ending at each value, one more than the longest of
  // its operands'; a value's operands are defined before it in reverse
  // post-order (a φ's are not, and a φ starts over).
  llvm::DenseMap<const llvm::Value*, unsigned> run;
  std::vector<llvm::BinaryOperator*> to_cut;
  const auto run_of = [&run](const llvm::Value* value) {
    const auto it = run.find(value);
    return it == run.end() ? 0u : it->second;
  };
  for (llvm::BasicBlock* block : llvm::ReversePostOrderTraversal<llvm::Function*>(&function)) {
    if (loops && loops->getLoopFor(block)) continue;
    for (llvm::Instruction& instruction : *block) {
      auto* multiply = llvm::dyn_cast<llvm::BinaryOperator>(&instruction);
      if (!multiply || multiply->getOpcode() != llvm::Instruction::Mul ||
          !multiply->getType()->isIntegerTy())
        continue;
      if (chain == Chain::Squares && multiply->getOperand(0) != multiply->getOperand(1)) continue;
      const unsigned length =
          std::max(run_of(multiply->getOperand(0)), run_of(multiply->getOperand(1))) + 1;
      if (length < per_cut) {
        run[multiply] = length;
      } else {
        to_cut.push_back(multiply);  // its copy starts over, at 0
      }
    }
  }
  return to_cut;
}

// Whether `instruction` is a link the SLP vectorizer takes into a horizontal
// reduction: an integer add, xor, or, and.
bool is_reduction_link(const llvm::Instruction& instruction) {
  if (!instruction.getType()->isIntegerTy()) return false;
  switch (instruction.getOpcode()) {
    case llvm::Instruction::Add:
    case llvm::Instruction::Xor:
    case llvm::Instruction::Or:
    case llvm::Instruction::And:
      return true;
    default:
      return false;
  }
}

// The links of `function`'s reduction chains, outside `loops`, that end a
// run of `per_cut`: a link's run is one more than that of the longest
// operand of its kind that it alone uses, as the vectorizer follows them.
std::vector<llvm::BinaryOperator*> reduction_links_to_cut(llvm::Function& function,
                                                          unsigned per_cut,
                                                          const llvm::LoopInfo& loops) {
  llvm::DenseMap<const llvm::Value*, unsigned> run;
  std::vector<llvm::BinaryOperator*> to_cut;
  for (llvm::BasicBlock* block : llvm::ReversePostOrderTraversal<llvm::Function*>(&function)) {
    if (loops.getLoopFor(block)) continue;
    for (llvm::Instruction& instruction : *block) {
      auto* link = llvm::dyn_cast<llvm::BinaryOperator>(&instruction);
      if (!link || !is_reduction_link(*link)) continue;
      unsigned length = 1;
      for (const llvm::Value* operand : link->operands()) {
        const auto* previous = llvm::dyn_cast<llvm::Instruction>(operand);
        if (!previous || previous->getOpcode() != link->getOpcode() || !previous->hasOneUse())
          continue;
        const auto it = run.find(previous);
        if (it != run.end()) length = std::max(length, it->second + 1);
      }
      if (length < per_cut) {
        run[link] = length;
      } else {
        to_cut.push_back(link);
      }
    }
  }
  return to_cut;
}

// Sends every use of `value` but the copy's through a copy right after it.
void cut_after(llvm::Module& module, llvm::BinaryOperator* value) {
  llvm::IRBuilder<> builder(value->getNextNode());
  llvm::CallInst* cut = builder.CreateCall(
      cut_function(module, llvm::cast<llvm::IntegerType>(value->getType())), {value});
  // The same attributes on the call itself: the analyses ask every
  // instruction near a multiply whether it may throw or not return, and a
  // call answers from its own attributes before it looks up its callee's
  // (about 5% of power_110's pass pipeline).
  cut->setDoesNotThrow();
  cut->addFnAttr(llvm::Attribute::WillReturn);
  value->replaceUsesWithIf(cut, [cut](llvm::Use& use) { return use.getUser() != cut; });
}

}  // namespace

llvm::PreservedAnalyses CutSquareChainsPass::run(llvm::Module& module,
                                                 llvm::ModuleAnalysisManager&) {
  bool changed = false;
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    for (llvm::BinaryOperator* square :
         multiplies_to_cut(function, Chain::Squares, kSquaresPerCut, nullptr)) {
      cut_after(module, square);
      stats::count(stats::Counter::SquareChainsCut);
      changed = true;
    }
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

llvm::PreservedAnalyses CutMultiplyChainsPass::run(llvm::Function& function,
                                                   llvm::FunctionAnalysisManager& analyses) {
  const llvm::LoopInfo& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  bool changed = false;
  for (llvm::BinaryOperator* multiply :
       multiplies_to_cut(function, Chain::Multiplies, kMultipliesPerLateCut, &loops)) {
    cut_after(*function.getParent(), multiply);
    stats::count(stats::Counter::MultiplyChainsCut);
    changed = true;
  }
  if (!changed) return llvm::PreservedAnalyses::all();
  // Calls added within blocks: the dominator tree and the loops stand.
  llvm::PreservedAnalyses preserved;
  preserved.preserveSet<llvm::CFGAnalyses>();
  return preserved;
}

llvm::PreservedAnalyses CutReductionChainsPass::run(llvm::Function& function,
                                                    llvm::FunctionAnalysisManager& analyses) {
  const llvm::LoopInfo& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  const std::vector<llvm::BinaryOperator*> links =
      reduction_links_to_cut(function, kLinksPerReductionCut, loops);
  if (links.empty()) return llvm::PreservedAnalyses::all();
  for (llvm::BinaryOperator* link : links) {
    cut_after(*function.getParent(), link);
    stats::count(stats::Counter::ReductionChainsCut);
  }
  llvm::PreservedAnalyses preserved;
  preserved.preserveSet<llvm::CFGAnalyses>();
  return preserved;
}

llvm::PreservedAnalyses JoinChainCutsPass::run(llvm::Module& module, llvm::ModuleAnalysisManager&) {
  std::vector<llvm::Function*> cuts;
  for (llvm::Function& function : module)
    if (function.isDeclaration() && function.getName().starts_with(kCutPrefix))
      cuts.push_back(&function);
  if (cuts.empty()) return llvm::PreservedAnalyses::all();
  for (llvm::Function* cut : cuts) {
    while (!cut->use_empty()) {
      auto* call = llvm::cast<llvm::CallInst>(cut->user_back());
      call->replaceAllUsesWith(call->getArgOperand(0));
      call->eraseFromParent();
    }
    cut->eraseFromParent();
  }
  return llvm::PreservedAnalyses::none();
}

}  // namespace augur::cpu
