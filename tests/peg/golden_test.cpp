// The staging front end's golden programs (tests/stage/golden/*.ir) through
// the PEG optimizer: each verifies and agrees with
// the interpreter running the original on random inputs. The report's time
// per program is printed: these are the functions a JIT compile at O2 sees.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/peg/optimize.h"
#include "tests/peg/peg_check.h"

namespace augur::peg::test {
namespace {

TEST(PegGolden, StagingGoldenProgramsOptimizeAndAgree) {
  const std::filesystem::path golden = std::filesystem::path(AUGUR_TEST_DATA) / "../stage/golden";
  int functions = 0, optimized = 0;
  const ir::ExternTable no_externs;  // the goldens call none
  for (const auto& file : std::filesystem::directory_iterator(golden)) {
    if (file.path().extension() != ".ir") continue;
    std::ifstream stream(file.path());
    const std::string text((std::istreambuf_iterator<char>(stream)),
                           std::istreambuf_iterator<char>());
    const ir::Module module = ir::parse_module(text, file.path().filename().string());
    PegOptions options;
    // The iteration and node budgets bound the run, not the machine's load.
    options.limits.time = std::chrono::hours(1);
    const PegResult r = optimize(module, options);
    ASSERT_NO_THROW(ir::verify(r.module)) << ir::print(r.module);
    std::cout << r.report.summary();
    for (std::size_t i = 0; i < module.functions.size(); ++i) {
      const ir::Function& f = module.functions[i];
      if (r.report.functions[i].optimized) ++optimized;
      EXPECT_EQ(r.report.functions[i].fallback.find("extraction ran past"), std::string::npos)
          << "the default extraction budget must leave room: " << r.report.functions[i].fallback;
      const std::vector<testing::ParamDesc> params = params_of(f);
      EXPECT_EQ(compare_on_random_inputs(module, r.module, f.name, params, no_externs,
                                         7000 + static_cast<std::uint64_t>(functions), 6),
                "")
          << f.name << "\noptimized:\n"
          << ir::print(r.module);
      ++functions;
    }
  }
  EXPECT_GE(functions, 7);
  // nested_loops too, since reversion reads a loop's value a branch computed
  // in later branches on the same condition (see options_test).
  EXPECT_EQ(optimized, functions);
}

}  // namespace
}  // namespace augur::peg::test
