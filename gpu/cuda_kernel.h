// A kernel on the GPU: a function of a loaded module, launched with
// cuLaunchKernel.
#pragma once

#include <memory>
#include <vector>

#include "gpu/device.h"
#include "gpu/image.h"
#include "gpu/kernel_code.h"

namespace augur::gpu {

class CudaKernel final : public KernelCode {
 public:
  // Loads `image` on `device` (once per image) and finds the kernel `cuda_name`.
  CudaKernel(const Device& device, std::shared_ptr<const CompiledImage> image,
             const std::string& cuda_name, std::size_t params, std::string name, std::string ir,
             std::string cuda_source);

  void launch(const LaunchConfig& config) const override;

 private:
  const Device& device_;
  std::shared_ptr<const CompiledImage> image_;  // keeps the module loaded
  cu::Function function_ = nullptr;
  std::size_t params_;
};

}  // namespace augur::gpu
