// The CUDA Driver API, opened at run time with dlopen("libcuda.so.1"): Augur
// has no link-time dependency on the driver, so it runs (and reports "no GPU")
// on machines without one. AUGUR_CUDA_DRIVER names another library to open
// instead (a driver installed elsewhere, or a test double).
#pragma once

#include <string>

#include "gpu/driver_api.h"

namespace augur::gpu {

class Driver {
 public:
  // The process's driver, loaded and initialized (cuInit) on first use by
  // any thread, and never unloaded. Null if the library cannot be opened,
  // lacks an entry point, or cuInit fails; load_error() says which.
  static const Driver* get();
  static const std::string& load_error();

  const cu::Api& api() const { return api_; }
  int version() const { return version_; }  // e.g. 13000 for CUDA 13.0

  // Throws jit::gpu_error "<call> failed: CUDA_ERROR_...: <the driver's
  // message>" unless `result` is CUDA_SUCCESS.
  void check(cu::Result result, const char* call) const;
  // "CUDA_ERROR_OUT_OF_MEMORY: out of memory".
  std::string describe(cu::Result result) const;

  explicit Driver(const cu::Api& api, int version) : api_(api), version_(version) {}

 private:
  cu::Api api_;
  int version_ = 0;
};

}  // namespace augur::gpu
