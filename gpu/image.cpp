#include "gpu/image.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <span>

#include "gpu/statistics.h"
#include "jit/error.h"
#include "runtime/cache/disk_caches.h"
#include "runtime/cache/specialization_cache.h"

namespace augur::gpu {

namespace {

// Images by their full key (image_key_text), shared by every kernel whose
// CUDA source and NVRTC options are equal: the specialization cache's class,
// one build per key however many threads ask, failures not kept.
cache::SpecializationCache& memory_cache() {
  static auto* cache = new cache::SpecializationCache("the GPU image cache",
                                                      256);  // never destroyed: see CompiledImage
  return *cache;
}

const std::string& nvrtc_version_text() {
  static const auto* version = new std::string(nvrtc_version());
  return *version;
}

// Everything but the source that decides an image, on one line. User options
// are separated by \x1f so that no two option lists read alike.
std::string image_toolchain(const ImageRequest& request) {
  std::string toolchain = "nvrtc " + nvrtc_version_text() + " arch " + request.arch + " options";
  for (const std::string& option : nvrtc_base_options(request.arch)) toolchain += " " + option;
  for (const std::string& option : request.options) toolchain += "\x1f" + option;
  return toolchain;
}

// The shared disk cache under the request's root; none when none is asked
// for, or when its directory is refused (reported: the image is compiled
// without it).
cache::ChosenDiskCache disk_cache_of(const ImageRequest& request) {
  if (!request.disk_dir) return {};
  const std::filesystem::path directory = image_disk_directory(*request.disk_dir);
  return cache::disk_cache_for(directory.string(), request.disk_trust);
}

std::shared_ptr<const CompiledImage> build(const ImageRequest& request, ImageOrigin& origin) {
  const cache::ChosenDiskCache chosen = disk_cache_of(request);
  Counters& stats = counters();
  if (chosen.refused) ++stats.disk.refused;
  const auto nvrtc = [&] {
    origin = ImageOrigin::Nvrtc;
    const auto start = std::chrono::steady_clock::now();
    NvrtcImage image =
        nvrtc_compile(request.source, request.name + ".cu", request.arch, request.options);
    ++stats.nvrtc_compiles;
    stats.nvrtc_nanoseconds +=
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now() - start)
                                       .count());
    return image;
  };
  const auto loaded = [&](NvrtcImage image) {
    return std::make_shared<const CompiledImage>(request.arch, std::move(image));
  };
  if (!chosen.cache) return loaded(nvrtc());
  return cache::load_or_build(
      *chosen.cache, image_disk_key(request), stats.disk,
      [&](const std::vector<char>& bytes) {
        origin = ImageOrigin::Disk;
        // A real architecture's image is a cubin, a virtual one's PTX (nvrtc.h).
        const bool cubin = request.arch.starts_with("sm_");
        return loaded(NvrtcImage{std::string(bytes.begin(), bytes.end()), cubin, {}});
      },
      nvrtc, [](const NvrtcImage& image) { return std::span<const char>(image.bytes); }, loaded);
}

}  // namespace

CompiledImage::~CompiledImage() {
  if (!module_) return;
  // Kernels of the module may still be running: let the device finish first.
  // Errors cannot be reported from here, and the module goes either way.
  try {
    device_->bind();
    device_->driver().api().cuCtxSynchronize();
    device_->driver().api().cuModuleUnload(module_);
  } catch (const jit::gpu_error&) {
  }
}

cu::Function CompiledImage::function(const Device& device, const std::string& name) const {
  std::lock_guard lock(mutex_);
  device.bind();
  const cu::Api& api = device.driver().api();
  if (!module_) {
    cu::Module module = nullptr;
    device.check(api.cuModuleLoadData(&module, image_.bytes.data()), "cuModuleLoadData");
    module_ = module;
    device_ = &device;
    ++counters().module_loads;
  }
  cu::Function function = nullptr;
  device.check(api.cuModuleGetFunction(&function, module_, name.c_str()), "cuModuleGetFunction");
  return function;
}

std::string image_key_text(const ImageRequest& request) {
  return image_toolchain(request) + "\n" + request.source;
}

cache::DiskKey image_disk_key(const ImageRequest& request) {
  return {image_toolchain(request), request.source};
}

std::filesystem::path image_disk_directory(const std::filesystem::path& root) {
  return root / "gpu";
}

std::shared_ptr<const CompiledImage> compile_image(const ImageRequest& request,
                                                   ImageOrigin* origin) {
  const std::string key = image_key_text(request);
  // Stays Memory unless this thread builds the image (another thread's build
  // in flight is waited for, which is a memory hit too).
  ImageOrigin from = ImageOrigin::Memory;
  cache::Value image = memory_cache()
                           .get(key, jit::detail::hash_key(key), request.name,
                                [&]() -> cache::Value { return build(request, from); })
                           .value;
  if (origin) *origin = from;
  return std::static_pointer_cast<const CompiledImage>(std::move(image));
}

void set_image_cache_capacity(std::size_t images) {
  memory_cache().set_capacity(images);
}

void clear_image_cache() {
  memory_cache().clear();
}

std::string default_arch() {
  if (const char* chosen = std::getenv("AUGUR_GPU_ARCH"); chosen && *chosen) return chosen;
  const Device* device = Device::get();
  if (!device || !have_nvrtc()) return "compute_90";
  const std::string arch = device->info().arch();
  const std::vector<std::string> supported = nvrtc_architectures();
  if (std::find(supported.begin(), supported.end(), arch) != supported.end()) return arch;
  // A device newer than this NVRTC: PTX for the newest architecture it knows,
  // which the driver compiles for the device when loading it.
  if (!supported.empty()) return "compute_" + supported.back().substr(3);
  return "compute_90";
}

}  // namespace augur::gpu
