// Runs the PEG optimizer on IR text files and prints its report: a tool for
// looking at one program's phases (with --print, the result; with
// --print-kept, each region of a large function that was kept, and why, in
// a form this tool reads back to optimize that region alone).
//
//   build/dev/bench/peg_file [--print] [--print-kept] [--no-saturate] [--region-nodes N]
//                             [--[no-]straight-line] [--iterations N] [--growth BASE PER_NODE]
//                             [--time-ms MS] FILE.ir...
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/peg/optimize.h"
#include "runtime/peg/optimize_function.h"

namespace {

using namespace augur;

// --print-kept writes a kept region as this line, the variables whose final
// values the region must keep, then the region; such a file is optimized as
// that region again.
constexpr std::string_view kOutputsLine = "// region outputs:";

std::optional<std::vector<ir::VarId>> outputs_line(const std::string& text,
                                                   const ir::Module& module) {
  const std::size_t at = text.find(kOutputsLine);
  if (at == std::string::npos || module.functions.size() != 1) return std::nullopt;
  const std::size_t end = text.find('\n', at);
  std::istringstream names(text.substr(at + kOutputsLine.size(), end - at - kOutputsLine.size()));
  std::vector<ir::VarId> outputs;
  for (std::string name; names >> name;) {
    const ir::VarId v = module.functions.front().find_var(name);
    if (!v.valid()) throw jit::error("region outputs: no variable " + name);
    outputs.push_back(v);
  }
  return outputs;
}

void optimize_region(const ir::Module& module, std::span<const ir::VarId> outputs,
                     const peg::PegOptions& options, bool print) {
  peg::PegReport report;
  report.functions.emplace_back();
  const ir::Function& f = module.functions.front();
  report.functions.back().function = f.name;
  const char* dump = std::getenv("AUGUR_DUMP");
  const std::optional<ir::Function> out = peg::optimize_function(
      module, f, options, report.functions.back(),
      options.dump.value_or(dump && std::string_view(dump).find("peg") != std::string_view::npos),
      outputs);
  std::cout << "as a region:\n" << report.summary();
  for (const std::string& retry : report.functions.back().retries)
    std::cout << "  retried: " << retry << "\n";
  if (print && out) std::cout << ir::print(*out);
}

}  // namespace

int main(int argc, char** argv) {
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
      options.on_kept_region = [](const ir::Function& region, std::span<const ir::VarId> outputs,
                                  const peg::PegFunctionReport& r) {
        std::cout << "kept region (" << r.fallback << "):\n" << kOutputsLine;
        for (ir::VarId v : outputs) std::cout << " " << region.var(v).name;
        std::cout << "\n" << ir::print(region);
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
    if (arg == "--straight-line" || arg == "--no-straight-line") {
      options.straight_line_regions = arg == "--straight-line";
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
      if (const std::optional<std::vector<ir::VarId>> outputs = outputs_line(text.str(), module)) {
        optimize_region(module, *outputs, options, print);
        continue;
      }
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
