// Chains of multiplies cut for the optimizer, joined again for the code
// generator.
//
// LLVM's known-bits analysis looks at both operands of a multiply, and at a
// square `x * x` it also asks whether `x` may be undef: on a chain of
// squarings (`x = x * x`, as square-and-multiply unrolls a power, a modular
// exponentiation or a hash) each query walks about 2^6 paths, to its depth
// limit of 6, with no cache. InstCombine asks several such queries per
// multiply (whether it overflows, its known bits) in each of its runs: a
// chain of 1,000 squarings cost 68 ms per InstCombine run against 2.6 ms for
// 1,000 multiplies by one value, and the pass pipeline spent 4.8 s on a
// 10,000-statement program of powers (docs/cpu.md, "Chains of squarings").
//
// CutSquareChainsPass runs before the first InstCombine (after SROA, which
// makes a variable squared in a row one value): every kSquaresPerCut-th
// square of a chain goes through a call to a declared, never defined, pure
// function that returns its operand (augur.chain_cut.N), where the
// analyses stop. CutLateChainsPass cuts again, more often and products
// too, once Reassociate has ordered the products (the later half of the
// pipeline's InstCombine runs), and cuts long reductions for the SLP
// vectorizer, which those cuts made superlinear on them (below). JoinChainCutsPass, at the end of
// the optimizer, replaces each call by its operand and removes the declaration, so the code
// generator sees the plain chain. The optimizer loses only the known bits of a value past a cut (a
// square's bit 1 is zero), which no fold of such a chain uses: the optimized IR of every corpus
// program is the same with and without the cuts (docs/cpu.md, "Chains of squarings").
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>

namespace augur::cpu {

// Squares in a row between two cuts: a query walks at most about 2^4
// paths through a chain instead of 2^6. Fewer would be faster (LLVM O2 on
// the corpus's power_110: 1.0 s with a cut at every square, 1.2 at every
// second, 1.4 at every third, 1.75 at every fourth, 6.7 without) but the
// optimizer then orders some products differently (power_110's from every
// second, the VM's at every square; at every square power_11's code ran
// 1.2-1.5x slower), where at 4 its output on the whole corpus is the same
// as without cuts.
inline constexpr unsigned kSquaresPerCut = 4;

// Multiplies in a row (squares or not; a multiply's run is one more than its
// longest operand's) between two of CutLateChainsPass's cuts, outside
// loops. After Reassociate nothing ranks the products any more: at every
// second multiply the corpus's optimized IR is the same as without cuts
// (at every one, BF's changed), and power_110's pass pipeline takes 0.60 s
// instead of 1.10 with the first cuts alone. Inside loops a call changes what
// the unroller and the vectorizer decide (the register VM's loops were
// unrolled differently), so loops are left as they are.
inline constexpr unsigned kMultipliesPerLateCut = 2;

// Links between two cuts of a chain of integer adds, xors, ors or ands
// (each link's other operand a term: a reduction, `s = s ^ t`) outside
// loops, cut by CutLateChainsPass too. LLVM's SLP
// vectorizer takes such a chain whole as one horizontal reduction and, where
// the terms do not vectorize, tries again at every position with a region as
// long as the chain: 1,200 terms `(x + j)^4`, each with a cut, took 34 s in
// it, 4,800 terms `(x + j)^8` without any cut 3.6 s; in chains of 64,
// 0.2-0.4 s, and it still vectorizes each chain.
inline constexpr unsigned kLinksPerReductionCut = 64;

class CutSquareChainsPass : public llvm::PassInfoMixin<CutSquareChainsPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Module& module, llvm::ModuleAnalysisManager& analyses);
};

// The later cuts, of multiplies and of reductions: a function pass, for the
// pipeline's ScalarOptimizerLate extension point (after Reassociate and GVN,
// before the last InstCombine runs).
class CutLateChainsPass : public llvm::PassInfoMixin<CutLateChainsPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

class JoinChainCutsPass : public llvm::PassInfoMixin<JoinChainCutsPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Module& module, llvm::ModuleAnalysisManager& analyses);
};

}  // namespace augur::cpu
