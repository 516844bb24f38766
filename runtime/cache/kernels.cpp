// jit::gpu::compile's pipeline and the kernel caches' public entry points
// (jit/gpu/kernel.h, jit/gpu.h), the GPU twin of api.cpp:
//
//   key (generator, options, static arguments) → this thread's LocalCache →
//   the kernels' SpecializationCache (one compilation per key, deadlocks
//   detected) → stage → compile_program (pipeline.h: the kernels'
//   ProgramCache, PEG at O2+, the disk cache) with the GPU backend
//   (compile::gpu_backend), seen through the Backend interface only.
//
// Kernels have their own caches, not jit::compile's: a kernel is no native
// entry point, and jit::gpu::clear_cache() and set_cache_capacity() act on
// kernels alone. The disk cache is the one jit::compile uses (the backend's
// toolchain keeps their entries apart), with its own counters.
#include <memory>
#include <string>

#include "jit/error.h"
#include "jit/gpu.h"
#include "runtime/cache/disk_caches.h"
#include "runtime/cache/local_cache.h"
#include "runtime/cache/pipeline.h"
#include "runtime/cache/program_cache.h"
#include "runtime/cache/specialization_cache.h"
#include "runtime/compile/backends.h"
#include "runtime/stage/extract.h"

namespace augur::cache {
namespace {

constexpr std::size_t kDefaultCapacity = 256;

// Never destroyed: kernels may be launched until the process exits.
SpecializationCache& kernels() {
  static auto* const cache = new SpecializationCache("jit::gpu::compile", kDefaultCapacity);
  return *cache;
}

ProgramCache& kernel_programs() {
  static auto* const programs = new ProgramCache();
  return *programs;
}

DiskCounters& kernel_disk() {
  static auto* const counters = new DiskCounters();
  return *counters;
}

LocalCache& local_kernels() {
  thread_local LocalCache cache(kernels());
  return cache;
}

// What of the kernel's options the pipeline reads.
jit::compile_options pipeline_options(const jit::gpu::options& options) {
  jit::compile_options pipeline;
  pipeline.name = options.name;
  pipeline.opt_level = options.opt_level;
  pipeline.cache_dir = options.cache_dir;
  pipeline.cache_dir_group_shared = options.cache_dir_group_shared;
  pipeline.remote_cache = options.remote_cache;
  pipeline.remote_cache_key_file = options.remote_cache_key_file;
  return pipeline;
}

// The kernel, which the version holds and keeps alive.
Value stage_and_compile(const jit::detail::generator& gen, const jit::gpu::options& options) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    throw jit::error(
        "jit::gpu::compile: opt level " + std::to_string(options.opt_level) + " is not in 0..3",
        jit::location::in_function(options.name));
  }
  jit::extract_options extraction;
  extraction.name = options.name;
  extraction.kernel = true;
  stage::Extracted extracted = stage::extract(gen, extraction);
  const auto backend = compile::gpu_backend(options);
  // A kernel calls no host function but the scans, so no extern is offered to
  // user rules: a rule that would introduce a call does not apply
  // (runtime/peg/user_rules.h).
  static const ir::ExternTable no_externs;
  const Stores stores{kernel_programs(), kernel_disk(), options.disk_cache, &no_externs};
  std::shared_ptr<const Version> version =
      compile_program(std::move(extracted.module), pipeline_options(options), *backend, stores,
                      std::move(extracted.report));
  // The GPU backend's entry is the kernel object (compile::gpu_backend).
  const auto* kernel = static_cast<const jit::gpu::detail::kernel_code*>(version->entry);
  return std::shared_ptr<const jit::gpu::detail::kernel_code>(std::move(version), kernel);
}

}  // namespace
}  // namespace augur::cache

namespace jit::gpu {

namespace detail {

std::shared_ptr<const kernel_code> find_kernel(std::string_view key, std::uint64_t hash) noexcept {
  jit::detail::compiled_entry entry;
  if (!augur::cache::local_kernels().find(key, hash, entry)) return nullptr;
  return std::static_pointer_cast<const kernel_code>(std::move(entry.owner));
}

std::shared_ptr<const kernel_code> compile(std::string_view key, std::uint64_t hash,
                                           const jit::detail::generator& gen, const options& opts) {
  using namespace augur::cache;
  const Found found =
      kernels().get(key, hash, opts.name, [&]() -> Value { return stage_and_compile(gen, opts); });
  local_kernels().remember(key, hash, found, nullptr, nullptr);
  return std::static_pointer_cast<const kernel_code>(found.value);
}

}  // namespace detail

statistics stats() {
  using namespace augur::cache;
  const SharedCounters keyed = kernels().counters();
  statistics s;
  s.memory_hits = keyed.hits + LocalCache::total_hits(kernels());
  s.memory_misses = keyed.misses;
  s.compiles = keyed.compiles;
  s.failures = keyed.failures;
  s.programs_shared = kernel_programs().shared();
  copy_store_counters(kernel_disk(), s);
  detail::add_backend_statistics(s);
  return s;
}

void set_cache_capacity(std::size_t kernels) {
  augur::cache::kernels().set_capacity(kernels);
}

void clear_cache() {
  augur::cache::kernels().clear();
}

}  // namespace jit::gpu
