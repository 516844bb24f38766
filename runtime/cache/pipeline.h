// One compilation for jit::compile: extract → verify → optimize → CPU backend,
// the result shared through the program cache.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "jit/compile_options.h"
#include "jit/cpu/options.h"
#include "jit/detail/staging.h"
#include "runtime/cache/program_cache.h"
#include "runtime/cache/version.h"
#include "runtime/ir/externs.h"
#include "runtime/ir/ir.h"

namespace augur::cache {

// The optimizer's place in the pipeline, between staging and the backend, for
// CPU functions and GPU kernels alike: the PEG optimizer (runtime/peg) with
// the registered user rules at O2 and above, under its JIT budget; it keeps
// any function it cannot improve safely. `externs` declares the registered
// externs user rules may introduce (none for a kernel, which cannot call the host).
void optimize(ir::Module& module, int opt_level, const ir::ExternTable& externs);

// What optimize() did in this process.
struct OptimizerCounters {
  std::uint64_t functions_optimized = 0;
  std::uint64_t functions_kept = 0;
  std::uint64_t regions_optimized = 0;
  std::uint64_t regions_kept = 0;
  std::chrono::nanoseconds time{0};
};
OptimizerCounters optimizer_counters();

// What the disk cache did for jit::compile in this process (jit::cache_stats).
struct DiskCacheCounters {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t rejected = 0;  // files the cache rejected, and entries that did not load
  std::uint64_t writes = 0;
  std::uint64_t write_failures = 0;
  std::uint64_t refused = 0;  // compiles whose named directory was refused
};
DiskCacheCounters disk_cache_counters();

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
