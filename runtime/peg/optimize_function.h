// One function (or one region of a function, regions.h) through the PEG
// optimizer: IR → PEG, saturation, extraction, reversion, checks. The
// entry point for users of the optimizer is optimize.h.
#pragma once

#include <optional>
#include <span>

#include "runtime/ir/ir.h"
#include "runtime/peg/optimize.h"

namespace augur::peg {

// The optimized function, or nothing: the input kept (`report.fallback`
// says why) or, where `report.unchanged`, optimized into itself. `outputs` are
// variables of a void function whose final values the result must keep
// (a region's): the optimized body assigns each of them at its end.
std::optional<ir::Function> optimize_function(const ir::Module& module, const ir::Function& f,
                                              const PegOptions& options, PegFunctionReport& report,
                                              bool dump, std::span<const ir::VarId> outputs = {});

// Declares in `module` every extern `f` calls that it lacks (those user rules
// introduced).
void declare_called_externs(ir::Module& module, const ir::Function& f);

}  // namespace augur::peg
