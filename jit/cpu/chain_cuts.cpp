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

// A kind of chain: which instructions are its links, and through which
// operands a link continues a run of them.
struct ChainKind {
  bool (*is_link)(const llvm::Instruction& instruction);
  bool (*continues)(const llvm::Instruction& link, const llvm::Instruction& operand);
};

bool is_integer_multiply(const llvm::Instruction& instruction) {
  return instruction.getOpcode() == llvm::Instruction::Mul && instruction.getType()->isIntegerTy();
}

// Every multiply operand continues the run: a multiply's run is one more
// than its longest operand's.
constexpr ChainKind kSquares{
    [](const llvm::Instruction& i) {
      return is_integer_multiply(i) && i.getOperand(0) == i.getOperand(1);
    },
    [](const llvm::Instruction&, const llvm::Instruction&) { return true; }};
constexpr ChainKind kMultiplies{
    is_integer_multiply, [](const llvm::Instruction&, const llvm::Instruction&) { return true; }};

// The links the SLP vectorizer takes into a horizontal reduction (integer
// add, xor, or, and), followed as it follows them: through an operand of the
// same kind that the link alone uses.
constexpr ChainKind kReductions{
    [](const llvm::Instruction& i) {
      switch (i.getOpcode()) {
        case llvm::Instruction::Add:
        case llvm::Instruction::Xor:
        case llvm::Instruction::Or:
        case llvm::Instruction::And:
          return i.getType()->isIntegerTy();
        default:
          return false;
      }
    },
    [](const llvm::Instruction& link, const llvm::Instruction& operand) {
      return operand.getOpcode() == link.getOpcode() && operand.hasOneUse();
    }};

// The links of `function`'s chains of `kind` that end a run of `per_cut`,
// in blocks outside `loops` when it is given. A link's run is one more than
// the longest of its continuing operands'; a value's operands are defined
// before it in reverse post-order (a φ's are not, and a φ starts over).
std::vector<llvm::Instruction*> links_to_cut(llvm::Function& function, ChainKind kind,
                                             unsigned per_cut, const llvm::LoopInfo* loops) {
  llvm::DenseMap<const llvm::Instruction*, unsigned> run;
  std::vector<llvm::Instruction*> to_cut;
  for (llvm::BasicBlock* block : llvm::ReversePostOrderTraversal<llvm::Function*>(&function)) {
    if (loops && loops->getLoopFor(block)) continue;
    for (llvm::Instruction& link : *block) {
      if (!llvm::isa<llvm::BinaryOperator>(link) || !kind.is_link(link)) continue;
      unsigned length = 1;
      for (const llvm::Value* operand : link.operands()) {
        const auto* previous = llvm::dyn_cast<llvm::Instruction>(operand);
        if (!previous || !kind.continues(link, *previous)) continue;
        const auto it = run.find(previous);
        if (it != run.end()) length = std::max(length, it->second + 1);
      }
      if (length < per_cut) {
        run[&link] = length;
      } else {
        to_cut.push_back(&link);  // its copy starts over, at 0
      }
    }
  }
  return to_cut;
}

// Sends every use of `value` but the copy's through a copy right after it.
void cut_after(llvm::Module& module, llvm::Instruction* value) {
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
    for (llvm::Instruction* square : links_to_cut(function, kSquares, kSquaresPerCut, nullptr)) {
      cut_after(module, square);
      stats::count(stats::Counter::SquareChainsCut);
      changed = true;
    }
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

llvm::PreservedAnalyses CutLateChainsPass::run(llvm::Function& function,
                                               llvm::FunctionAnalysisManager& analyses) {
  const llvm::LoopInfo& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  // The two kinds share no link, so neither's cuts change the other's runs.
  const std::vector<llvm::Instruction*> multiplies =
      links_to_cut(function, kMultiplies, kMultipliesPerLateCut, &loops);
  const std::vector<llvm::Instruction*> reductions =
      links_to_cut(function, kReductions, kLinksPerReductionCut, &loops);
  if (multiplies.empty() && reductions.empty()) return llvm::PreservedAnalyses::all();
  for (llvm::Instruction* multiply : multiplies) cut_after(*function.getParent(), multiply);
  for (llvm::Instruction* link : reductions) cut_after(*function.getParent(), link);
  stats::count(stats::Counter::MultiplyChainsCut, multiplies.size());
  stats::count(stats::Counter::ReductionChainsCut, reductions.size());
  // Calls added within blocks: the dominator tree and the loops stand.
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
