// The corpus's ~1k-statement programs (bench/corpus: BF, DFA, convolution,
// register VM, power, polynomial, FFT), each staged once and run on random
// inputs in the interpreter (the oracle), compiled at O0, and optimized by
// the PEG optimizer and compiled at O2: same result, same memory, bit for bit.
// A program the optimizer keeps is fine here (this checks agreement, not
// optimization); the report says what it did and is printed.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench/corpus/corpus.h"
#include "bench/corpus/corpus_inputs.h"
#include "jit/cpu/compile.h"
#include "jit/cpu/invoke.h"
#include "runtime/ir/interp.h"
#include "runtime/peg/optimize.h"
#include "runtime/stage/extract.h"
#include "tests/peg/peg_check.h"

namespace augur::bench::corpus {
// What GoogleTest prints for a parameter.
void PrintTo(const Program& p, std::ostream* out) {
  *out << p.name;
}
}  // namespace augur::bench::corpus

namespace augur::peg::test {
namespace {

using bench::corpus::Arguments;
using bench::corpus::Program;

constexpr int kInputs = 6;

std::vector<testing::ParamDesc> descriptions(const Program& p) {
  std::vector<testing::ParamDesc> out;
  for (const bench::corpus::Param& param : p.params)
    out.push_back({param.name, param.type, param.length});
  return out;
}

// The interpreter on a copy of the arguments, every access checked against the buffers.
Outcome interpret(const ir::Module& module, const std::string& function, const Arguments& args) {
  Arguments own = args;
  ir::InterpOptions options;
  options.bounds_check = true;
  options.buffers = own.buffers();
  // The corpus's loops are bounded by construction; this only stops a bug.
  options.step_limit = 500'000'000;
  const ir::Interpreter interpreter(module, function, options);
  Outcome out;
  out.result = interpreter.run(own.values());
  out.memory = own.memory();
  return out;
}

Outcome run_compiled(const cpu::CompiledCode& code, const std::string& function,
                     const Arguments& args) {
  Arguments own = args;
  Outcome out;
  out.result = cpu::invoke(code, function, own.values());
  out.memory = own.memory();
  return out;
}

std::string program_name(const ::testing::TestParamInfo<Program>& info) {
  return info.param.name;
}

class Corpus : public ::testing::TestWithParam<Program> {};

TEST_P(Corpus, InterpreterO0AndO2WithPegAgree) {
  const Program& p = GetParam();
  const jit::extraction staged = p.stage();
  const ir::Module& module = staged.result().extracted.module;
  const ir::Function* function = module.find_function(p.name);
  ASSERT_NE(function, nullptr);

  PegOptions peg_options;
  // The iteration, node and work budgets bound the run, not the machine's
  // load, except under the sanitizers: there, saturating vm_1000 to its
  // budgets took 26 s, and what they check is memory, not how far the
  // optimizer got (the time limit stops saturation between iterations).
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  peg_options.limits.time = std::chrono::hours(1);
#endif
  const PegResult optimized = optimize(module, peg_options);
  std::cout << p.name << " (" << staged.report().ir_statements
            << " statements): " << optimized.report.summary() << "\n";

  cpu::Options o0;
  o0.opt_level = 0;
  cpu::Options o2;
  o2.opt_level = 2;
  const std::shared_ptr<cpu::CompiledCode> unoptimized = cpu::compile(module, {}, o0);
  const std::shared_ptr<cpu::CompiledCode> with_peg = cpu::compile(optimized.module, {}, o2);

  const std::vector<testing::ParamDesc> params = descriptions(p);
  for (int i = 0; i < kInputs; ++i) {
    const Arguments args(p.params, 1000 + static_cast<std::uint64_t>(i));
    const Outcome expected = interpret(module, p.name, args);
    const std::string at_o0 =
        difference(function->ret, params, expected, run_compiled(*unoptimized, p.name, args));
    EXPECT_EQ(at_o0, "") << "input " << i << ", O0";
    const std::string at_o2 =
        difference(function->ret, params, expected, run_compiled(*with_peg, p.name, args));
    EXPECT_EQ(at_o2, "") << "input " << i << ", O2 with the PEG optimizer";
    // The optimized IR itself, in the interpreter.
    const std::string peg_ir =
        difference(function->ret, params, expected, interpret(optimized.module, p.name, args));
    EXPECT_EQ(peg_ir, "") << "input " << i << ", the PEG optimizer's IR interpreted";
  }
}

// The DAG search passes over alternatives its bounds say cannot make the
// program cheaper (dag_extract.h): with a budget it never reaches, it
// finds the same program as when it evaluates every alternative, for less
// work. Saturation stops after a few iterations, on counted work only, so
// that both runs extract from the same e-graphs.
TEST_P(Corpus, TheDagSearchsPruningChangesOnlyItsWork) {
  const Program& p = GetParam();
  const jit::extraction staged = p.stage();
  const ir::Module& module = staged.result().extracted.module;
  const PruningRuns runs = optimize_with_and_without_pruning(module, 3);
  std::cout << p.name << ": " << runs.pruned_work << " search steps pruning, "
            << runs.evaluated_work << " evaluating all\n";
  EXPECT_EQ(runs.pruned, runs.evaluated);
  EXPECT_LE(runs.pruned_work, runs.evaluated_work);
}

TEST(CorpusRegistry, RejectsWhatItCannotMake) {
  EXPECT_THROW(bench::corpus::program("nope", 1000), jit::error);
  EXPECT_THROW(bench::corpus::program("fft", 1000), jit::error);  // not a power of two
  EXPECT_THROW(bench::corpus::program("bf", 10), jit::error);
  EXPECT_THROW(bench::corpus::parse_sizes("huge"), jit::error);
  EXPECT_EQ(bench::corpus::program("dfa", 64).name, "dfa_64");
}

INSTANTIATE_TEST_SUITE_P(Small, Corpus,
                         ::testing::ValuesIn(bench::corpus::programs(bench::corpus::Sizes::small)),
                         program_name);

}  // namespace
}  // namespace augur::peg::test
