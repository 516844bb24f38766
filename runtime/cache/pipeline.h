// One compilation for jit::compile: extract → verify → optimize → CPU backend,
// the result shared through the program cache.
#pragma once

#include <memory>

#include "jit/compile_options.h"
#include "jit/detail/staging.h"
#include "jit/options.h"
#include "runtime/cache/program_cache.h"
#include "runtime/cache/version.h"
#include "runtime/ir/ir.h"

namespace augur::cache {

// The optimizer's place in the pipeline, between staging and the backend.
// The PEG optimizer (runtime/peg) is not wired in yet: the module passes
// through unchanged.
void optimize(ir::Module& module, const jit::compile_options& options);

// The CPU backend's options for `options`. jit::function calls the C ABI
// entry only, so no invokers are generated.
cpu::Options backend_options(const jit::compile_options& options);

// Stages `gen` and compiles the program, or shares the version of an equal
// program that `programs` holds. Throws what staging and the backend throw,
// and jit::error for an opt level outside 0..3.
std::shared_ptr<const Version> compile_version(const jit::detail::generator& gen,
                                               const jit::compile_options& options,
                                               ProgramCache& programs);

}  // namespace augur::cache
