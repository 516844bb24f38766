// Compiled GPU images (cubin or PTX) and the two caches in front of NVRTC.
//
// An image is keyed by the CUDA source, the NVRTC version, the architecture
// and every NVRTC option, in full. A request looks in the in-memory cache (a
// SpecializationCache: least recently used out first), then in the disk
// cache (when a directory is given: the shared augur::cache::DiskCache, in
// <dir>/gpu, through cache::load_or_build), and only then runs NVRTC,
// storing the result in both. Concurrent requests for one key share one
// compilation.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/nvrtc.h"
#include "runtime/cache/disk_cache.h"

namespace augur::gpu {

// A compiled image, and its module on the device once something loads it.
// The module is unloaded when the last reference goes (after the device has
// finished its work, so no kernel of it is still running).
class CompiledImage {
 public:
  CompiledImage(std::string arch, NvrtcImage image)
      : arch_(std::move(arch)), image_(std::move(image)) {}
  ~CompiledImage();
  CompiledImage(const CompiledImage&) = delete;
  CompiledImage& operator=(const CompiledImage&) = delete;

  const std::string& arch() const { return arch_; }
  const NvrtcImage& image() const { return image_; }

  // The function `name` of this image's module on `device`; the first call
  // loads the module (cuModuleLoadData). Throws jit::gpu_error.
  cu::Function function(const Device& device, const std::string& name) const;

 private:
  std::string arch_;
  NvrtcImage image_;
  mutable std::mutex mutex_;
  mutable const Device* device_ = nullptr;
  mutable cu::Module module_ = nullptr;
};

struct ImageRequest {
  std::string source;                             // CUDA C++
  std::string name;                               // names the source in NVRTC's messages
  std::string arch;                               // "sm_90" or "compute_90"
  std::vector<std::string> options;               // after nvrtc_base_options(arch)
  std::optional<std::filesystem::path> disk_dir;  // the disk cache's root, if any
  cache::DirectoryTrust disk_trust = cache::DirectoryTrust::Owner;
};

enum class ImageOrigin : std::uint8_t { Memory, Disk, Nvrtc };

// Throws jit::compile_error with NVRTC's log when the source does not compile.
std::shared_ptr<const CompiledImage> compile_image(const ImageRequest& request,
                                                   ImageOrigin* origin = nullptr);

// The memory cache's capacity in images (default 256), and emptying it.
void set_image_cache_capacity(std::size_t images);
void clear_image_cache();

// The architecture to compile for when the caller names none: AUGUR_GPU_ARCH;
// else the device's (sm_NN) if NVRTC supports it, PTX for the newest
// architecture NVRTC knows if the device is newer; compute_90 without a device.
std::string default_arch();

// The memory cache key of a request (exposed for tests and benchmarks).
std::string image_key_text(const ImageRequest& request);
// The disk cache key of a request: the hash of its source, and the rest of
// image_key_text() as the toolchain line.
cache::DiskKey image_disk_key(const ImageRequest& request);
// Where the disk cache under `root` keeps images.
std::filesystem::path image_disk_directory(const std::filesystem::path& root);

}  // namespace augur::gpu
