#include "gpu/compile.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "gpu/cuda_emitter.h"
#include "gpu/cuda_kernel.h"
#include "gpu/device.h"
#include "gpu/fallback.h"
#include "gpu/image.h"
#include "gpu/statistics.h"
#include "jit/cpu/compile.h"
#include "jit/error.h"
#include "runtime/cache/specialization_cache.h"
#include "runtime/dump_request.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"

namespace augur::gpu {

namespace {

// Fallback kernels by their IR and opt level, shared by every request that
// stages an equal kernel (as images are: image.h).
cache::SpecializationCache& fallback_cache() {
  static auto* cache = new cache::SpecializationCache("the GPU fallback's kernel cache",
                                                      256);  // never destroyed, like the images
  return *cache;
}

const ir::Function& the_kernel(const ir::Module& module) {
  if (module.functions.size() != 1 || !module.functions[0].kernel) {
    throw jit::compile_error("a GPU compilation takes a module holding one kernel");
  }
  return module.functions[0];
}

ImageRequest image_request(const CudaSource& source, const ir::Function& kernel,
                           const jit::gpu::options& options) {
  return {source.text,
          kernel.name,
          options.arch.empty() ? default_arch() : options.arch,
          options.nvrtc_options,
          disk_cache_dir(options),
          disk_cache_trust(options)};
}

}  // namespace

jit::gpu::backend resolve_backend(jit::gpu::target where) {
  switch (where) {
    case jit::gpu::target::cpu:
      return jit::gpu::backend::cpu;
    case jit::gpu::target::cuda:
      if (!Device::get()) {
        throw jit::gpu_error("no GPU to compile for (target::cuda): " +
                             Device::unavailable_reason());
      }
      return jit::gpu::backend::cuda;
    case jit::gpu::target::automatic:
      break;
  }
  return Device::get() ? jit::gpu::backend::cuda : jit::gpu::backend::cpu;
}

std::optional<std::filesystem::path> disk_cache_dir(const jit::gpu::options& options) {
  if (!options.disk_cache) return std::nullopt;
  if (!options.cache_dir.empty()) return std::filesystem::path(options.cache_dir);
  if (const char* dir = ::secure_getenv("AUGUR_CACHE_DIR"); dir && *dir) {
    return std::filesystem::path(dir);
  }
  return std::nullopt;
}

cache::DirectoryTrust disk_cache_trust(const jit::gpu::options& options) {
  if (options.cache_dir.empty()) {
    const char* shared = ::secure_getenv("AUGUR_CACHE_SHARED");
    if (shared && std::string_view(shared) == "group") return cache::DirectoryTrust::Group;
    return cache::DirectoryTrust::Owner;
  }
  return options.cache_dir_group_shared ? cache::DirectoryTrust::Group
                                        : cache::DirectoryTrust::Owner;
}

std::shared_ptr<const KernelCode> compile_kernel(const ir::Module& module,
                                                 const jit::gpu::options& options) {
  const ir::Function& kernel = the_kernel(module);
  ir::verify(module);
  const jit::gpu::backend backend = resolve_backend(options.where);
  CudaSource source = emit_cuda(module);
  std::string ir_text = ir::print(module);
  if (dump_requested("cuda")) {
    const std::string text = "augur cuda: " + kernel.name + "\n" + source.text;
    std::fwrite(text.data(), 1, text.size(), stderr);
  }

  if (backend == jit::gpu::backend::cuda) {
    const Device& device = *Device::get();
    ImageOrigin origin{};
    std::shared_ptr<const CompiledImage> image =
        compile_image(image_request(source, kernel, options), &origin);
    if (origin == ImageOrigin::Memory) ++counters().programs_shared;
    return std::make_shared<const CudaKernel>(
        device, std::move(image), source.cuda_name(kernel.name), kernel.num_params, kernel.name,
        std::move(ir_text), std::move(source.text));
  }

  if (options.check_cuda) compile_image(image_request(source, kernel, options));
  const std::string key =
      "augur gpu fallback 1\nopt " + std::to_string(options.cpu_opt_level) + "\n" + ir_text;
  bool built = false;
  cache::Value code = fallback_cache()
                          .get(key, jit::detail::hash_key(key), kernel.name,
                               [&]() -> cache::Value {
                                 built = true;
                                 // Threads waiting for this key may hold every pool worker
                                 // (compile_async jobs): the backend's work must not need one, as
                                 // in the CPU pipeline.
                                 const cpu::CompileOnThisThread here;
                                 return std::make_shared<const FallbackKernel>(
                                     kernel, options.cpu_opt_level, ir_text, source.text);
                               })
                          .value;
  if (!built) ++counters().programs_shared;
  return std::static_pointer_cast<const FallbackKernel>(std::move(code));
}

void set_fallback_cache_capacity(std::size_t kernels) {
  fallback_cache().set_capacity(kernels);
}

void clear_fallback_cache() {
  fallback_cache().clear();
}

}  // namespace augur::gpu
