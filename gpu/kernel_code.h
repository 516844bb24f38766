// One compiled kernel, on the GPU (cuda_kernel.h) or on the CPU fallback
// (fallback.h): what a jit::gpu::kernel refers to. It is the GPU backend's
// compile::Code (gpu_backend.cpp), and its own entry: Backend::entry gives
// the pipeline this object's address.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "gpu/driver_api.h"
#include "jit/gpu/options.h"
#include "runtime/compile/backend.h"
#include "runtime/ir/interp.h"

namespace augur::gpu {

struct LaunchConfig {
  ir::Dim3 grid;
  ir::Dim3 block;
  void** params = nullptr;              // each argument in its C++ type
  std::span<const std::uint64_t> bits;  // each argument's canonical bits
  cu::Stream stream = nullptr;
};

class KernelCode : public compile::Code {
 public:
  KernelCode(jit::gpu::backend where, std::string name, std::string ir, std::string cuda_source)
      : where_(where),
        name_(std::move(name)),
        ir_(std::move(ir)),
        cuda_source_(std::move(cuda_source)) {}
  KernelCode(const KernelCode&) = delete;
  KernelCode& operator=(const KernelCode&) = delete;

  // Throws jit::error for a bad grid or argument count, jit::gpu_error for a
  // failed launch.
  virtual void launch(const LaunchConfig& config) const = 0;

  jit::gpu::backend where() const { return where_; }
  const std::string& name() const { return name_; }
  const std::string& ir() const { return ir_; }
  const std::string& cuda_source() const { return cuda_source_; }

 private:
  jit::gpu::backend where_;
  std::string name_;
  std::string ir_;
  std::string cuda_source_;
};

// Throws jit::error naming `kernel` unless every extent is at least 1 and
// the argument count is `params`.
void check_launch(const std::string& kernel, const LaunchConfig& config, std::size_t params);

}  // namespace augur::gpu
