#include "jit/cpu/square_chains.h"

#include <string>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/PostOrderIterator.h>
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
constexpr llvm::StringLiteral kCutPrefix = "augur.square_chain_cut.";

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

// The squares of `function` that end a run of kSquaresPerCut.
std::vector<llvm::BinaryOperator*> squares_to_cut(llvm::Function& function) {
  // Squares in a row ending at each value; a value's operands are defined
  // before it in reverse post-order (a φ's are not, and a φ starts over).
  llvm::DenseMap<const llvm::Value*, unsigned> run;
  std::vector<llvm::BinaryOperator*> to_cut;
  for (llvm::BasicBlock* block : llvm::ReversePostOrderTraversal<llvm::Function*>(&function)) {
    for (llvm::Instruction& instruction : *block) {
      auto* square = llvm::dyn_cast<llvm::BinaryOperator>(&instruction);
      if (!square || square->getOpcode() != llvm::Instruction::Mul ||
          square->getOperand(0) != square->getOperand(1) || !square->getType()->isIntegerTy())
        continue;
      const auto it = run.find(square->getOperand(0));
      const unsigned length = (it == run.end() ? 0 : it->second) + 1;
      if (length < kSquaresPerCut) {
        run[square] = length;
      } else {
        to_cut.push_back(square);  // its copy starts over, at 0
      }
    }
  }
  return to_cut;
}

}  // namespace

llvm::PreservedAnalyses CutSquareChainsPass::run(llvm::Module& module,
                                                 llvm::ModuleAnalysisManager&) {
  bool changed = false;
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    for (llvm::BinaryOperator* square : squares_to_cut(function)) {
      llvm::IRBuilder<> builder(square->getNextNode());
      llvm::CallInst* cut = builder.CreateCall(
          cut_function(module, llvm::cast<llvm::IntegerType>(square->getType())), {square});
      // The same attributes on the call itself: the analyses ask every
      // instruction near a square whether it may throw or not return, and
      // a call answers from its own attributes before it looks up its
      // callee's (about 5% of power_110's pass pipeline).
      cut->setDoesNotThrow();
      cut->addFnAttr(llvm::Attribute::WillReturn);
      square->replaceUsesWithIf(cut, [cut](llvm::Use& use) { return use.getUser() != cut; });
      stats::count(stats::Counter::SquareChainsCut);
      changed = true;
    }
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

llvm::PreservedAnalyses JoinSquareChainsPass::run(llvm::Module& module,
                                                  llvm::ModuleAnalysisManager&) {
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
