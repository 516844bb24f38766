#include "runtime/cache/pipeline.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jit/error.h"
#include "runtime/cache/build_id.h"
#include "runtime/cache/disk_caches.h"
#include "runtime/dump_request.h"
#include "runtime/ir/hash.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/peg/optimize.h"
#include "runtime/peg/user_rules.h"
#include "runtime/stage/externs.h"
#include "runtime/stage/extract.h"

namespace augur::cache {

namespace {

void dump_ir(const jit::compile_options& options, const std::string& text) {
  if (options.dump_sink) {
    options.dump_sink("ir", text);
    return;
  }
  // One dump at a time, so that concurrent compilations do not interleave.
  static std::mutex stderr_lock;
  std::lock_guard lock(stderr_lock);
  std::fprintf(stderr, ";; augur ir of %s\n%s\n", options.name.c_str(), text.c_str());
}

std::atomic<std::uint64_t> functions_optimized{0};
std::atomic<std::uint64_t> functions_kept{0};
std::atomic<std::uint64_t> functions_unchanged{0};
std::atomic<std::uint64_t> regions_optimized{0};
std::atomic<std::uint64_t> regions_unchanged{0};
std::atomic<std::uint64_t> regions_kept{0};
std::atomic<std::int64_t> optimize_nanoseconds{0};

DiskCounters disk_counters;

// Everything besides the program that decides its code: the backend's
// toolchain, the Augur build, and at O2 and above what the optimizer reads
// besides the program (the registered rules and the externs they may call).
std::string disk_toolchain(const jit::compile_options& options, const Version& version,
                           const ir::ExternTable& externs) {
  std::string toolchain = version.toolchain + " augur " + std::string(build_id());
  if (options.opt_level >= 2) {
    ir::Module declarations;
    declarations.externs = externs.declarations();
    ir::Hasher registered;
    registered.add(ir::print(declarations));
    toolchain +=
        " rules " + peg::registered_rules_hash().hex() + " externs " + registered.finish().hex();
  }
  return toolchain;
}

// The code in a disk or remote cache entry, or null (reported) if it does not
// load: the caller compiles afresh and its store replaces the entry.
std::shared_ptr<const compile::Code> load_entry(std::span<const char> artifact,
                                                const ir::Module& module,
                                                const ir::ExternTable& externs,
                                                const compile::Backend& backend,
                                                const DiskKey& key) {
  try {
    return backend.load(artifact, module, externs);
  } catch (const jit::error& e) {
    report_disk_cache("cache: rejected the entry " + hex(key_digest(key)) + ": it does not load (" +
                      e.message() + "); compiling it again");
    return nullptr;
  }
}

// The optimized module's code, through the disk and remote caches when they
// are enabled: an artifact from one of them if it has a valid one (neither
// the optimizer nor the backend's compiler runs), else a new artifact, stored
// for later processes. The key is the extracted program's, so a hit needs no
// optimization either.
std::shared_ptr<const compile::Code> optimize_and_compile(ir::Module& module,
                                                          const jit::compile_options& options,
                                                          const compile::Backend& backend,
                                                          const Stores& stores,
                                                          const Version& version) {
  const ir::ExternTable registered =
      stores.externs ? ir::ExternTable{} : stage::registered_externs();
  const ir::ExternTable& externs = stores.externs ? *stores.externs : registered;
  ChosenDiskCache chosen;
  ChosenRemoteCache remote;
  if (stores.disk_cache) {
    chosen =
        disk_cache_for(options.cache_dir, options.cache_dir_group_shared ? DirectoryTrust::Group
                                                                         : DirectoryTrust::Owner);
    remote = remote_cache_for(options.remote_cache, options.remote_cache_key_file);
  }
  if (chosen.refused) ++stores.disk.refused;
  if (remote.off) ++stores.disk.remote.off;
  const auto run_optimizer = [&] {
    optimize(module, options.opt_level, externs);
#ifdef AUGUR_CHECKED
    ir::verify(module);
#endif
  };
  if (!chosen.cache && !remote.cache) {
    run_optimizer();
    return backend.build(module, externs);
  }
  const DiskKey key{disk_toolchain(options, version, externs), version.program};
  return load_or_build(
      CacheLevels{chosen.cache, remote.cache}, key, stores.disk,
      [&](std::span<const char> artifact) {
        return load_entry(artifact, module, externs, backend, key);
      },
      [&] {
        run_optimizer();
        return backend.compile(module);
      },
      [](const std::vector<char>& artifact) { return std::span<const char>(artifact); },
      [&](const std::vector<char>& artifact) { return backend.load(artifact, module, externs); });
}

}  // namespace

void optimize(ir::Module& module, int opt_level, const ir::ExternTable& externs) {
  if (opt_level < 2) return;
  peg::PegOptions peg_options;
  peg_options.externs = &externs;  // user rules may introduce registered externs
  peg::PegResult result = peg::optimize(module, peg_options);
  for (const peg::PegFunctionReport& function : result.report.functions) {
    ++(function.optimized ? functions_optimized : functions_kept);
    functions_unchanged += function.unchanged ? 1 : 0;
    regions_optimized += function.regions_optimized;
    regions_unchanged += function.regions_unchanged;
    regions_kept += function.regions - function.regions_optimized;
  }
  optimize_nanoseconds += result.report.total.count();
  module = std::move(result.module);
}

const DiskCounters& disk_cache_counters() {
  return disk_counters;
}

OptimizerCounters optimizer_counters() {
  return {functions_optimized.load(),
          functions_kept.load(),
          functions_unchanged.load(),
          regions_optimized.load(),
          regions_unchanged.load(),
          regions_kept.load(),
          std::chrono::nanoseconds(optimize_nanoseconds.load())};
}

void check_opt_level(const jit::compile_options& options) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    throw jit::error(
        "jit::compile: opt level " + std::to_string(options.opt_level) + " is not in 0..3",
        jit::location::in_function(options.name));
  }
}

std::shared_ptr<const Version> compile_version(const jit::detail::generator& gen,
                                               const jit::compile_options& options,
                                               const compile::Backend& backend,
                                               ProgramCache& programs) {
  check_opt_level(options);
  jit::extract_options staging = options.extraction;
  staging.name = options.name;
  staging.kernel = false;
  stage::Extracted extracted = stage::extract(gen, staging);
  return compile_module(std::move(extracted.module), options, backend, programs, extracted.report);
}

std::shared_ptr<const Version> compile_module(ir::Module module,
                                              const jit::compile_options& options,
                                              const compile::Backend& backend,
                                              ProgramCache& programs, jit::stage_report report) {
  return compile_program(std::move(module), options, backend, Stores{programs, disk_counters},
                         std::move(report));
}

std::shared_ptr<const Version> compile_program(ir::Module module,
                                               const jit::compile_options& options,
                                               const compile::Backend& backend,
                                               const Stores& stores, jit::stage_report report) {
  check_opt_level(options);
  // The version is identified by the program as it enters: equal programs
  // share one version (and one disk object) before any optimization is spent.
  auto version = std::make_shared<Version>();
  version->stage = std::move(report);
  version->program = ir::print(module);
  static const bool environment_ir = dump_requested("ir");
  if (options.dump_ir || environment_ir) dump_ir(options, version->program);

  version->program_hash = ir::content_hash(module);
  version->toolchain = backend.toolchain();
  if (auto shared =
          stores.programs.find(version->program, version->program_hash, version->toolchain)) {
    return shared;
  }
  version->code = optimize_and_compile(module, options, backend, stores, *version);
  version->entry = backend.entry(*version->code, options.name);
  return stores.programs.publish(std::move(version));
}

}  // namespace augur::cache
