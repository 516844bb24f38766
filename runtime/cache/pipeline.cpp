#include "runtime/cache/pipeline.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jit/cpu/compile.h"
#include "jit/error.h"
#include "runtime/cache/disk_caches.h"
#include "runtime/dump_request.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/peg/optimize.h"
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
std::atomic<std::uint64_t> regions_optimized{0};
std::atomic<std::uint64_t> regions_kept{0};
std::atomic<std::int64_t> optimize_nanoseconds{0};

// The optimized module's machine code, through the disk cache when one is
// enabled: its object if it has a valid one (neither the PEG optimizer nor
// LLVM runs), else a new object, stored for later processes. The disk key is
// the extracted program's, so a hit needs no optimization either.
std::shared_ptr<cpu::CompiledCode> optimize_and_compile(ir::Module& module,
                                                        const jit::compile_options& options,
                                                        const cpu::Options& backend,
                                                        const Version& version) {
  const ir::ExternTable externs = stage::registered_externs();
  DiskCache* disk = disk_cache_for(options.cache_dir);
  const DiskKey key{version.program_hash, version.object_key};
  if (disk) {
    if (std::optional<std::vector<char>> object = disk->load(key)) {
      return cpu::load_object(*object, module, externs);
    }
  }
  optimize(module, options, externs);
#ifdef AUGUR_CHECKED
  ir::verify(module);
#endif
  if (!disk) return cpu::compile(module, externs, backend);
  const std::vector<char> object = cpu::compile_object(module, backend);
  disk->store(key, object);
  return cpu::load_object(object, module, externs);
}

}  // namespace

void optimize(ir::Module& module, const jit::compile_options& options,
              const ir::ExternTable& externs) {
  if (options.opt_level < 2) return;
  peg::PegOptions peg_options;
  peg_options.externs = &externs;  // user rules may introduce registered externs
  peg::PegResult result = peg::optimize(module, peg_options);
  for (const peg::PegFunctionReport& function : result.report.functions) {
    ++(function.optimized ? functions_optimized : functions_kept);
    regions_optimized += function.regions_optimized;
    regions_kept += function.regions - function.regions_optimized;
  }
  optimize_nanoseconds += result.report.total.count();
  module = std::move(result.module);
}

OptimizerCounters optimizer_counters() {
  return {functions_optimized.load(), functions_kept.load(), regions_optimized.load(),
          regions_kept.load(), std::chrono::nanoseconds(optimize_nanoseconds.load())};
}

cpu::Options backend_options(const jit::compile_options& options) {
  cpu::Options backend;
  backend.opt_level = options.opt_level;
  backend.cpu = options.cpu;
  backend.features = options.features;
  backend.invokers = false;
  backend.dump_llvm = options.dump_llvm;
  backend.dump_asm = options.dump_asm;
  if (options.dump_sink) {
    backend.dump_sink = [sink = options.dump_sink](cpu::DumpKind kind, std::string_view,
                                                   std::string_view text) {
      sink(cpu::name_of(kind), text);
    };
  }
  return backend;
}

std::shared_ptr<const Version> compile_version(const jit::detail::generator& gen,
                                               const jit::compile_options& options,
                                               ProgramCache& programs) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    throw jit::error(
        "jit::compile: opt level " + std::to_string(options.opt_level) + " is not in 0..3",
        jit::location::in_function(options.name));
  }
  jit::extract_options staging;
  staging.name = options.name;
  ir::Module module = stage::extract(gen, staging).module;

  // The version is identified by the extracted program: equal programs share
  // one version (and one disk object) before any optimization is spent.
  auto version = std::make_shared<Version>();
  version->program = ir::print(module);
  static const bool environment_ir = dump_requested("ir");
  if (options.dump_ir || environment_ir) dump_ir(options, version->program);

  const cpu::Options backend = backend_options(options);
  version->program_hash = ir::content_hash(module);
  version->object_key = cpu::object_key(backend);
  if (auto shared = programs.find(version->program, version->program_hash, version->object_key)) {
    return shared;
  }
  {
    // Callers may be TBB workers waiting on this compilation's key: the
    // backend's work must not need a free pool worker.
    const cpu::CompileOnThisThread here;
    version->code = optimize_and_compile(module, options, backend, *version);
  }
  version->entry = version->code->address(options.name);
  return programs.publish(std::move(version));
}

}  // namespace augur::cache
