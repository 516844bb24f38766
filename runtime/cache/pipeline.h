// One compilation for jit::compile, jit::ir::compile and jit::gpu::compile:
// extract (staged programs only) → verify → optimize → a backend
// (runtime/compile/backend.h) through the disk cache, the result shared
// through the program cache.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "jit/compile_options.h"
#include "jit/detail/compile.h"
#include "jit/detail/staging.h"
#include "runtime/cache/disk_caches.h"
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
  std::uint64_t functions_unchanged = 0;
  std::uint64_t regions_optimized = 0;
  std::uint64_t regions_unchanged = 0;
  std::uint64_t regions_kept = 0;
  std::chrono::nanoseconds time{0};
};
OptimizerCounters optimizer_counters();

// What the disk cache did for jit::compile and jit::ir in this process
// (jit::cache_stats).
const DiskCounters& disk_cache_counters();

// Copies `disk` and its remote level into the disk_* and remote_* fields of a
// public statistics struct (jit::cache_statistics, jit::gpu::statistics).
template <class Statistics>
void copy_store_counters(const DiskCounters& disk, Statistics& s) {
  s.disk_hits = disk.hits;
  s.disk_misses = disk.misses;
  s.disk_rejected = disk.rejected;
  s.disk_writes = disk.writes;
  s.disk_write_failures = disk.write_failures;
  s.disk_refused = disk.refused;
  const RemoteCounters& remote = disk.remote;
  s.remote_hits = remote.hits.load();
  s.remote_misses = remote.misses.load();
  s.remote_writes = remote.writes.load();
  s.remote_rejected = remote.rejected.load();
  s.remote_errors = remote.errors.load();
  s.remote_skipped = remote.skipped.load();
  s.remote_waits = remote.waits.load();
  s.remote_wait_timeouts = remote.wait_timeouts.load();
  s.remote_off = remote.off.load();
  s.remote_time = std::chrono::nanoseconds(remote.nanoseconds.load());
}

// Throws jit::error for an opt level outside 0..3.
void check_opt_level(const jit::compile_options& options);

// Stages `gen` and compiles the program (compile_module). Throws what staging
// and the backend throw, and jit::error for an opt level outside 0..3.
std::shared_ptr<const Version> compile_version(const jit::detail::generator& gen,
                                               const jit::compile_options& options,
                                               const compile::Backend& backend,
                                               ProgramCache& programs);

// What one pipeline keeps apart from the others: jit::compile's and jit::ir's
// (compile_module), jit::gpu::compile's (kernels.cpp).
struct Stores {
  ProgramCache& programs;  // versions by program and toolchain
  DiskCounters& disk;      // what its disk cache did
  bool disk_cache = true;  // false: never read or write the disk cache
  // The externs user rules may introduce and the code is bound to; null: the
  // registered ones (jit::external).
  const ir::ExternTable* externs = nullptr;
};

// The pipeline after staging, for every backend: the version of an equal
// program (IR text, backend toolchain) that `stores.programs` holds, or
// `module` optimized and compiled with `backend` (made for `options`), its
// artifact loaded from or stored in the disk cache that options.cache_dir
// (else AUGUR_CACHE_DIR) names, keyed by the program and the toolchain. Its
// entry is the function named options.name. `report` describes the staging
// that made the module (empty for a module that was not staged). The module
// must verify.
std::shared_ptr<const Version> compile_program(ir::Module module,
                                               const jit::compile_options& options,
                                               const compile::Backend& backend,
                                               const Stores& stores, jit::stage_report report = {});

// compile_program with jit::compile's stores and the registered externs,
// shared by staged programs and jit::ir modules:
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
