// The staging front end's entry point for the rest of Augur: run a
// generator's first stage and get its IR module and report.
#pragma once

#include <string>

#include "jit/detail/staging.h"
#include "jit/extract.h"
#include "runtime/ir/ir.h"

namespace augur::stage {

struct Extracted {
  ir::Module module;  // one function, named options.name, and the externs it calls
  jit::stage_report report;
};

// Throws jit::staging_error (misuse, non-determinism, budgets, exceptions of
// the first stage, nested), jit::prophecy_error, jit::verify_error (checked
// builds: a bug in Augur).
Extracted extract(const jit::detail::generator& gen, const jit::extract_options& options);

}  // namespace augur::stage

namespace jit::detail {

struct extraction_result {
  augur::stage::Extracted extracted;
};

}  // namespace jit::detail
