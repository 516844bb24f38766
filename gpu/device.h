// The GPU Augur runs kernels on: device AUGUR_GPU_DEVICE (default 0) and its
// primary context, set up on first use. AUGUR_GPU_DISABLE=1 hides it, so a
// machine with a GPU can run the CPU fallback's paths.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "gpu/driver.h"

namespace augur::gpu {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  std::size_t memory_bytes = 0;
  int driver_version = 0;

  // "sm_90": the real architecture NVRTC builds cubins for.
  std::string arch() const;
};

class Device {
 public:
  // The device, or null when there is none; unavailable_reason() says why.
  static const Device* get();
  // Empty when get() is not null.
  static const std::string& unavailable_reason();

  const DeviceInfo& info() const { return info_; }
  const Driver& driver() const { return driver_; }

  // Makes the device's context current on the calling thread unless it is;
  // every call into the driver is preceded by it. It checks the current
  // context each time, so a thread whose application switched devices or
  // contexts in between is bound back (and the context stays current after).
  void bind() const;
  // Throws jit::gpu_error unless `result` is CUDA_SUCCESS (Driver::check).
  void check(cu::Result result, const char* call) const { driver_.check(result, call); }

  Device(const Driver& driver, DeviceInfo info, cu::Context context)
      : driver_(driver), info_(std::move(info)), context_(context) {}

 private:
  const Driver& driver_;
  DeviceInfo info_;
  cu::Context context_;
};

}  // namespace augur::gpu
