#include "runtime/peg/optimize.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "runtime/dump_request.h"
#include "runtime/ir/printer.h"
#include "runtime/peg/axioms.h"
#include "runtime/peg/optimize_function.h"
#include "runtime/peg/regions.h"

namespace augur::peg {

namespace {

using Clock = std::chrono::steady_clock;

bool dump_requested(const PegOptions& options) {
  if (options.dump) return *options.dump;
  return augur::dump_requested("peg");
}

}  // namespace

std::string PegReport::summary() const {
  const auto us = [](std::chrono::nanoseconds d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(d).count()) + " us";
  };
  std::ostringstream out;
  for (const PegFunctionReport& f : functions) {
    out << f.function << ": ";
    if (f.regions == 0) {
      out << (f.unchanged   ? "optimized (nothing cheaper found: kept as it came)"
              : f.optimized ? "optimized"
                            : "kept (" + f.fallback + ")");
    } else {
      out << f.regions_optimized << " of " << f.regions << " regions optimized (";
      if (f.regions_unchanged > 0)
        out << f.regions_unchanged << " with nothing cheaper found, kept as they came; ";
      out << f.optimized_nodes * 100 / std::max<std::size_t>(f.ir_nodes, 1) << "% of its IR nodes"
          << (f.regions_optimized < f.regions ? "; first kept: " + f.fallback : "") << ")";
    }
    out << "; " << f.ir_nodes << " IR nodes, " << f.peg_nodes << " PEG e-nodes, " << f.egraph_nodes
        << " after " << f.iterations << " iterations ("
        << (f.stop.empty() ? "no saturation" : f.stop) << "), " << f.extractions
        << " extraction(s); to PEG " << us(f.to_peg) << ", saturate " << us(f.saturate)
        << ", extract " << us(f.extract) << " (" << f.extract_work << " steps), revert "
        << us(f.revert);
    if (f.time_nets > 0) out << "; time safety net reached " << f.time_nets << " time(s)";
    if (f.validated)
      out << "; validation " << (*f.validated ? "proved" : "not proved") << " (" << us(f.validate)
          << ")";
    out << "\n";
  }
  out << "total " << us(total) << "\n";
  return out.str();
}

void warm_up() {
  static_cast<void>(builtin_rule_index());
}

PegResult optimize(const ir::Module& module, const PegOptions& options) {
  const Clock::time_point start = Clock::now();
  const bool dump = dump_requested(options);
  PegResult result;
  result.module.externs = module.externs;
  for (const ir::Function& f : module.functions) {
    PegFunctionReport report;
    std::optional<ir::Function> optimized =
        fits_one_region(f, options) ? optimize_function(module, f, options, report, dump)
                                    : optimize_regions(module, f, options, report, dump);
    if (optimized) {
      result.module.functions.push_back(std::move(*optimized));
    } else {
      result.module.functions.push_back(f);
    }
    result.report.functions.push_back(std::move(report));
  }
  // Externs that user rules introduced into the functions they optimized
  // (the kept ones call what the module declares already).
  for (std::size_t i = 0; i < result.module.functions.size(); ++i)
    if (result.report.functions[i].optimized)
      declare_called_externs(result.module, result.module.functions[i]);
  result.report.total = Clock::now() - start;
  if (dump) {
    std::cerr << result.report.summary() << "== after the PEG optimizer\n"
              << ir::print(result.module);
  }
  return result;
}

}  // namespace augur::peg
