#include "gpu/device.h"

#include <cstdlib>
#include <string_view>

#include "jit/error.h"

namespace augur::gpu {

namespace {

struct Found {
  const Device* device = nullptr;
  std::string reason;
};

Found open_device() {
  const char* disabled = std::getenv("AUGUR_GPU_DISABLE");
  if (disabled && *disabled && std::string_view(disabled) != "0") {
    return {nullptr, "disabled by AUGUR_GPU_DISABLE"};
  }
  const Driver* driver = Driver::get();
  if (!driver) return {nullptr, Driver::load_error()};
  const cu::Api& api = driver->api();

  int ordinal = 0;
  if (const char* chosen = std::getenv("AUGUR_GPU_DEVICE"); chosen && *chosen) {
    ordinal = std::atoi(chosen);
  }
  int count = 0;
  if (const cu::Result r = api.cuDeviceGetCount(&count); r != cu::kSuccess) {
    return {nullptr, "cuDeviceGetCount failed: " + driver->describe(r)};
  }
  if (count == 0) return {nullptr, "the CUDA driver reports no device"};
  if (ordinal < 0 || ordinal >= count) {
    return {nullptr, "AUGUR_GPU_DEVICE=" + std::to_string(ordinal) + " but there are " +
                         std::to_string(count) + " devices"};
  }

  DeviceInfo info;
  info.ordinal = ordinal;
  info.driver_version = driver->version();
  cu::Device device = 0;
  cu::Context context = nullptr;
  char name[256] = {};
  try {
    driver->check(api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
    driver->check(api.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
    driver->check(
        api.cuDeviceGetAttribute(&info.compute_major, cu::kAttributeComputeCapabilityMajor, device),
        "cuDeviceGetAttribute");
    driver->check(
        api.cuDeviceGetAttribute(&info.compute_minor, cu::kAttributeComputeCapabilityMinor, device),
        "cuDeviceGetAttribute");
    driver->check(
        api.cuDeviceGetAttribute(&info.multiprocessors, cu::kAttributeMultiprocessorCount, device),
        "cuDeviceGetAttribute");
    driver->check(api.cuDeviceTotalMem_v2(&info.memory_bytes, device), "cuDeviceTotalMem");
    // The primary context is shared with the CUDA runtime and other libraries
    // in the process; Augur retains it for the life of the process.
    driver->check(api.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  } catch (const jit::gpu_error& e) {
    return {nullptr, "device " + std::to_string(ordinal) + ": " + e.message()};
  }
  info.name = name;
  return {new Device(*driver, std::move(info), context), {}};
}

const Found& found() {
  static const Found* state = new Found(open_device());  // never destroyed, like the driver
  return *state;
}

}  // namespace

std::string DeviceInfo::arch() const {
  return "sm_" + std::to_string(compute_major * 10 + compute_minor);
}

const Device* Device::get() {
  return found().device;
}

const std::string& Device::unavailable_reason() {
  return found().reason;
}

// Asks the driver rather than remembering what this thread was last given:
// the application may have made another context current on the thread since
// (cudaSetDevice, cuCtxSetCurrent), and cuCtxGetCurrent is a thread-local read.
void Device::bind() const {
  cu::Context current = nullptr;
  check(driver_.api().cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current == context_) return;
  check(driver_.api().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

}  // namespace augur::gpu
