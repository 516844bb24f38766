#include "gpu/cuda_kernel.h"

#include "gpu/statistics.h"

namespace augur::gpu {

CudaKernel::CudaKernel(const Device& device, std::shared_ptr<const CompiledImage> image,
                       const std::string& cuda_name, std::size_t params, std::string name,
                       std::string ir, std::string cuda_source)
    : KernelCode(jit::gpu::backend::cuda, std::move(name), std::move(ir), std::move(cuda_source)),
      device_(device),
      image_(std::move(image)),
      function_(image_->function(device, cuda_name)),
      params_(params) {}

void CudaKernel::launch(const LaunchConfig& config) const {
  check_launch(name(), config, params_);
  device_.bind();
  // Shared arrays are static in the source: no dynamic shared memory.
  device_.check(device_.driver().api().cuLaunchKernel(
                    function_, config.grid.x, config.grid.y, config.grid.z, config.block.x,
                    config.block.y, config.block.z, 0, config.stream, config.params, nullptr),
                "cuLaunchKernel");
  ++counters().launches;
}

}  // namespace augur::gpu
