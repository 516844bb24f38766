// One compilation for jit::compile and jit::ir::compile: extract (staged
// programs only) → verify → optimize → a backend (runtime/compile/backend.h)
// through the disk cache, the result shared through the program cache.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "jit/compile_options.h"
#include "jit/detail/compile.h"
#include "jit/detail/staging.h"
#include "runtime/cache/program_cache.h"
#include "runtime/cache/remote_cache.h"
#include "runtime/cache/version.h"
#include "runtime/compile/backend.h"
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
// jit::compile's remote level (remote_cache.h).
const RemoteCounters& remote_cache_counters();

// Throws jit::error for an opt level outside 0..3.
void check_opt_level(const jit::compile_options& options);

// Stages `gen` and compiles the program (compile_module). Throws what staging
// and the backend throw, and jit::error for an opt level outside 0..3.
std::shared_ptr<const Version> compile_version(const jit::detail::generator& gen,
                                               const jit::compile_options& options,
                                               const compile::Backend& backend,
                                               ProgramCache& programs);

// The pipeline after staging, shared by staged programs and jit::ir modules:
// optimizes `module` and compiles it with `backend` (made for `options`),
// its entry the function named options.name, or shares the version of an
// equal program that `programs` holds. `report` describes the staging that
// made the module (empty for a module that was not staged). The module must
// verify.
std::shared_ptr<const Version> compile_module(ir::Module module,
                                              const jit::compile_options& options,
                                              const compile::Backend& backend,
                                              ProgramCache& programs,
                                              jit::stage_report report = {});

// The version for `key` from the process's specialization cache: served, or
// compiled by `compile` (once, however many threads ask), and remembered by
// the calling thread for jit::detail::find_compiled. `name` names the request
// in errors.
jit::detail::compiled_entry compile_cached(
    std::string_view key, std::uint64_t hash, std::string_view name,
    const std::function<std::shared_ptr<const Version>(ProgramCache&)>& compile);

}  // namespace augur::cache
