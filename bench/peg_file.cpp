// Runs the PEG optimizer on IR text files and prints its report: a tool for
// looking at one program's phases (with --print, the result; with
// --print-kept, each region of a large function that was kept, and why).
//
//   build/dev/bench/peg_file [--print] [--print-kept] [--no-saturate] [--region-nodes N]
//                             [--straight-line] [--iterations N] [--growth BASE PER_NODE]
//                             [--time-ms MS] FILE.ir...
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "jit/error.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/peg/optimize.h"

int main(int argc, char** argv) {
  using namespace augur;
  bool print = false;
  peg::PegOptions options;
  int failures = 0;
  // As an engine does at start, so that the first file's times (and a
  // profile of optimize()) leave out building the rule set.
  peg::warm_up();
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--print") {
      print = true;
      continue;
    }
    if (arg == "--print-kept") {
      options.on_kept_region = [](const ir::Function& region, const peg::PegFunctionReport& r) {
        std::cout << "kept region (" << r.fallback << "):\n" << ir::print(region);
      };
      continue;
    }
    if (arg == "--region-nodes" && i + 1 < argc) {
      options.region_nodes = std::stoul(argv[++i]);
      continue;
    }
    if (arg == "--iterations" && i + 1 < argc) {
      options.limits.iterations = std::stoul(argv[++i]);
      continue;
    }
    if (arg == "--time-ms" && i + 1 < argc) {
      options.limits.time = std::chrono::milliseconds(std::stoul(argv[++i]));
      continue;
    }
    if (arg == "--growth" && i + 2 < argc) {
      options.growth_base = std::stoul(argv[++i]);
      options.growth_per_node = std::stoul(argv[++i]);
      continue;
    }
    if (arg == "--straight-line") {
      options.straight_line_regions = true;
      continue;
    }
    if (arg == "--no-saturate") {
      options.saturate = false;
      continue;
    }
    try {
      std::ifstream in{std::string(arg)};
      if (!in) throw jit::error("cannot read " + std::string(arg));
      std::stringstream text;
      text << in.rdbuf();
      const ir::Module module = ir::parse_module(text.str(), arg);
      ir::verify(module);
      const peg::PegResult result = peg::optimize(module, options);
      std::cout << arg << ":\n" << result.report.summary();
      for (const peg::PegFunctionReport& f : result.report.functions)
        for (const std::string& retry : f.retries) std::cout << "  retried: " << retry << "\n";
      if (print) std::cout << ir::print(result.module);
    } catch (const jit::error& e) {
      std::cerr << arg << ": " << e.what() << "\n";
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
