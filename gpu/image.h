// Compiled GPU images (cubin or PTX): NVRTC's result for one kernel's CUDA
// source, and its module once a device loads it. Caching images (in memory by
// program, on disk by program and toolchain) is the compile pipeline's
// (runtime/cache/pipeline.h), which gets them through the GPU backend
// (gpu_backend.cpp) as artifacts.
#pragma once

#include <mutex>
#include <span>
#include <string>

#include "gpu/device.h"
#include "gpu/nvrtc.h"

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

// Everything but the source that decides an image, on one line: the NVRTC
// version, the architecture and every option (Augur's, then `options`,
// separated by \x1f so that no two option lists read alike).
std::string image_toolchain(const std::string& arch, std::span<const std::string> options);

// NVRTC on `source` (named `name` in its messages), counted in the backend's
// statistics. Throws jit::compile_error with NVRTC's log.
NvrtcImage compile_image(const std::string& source, const std::string& name,
                         const std::string& arch, std::span<const std::string> options);

// The architecture to compile for when the caller names none: AUGUR_GPU_ARCH;
// else the device's (sm_NN) if NVRTC supports it, PTX for the newest
// architecture NVRTC knows if the device is newer; compute_90 without a device.
std::string default_arch();

}  // namespace augur::gpu
