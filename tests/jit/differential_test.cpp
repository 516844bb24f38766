// Differential tests, the backbone: random programs (tests/support) compiled at
// O0 and at O2 give the interpreter's results on random inputs, for the return
// value, every array the program can write, and the log of effectful extern
// calls. Floats compare bit for bit, any NaN matching any NaN (payloads are not
// part of the IR's semantics); programs that call exp, log or pow allow a few
// ulps in float results.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "tests/jit/jit_test_util.h"
#include "tests/jit/outcome.h"
#include "tests/support/random_inputs.h"
#include "tests/support/random_program.h"
#include "tests/support/test_externs.h"

namespace augur::cpu::test {
namespace {

using testing::ParamDesc;
using testing::RandomFeatures;
using testing::RandomInputs;
using testing::RandomProgram;
using testing::RandomProgramOptions;

// Compiles `program` at O0 and O2 and checks both against the interpreter on
// `inputs_per_program` random inputs. With a step limit, inputs on which the
// interpreter runs longer are skipped (for programs that need not terminate
// quickly on every input), and so are, when `bounds_checked`, inputs that make
// the program access memory outside its arrays (programs whose indices come
// from their arguments); returns how many inputs were compared.
int check_program(const RandomProgram& program, std::uint64_t seed, int inputs_per_program,
                  std::uint64_t step_limit = 0, bool bounds_checked = false) {
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(program.nodes) + " nodes");
  ir::InterpOptions interp_options;
  interp_options.externs = &program.externs;
  interp_options.step_limit = step_limit;
  const ir::Interpreter interpreter(program.module, program.entry, interp_options);
  // Bounds-checked runs name the arrays of the execution's own copy of the inputs.
  const auto interpret = [&](std::span<const ir::Value> args) {
    if (!bounds_checked) return interpreter.run(args);
    ir::InterpOptions checked = interp_options;
    checked.bounds_check = true;
    for (std::size_t i = 0; i < program.params.size(); ++i) {
      const ParamDesc& p = program.params[i];
      if (!p.type.is_pointer()) continue;
      checked.buffers.push_back({args[i].as<void*>(), p.length * p.type.pointee().size(), p.name});
    }
    return ir::Interpreter(program.module, program.entry, checked).run(args);
  };
  const auto o0 = compile_at(0, program.module, program.externs);
  const auto o2 = compile_at(2, program.module, program.externs);
  int compared = 0;
  for (int i = 0; i < inputs_per_program; ++i) {
    const RandomInputs inputs(program.params, seed * 100 + static_cast<std::uint64_t>(i));
    Outcome expected;
    try {
      expected = observe(inputs, interpret);
    } catch (const jit::trap_error&) {
      if (step_limit == 0 && !bounds_checked) throw;
      continue;
    }
    for (const auto* code : {o0.get(), o2.get()}) {
      const Outcome actual = observe(inputs, [&](std::span<const ir::Value> args) {
        return invoke(*code, program.entry, args);
      });
      const std::string diff = difference(program, expected, actual);
      EXPECT_TRUE(diff.empty()) << (code == o0.get() ? "O0" : "O2") << ", inputs " << i << ": "
                                << diff;
    }
    ++compared;
  }
  return compared;
}

RandomProgramOptions options_for(std::uint64_t seed, RandomFeatures features = {},
                                 std::size_t target_nodes = 0) {
  RandomProgramOptions options;
  options.seed = seed;
  options.features = features;
  options.target_nodes = target_nodes;
  return options;
}

// Shards of 40 seeds each, so that CTest runs them in parallel.
class Differential : public ::testing::TestWithParam<int> {};

TEST_P(Differential, RandomProgramsMatchTheInterpreter) {
  const auto first = static_cast<std::uint64_t>(GetParam()) * 40;
  for (std::uint64_t seed = first; seed < first + 40; ++seed) {
    RandomFeatures features;
    features.atomics = seed % 2 == 1;
    check_program(testing::random_program(options_for(seed, features)), seed, 4);
  }
}

INSTANTIATE_TEST_SUITE_P(Jit, Differential, ::testing::Range(0, 6));

TEST(DifferentialExtra, ProgramsWithExpLogPowMatchWithinUlps) {
  RandomFeatures features;
  features.inexact_math = true;
  int checked = 0;
  for (std::uint64_t seed = 1000; seed < 1400 && checked < 20; ++seed) {
    const RandomProgram program = testing::random_program(options_for(seed, features));
    if (!program.inexact_math) continue;  // the shards above cover the others
    check_program(program, seed, 3);
    ++checked;
  }
  EXPECT_EQ(checked, 20);
}

// Programs that read constant tables (`table T [...]`): a private constant
// global per table in the CPU backend.
TEST(DifferentialExtra, ProgramsWithTablesMatchTheInterpreter) {
  RandomFeatures features;
  features.tables = true;
  for (std::uint64_t seed = 2000; seed < 2040; ++seed)
    check_program(testing::random_program(options_for(seed, features)), seed, 4);
}

// The staging front end's golden programs (tests/stage/golden/*.ir), on
// random arguments: arrays of 16 elements. Some loop up to a parameter, so
// inputs the interpreter needs more than a million steps for are left out, and
// so are those that index past the arrays (crc8 reads data[0..n)). The files
// are taken in name order, so each function's seed is the same everywhere.
TEST(DifferentialExtra, StagingGoldenProgramsMatchTheInterpreter) {
  const std::filesystem::path golden = std::filesystem::path(AUGUR_TEST_DATA) / "../stage/golden";
  std::vector<std::filesystem::path> files;
  for (const auto& file : std::filesystem::directory_iterator(golden)) {
    if (file.path().extension() == ".ir") files.push_back(file.path());
  }
  std::sort(files.begin(), files.end());
  int functions = 0;
  for (const std::filesystem::path& file : files) {
    std::ifstream stream(file);
    const std::string text((std::istreambuf_iterator<char>(stream)),
                           std::istreambuf_iterator<char>());
    const ir::Module module = ir::parse_module(text, file.filename().string());
    for (const ir::Function& function : module.functions) {
      RandomProgram program;
      program.module = module;
      program.entry = function.name;
      for (const ir::Variable& param : function.params()) {
        program.params.push_back({param.name, param.type, param.type.is_pointer() ? 16u : 0u});
      }
      const int compared =
          check_program(program, 3000 + static_cast<std::uint64_t>(functions), 20, 1'000'000, true);
      EXPECT_GE(compared, 8) << function.name;
      ++functions;
    }
  }
  EXPECT_GE(functions, 7);
}

TEST(DifferentialExtra, LargeProgramsMatchTheInterpreter) {
  for (std::uint64_t seed = 2000; seed < 2006; ++seed) {
    check_program(testing::random_program(options_for(seed, {}, 2000)), seed, 2);
  }
}

}  // namespace
}  // namespace augur::cpu::test
