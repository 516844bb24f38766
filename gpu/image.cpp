#include "gpu/image.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "gpu/disk_cache.h"
#include "gpu/lru_cache.h"
#include "gpu/statistics.h"
#include "jit/error.h"

namespace augur::gpu {

namespace {

constexpr std::uint32_t kCubinFlag = 1;

LruCache<CompiledImage>& memory_cache() {
  static auto* cache = new LruCache<CompiledImage>(256);  // never destroyed: see CompiledImage
  return *cache;
}

const std::string& nvrtc_version_text() {
  static const auto* version = new std::string(nvrtc_version());
  return *version;
}

void warn(const std::string& message) {
  std::fprintf(stderr, "augur: warning: %s\n", message.c_str());
}

std::shared_ptr<const CompiledImage> build(const ImageRequest& request, const CacheKey& key,
                                           ImageOrigin& origin) {
  std::optional<DiskCache> disk;
  if (request.disk_dir) disk.emplace(*request.disk_dir);
  Counters& stats = counters();
  if (disk) {
    DiskResult found = disk->load(key);
    switch (found.status) {
      case DiskLookup::Hit:
        ++stats.disk_hits;
        origin = ImageOrigin::Disk;
        return std::make_shared<const CompiledImage>(
            request.arch,
            NvrtcImage{
                std::move(found.entry->payload), (found.entry->flags & kCubinFlag) != 0, {}});
      case DiskLookup::Missing:
        ++stats.disk_misses;
        break;
      case DiskLookup::Corrupt:
      case DiskLookup::Foreign:
        ++stats.disk_rejected;
        warn("ignoring GPU cache file " + found.problem + "; rebuilding it");
        break;
    }
  }
  origin = ImageOrigin::Nvrtc;
  const auto start = std::chrono::steady_clock::now();
  NvrtcImage image =
      nvrtc_compile(request.source, request.name + ".cu", request.arch, request.options);
  ++stats.nvrtc_compiles;
  stats.nvrtc_nanoseconds += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
  if (disk) {
    try {
      disk->store(key, {image.bytes, image.cubin ? kCubinFlag : 0});
      ++stats.disk_writes;
    } catch (const jit::error& e) {
      warn(e.message() + " (the image is used without being cached on disk)");
    }
  }
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
  std::string key =
      "augur gpu image 1\nnvrtc " + nvrtc_version_text() + "\narch " + request.arch + "\noptions";
  for (const std::string& option : nvrtc_base_options(request.arch)) key += " " + option;
  for (const std::string& option : request.options) key += "\x1f" + option;
  return key + "\n" + request.source;
}

std::shared_ptr<const CompiledImage> compile_image(const ImageRequest& request,
                                                   ImageOrigin* origin) {
  const CacheKey key(image_key_text(request));
  ImageOrigin from = ImageOrigin::Memory;
  bool hit = false;
  std::shared_ptr<const CompiledImage> image = memory_cache().get(
      key, [&] { return build(request, key, from); }, &hit);
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
