// Writes every corpus program's IR text to a directory, one file per program
// named <family>_<knob>-<statements>stmts.ir, beside it the C the benchmark
// gives gcc and clang (bench/compile/ir_to_c.h) as <...>stmts.c, and prints a
// table of their shapes and staging costs.
//
//   build/dev/bench/corpus_dump DIR [small|standard|all] [family...]
//
// Sizes default to all (~1k, 10k, 50k and 100k statements per family).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/compile/ir_to_c.h"
#include "bench/corpus/corpus.h"
#include "bench/corpus/ir_stats.h"
#include "runtime/ir/printer.h"
#include "runtime/stage/extract.h"

namespace corpus = augur::bench::corpus;

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: %s DIR [small|standard|all] [family...]\n", argv[0]);
    return EXIT_FAILURE;
  }
  try {
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    const corpus::Sizes sizes = argc > 2 ? corpus::parse_sizes(argv[2]) : corpus::Sizes::all;
    const std::vector<std::string> only(argv + std::min(argc, 3), argv + argc);
    std::printf("%-14s %-8s %10s %6s %6s %7s %7s %5s %8s %10s  %s\n", "program", "family",
                "statements", "loops", "ifs", "stores", "loads", "depth", "runs", "stage ms",
                "description");
    for (const corpus::Program& p : corpus::programs(sizes)) {
      if (!only.empty() && std::find(only.begin(), only.end(), p.family) == only.end()) continue;
      const jit::extraction e = p.stage();
      const augur::ir::Module& module = e.result().extracted.module;
      const corpus::IrStats s = corpus::ir_stats(module.functions.front());
      const std::filesystem::path stem =
          dir / (p.name + "-" + std::to_string(s.statements) + "stmts");
      std::ofstream(stem.string() + ".ir") << augur::ir::print(module);
      std::ofstream(stem.string() + ".c") << augur::bench::ir_to_c(module);
      const double ms =
          std::chrono::duration<double, std::milli>(e.report().first_stage_time).count();
      std::printf("%-14s %-8s %10zu %6zu %6zu %7zu %7zu %5zu %8llu %10.1f  %s\n", p.name.c_str(),
                  p.family.c_str(), s.statements, s.loops, s.branches, s.stores, s.loads, s.depth,
                  static_cast<unsigned long long>(e.report().control_flow_runs), ms,
                  p.description.c_str());
      std::fflush(stdout);
    }
    return EXIT_SUCCESS;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "corpus_dump: %s\n", e.what());
    return EXIT_FAILURE;
  }
}
