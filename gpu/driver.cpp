#include "gpu/driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <optional>

#include "jit/error.h"

namespace augur::gpu {

namespace {

struct Loaded {
  const Driver* driver = nullptr;
  std::string error;
};

template <class F>
bool resolve(void* library, const char* name, F& slot) {
  void* address = dlsym(library, name);
  slot = reinterpret_cast<F>(address);
  return address != nullptr;
}

// Every entry point, or nullopt with the first missing one in `missing`.
std::optional<cu::Api> resolve_all(void* library, std::string& missing) {
  cu::Api api{};
#define AUGUR_RESOLVE(entry)                  \
  if (!resolve(library, #entry, api.entry)) { \
    missing = #entry;                         \
    return std::nullopt;                      \
  }
  AUGUR_RESOLVE(cuInit);
  AUGUR_RESOLVE(cuDriverGetVersion);
  AUGUR_RESOLVE(cuGetErrorName);
  AUGUR_RESOLVE(cuGetErrorString);
  AUGUR_RESOLVE(cuDeviceGetCount);
  AUGUR_RESOLVE(cuDeviceGet);
  AUGUR_RESOLVE(cuDeviceGetName);
  AUGUR_RESOLVE(cuDeviceGetAttribute);
  AUGUR_RESOLVE(cuDeviceTotalMem_v2);
  AUGUR_RESOLVE(cuDevicePrimaryCtxRetain);
  AUGUR_RESOLVE(cuCtxGetCurrent);
  AUGUR_RESOLVE(cuCtxSetCurrent);
  AUGUR_RESOLVE(cuCtxSynchronize);
  AUGUR_RESOLVE(cuModuleLoadData);
  AUGUR_RESOLVE(cuModuleUnload);
  AUGUR_RESOLVE(cuModuleGetFunction);
  AUGUR_RESOLVE(cuLaunchKernel);
  AUGUR_RESOLVE(cuStreamCreate);
  AUGUR_RESOLVE(cuStreamDestroy_v2);
  AUGUR_RESOLVE(cuStreamSynchronize);
  AUGUR_RESOLVE(cuMemAlloc_v2);
  AUGUR_RESOLVE(cuMemFree_v2);
  AUGUR_RESOLVE(cuMemcpyHtoD_v2);
  AUGUR_RESOLVE(cuMemcpyDtoH_v2);
  AUGUR_RESOLVE(cuMemsetD8_v2);
#undef AUGUR_RESOLVE
  return api;
}

Loaded load() {
  const char* override_name = std::getenv("AUGUR_CUDA_DRIVER");
  const std::string name = override_name && *override_name ? override_name : "libcuda.so.1";
  // The library stays loaded for the life of the process: code may run
  // kernels until exit, and unloading a driver is not supported by NVIDIA.
  void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    return {nullptr, "the CUDA driver (" + name +
                         ") could not be loaded: " + (why ? why : "unknown reason")};
  }
  std::string missing;
  const std::optional<cu::Api> resolved = resolve_all(library, missing);
  if (!resolved) {
    return {nullptr, "the CUDA driver (" + name + ") lacks entry point " + missing};
  }
  const cu::Api& api = *resolved;
  int version = 0;
  const Driver probe(api, 0);
  if (const cu::Result r = api.cuInit(0); r != cu::kSuccess) {
    return {nullptr, "cuInit failed: " + probe.describe(r)};
  }
  if (const cu::Result r = api.cuDriverGetVersion(&version); r != cu::kSuccess) {
    return {nullptr, "cuDriverGetVersion failed: " + probe.describe(r)};
  }
  return {new Driver(api, version), {}};
}

const Loaded& loaded() {
  static const Loaded* state = new Loaded(load());  // never destroyed, see load()
  return *state;
}

}  // namespace

const Driver* Driver::get() {
  return loaded().driver;
}

const std::string& Driver::load_error() {
  return loaded().error;
}

std::string Driver::describe(cu::Result result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api_.cuGetErrorName(result, &name) != cu::kSuccess || !name) name = "CUDA_ERROR_UNKNOWN";
  if (api_.cuGetErrorString(result, &text) != cu::kSuccess || !text) text = "no description";
  return std::string(name) + " (" + std::to_string(result) + "): " + text;
}

namespace {

// The errors after which CUDA's context stays broken: a kernel faulted, or
// ran past the display watchdog's limit (CUDA_ERROR_LAUNCH_TIMEOUT: the driver
// kills the context as it does on a fault).
bool context_is_lost(cu::Result result) {
  constexpr cu::Result kIllegalAddress = 700, kLaunchTimeout = 702, kAssert = 710,
                       kFirstFault = 714, kLastFault = 719;
  return result == kIllegalAddress || result == kLaunchTimeout || result == kAssert ||
         (result >= kFirstFault && result <= kLastFault);
}

}  // namespace

void Driver::check(cu::Result result, const char* call) const {
  if (result == cu::kSuccess) return;
  std::string message = std::string(call) + " failed: " + describe(result);
  if (context_is_lost(result)) {
    message +=
        "; a kernel faulted or timed out on the device, which leaves CUDA's context unusable: "
        "every later GPU call in this process fails (the CPU fallback still works)";
  }
  throw jit::gpu_error(message);
}

}  // namespace augur::gpu
