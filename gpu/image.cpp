#include "gpu/image.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "gpu/lru_cache.h"
#include "gpu/statistics.h"
#include "jit/error.h"
#include "runtime/cache/disk_caches.h"

namespace augur::gpu {

namespace {

LruCache<CompiledImage>& memory_cache() {
  static auto* cache = new LruCache<CompiledImage>(256);  // never destroyed: see CompiledImage
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
  cache::DiskCache* disk = chosen.cache;
  const cache::DiskKey disk_key = disk ? image_disk_key(request) : cache::DiskKey{};
  Counters& stats = counters();
  if (chosen.refused) ++stats.disk_refused;
  if (disk) {
    bool rejected = false;
    if (std::optional<std::vector<char>> bytes = disk->load(disk_key, &rejected)) {
      ++stats.disk_hits;
      origin = ImageOrigin::Disk;
      // A real architecture's image is a cubin, a virtual one's PTX (nvrtc.h).
      const bool cubin = request.arch.starts_with("sm_");
      return std::make_shared<const CompiledImage>(
          request.arch, NvrtcImage{std::string(bytes->begin(), bytes->end()), cubin, {}});
    }
    ++(rejected ? stats.disk_rejected : stats.disk_misses);
  }
  origin = ImageOrigin::Nvrtc;
  const auto start = std::chrono::steady_clock::now();
  NvrtcImage image =
      nvrtc_compile(request.source, request.name + ".cu", request.arch, request.options);
  ++stats.nvrtc_compiles;
  stats.nvrtc_nanoseconds += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
  if (disk) ++(disk->store(disk_key, image.bytes) ? stats.disk_writes : stats.disk_write_failures);
  return std::make_shared<const CompiledImage>(request.arch, std::move(image));
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
  const CacheKey key(image_key_text(request));
  ImageOrigin from = ImageOrigin::Memory;
  bool hit = false;
  std::shared_ptr<const CompiledImage> image = memory_cache().get(
      key, [&] { return build(request, from); }, &hit);
  ++(hit ? counters().memory_hits : counters().memory_misses);
  if (origin) *origin = hit ? ImageOrigin::Memory : from;
  return image;
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
