// Device memory and streams behind jit::gpu::buffer and jit::gpu::stream
// (the jit::gpu::detail functions of include/jit/detail/gpu.h).
#include <cstring>
#include <new>
#include <string>

#include "gpu/device.h"
#include "jit/detail/gpu.h"
#include "jit/error.h"

namespace jit::gpu::detail {

namespace {

using augur::gpu::Device;
namespace cu = augur::gpu::cu;

// Host memory of the CPU fallback is aligned like CUDA's allocations.
constexpr std::align_val_t kHostAlignment{256};

const Device& device_or_throw(const char* what) {
  const Device* device = Device::get();
  if (!device) {
    throw jit::gpu_error(std::string(what) + " needs a GPU: " + Device::unavailable_reason());
  }
  device->bind();
  return *device;
}

cu::DevicePtr address(const void* device) {
  return static_cast<cu::DevicePtr>(reinterpret_cast<std::uintptr_t>(device));
}

}  // namespace

backend default_backend() {
  return Device::get() ? backend::cuda : backend::cpu;
}

[[noreturn]] void throw_size_overflow(const char* api, std::size_t count, std::size_t size) {
  throw jit::error(std::string(api) + ": " + std::to_string(count) + " elements of " +
                   std::to_string(size) + " bytes overflow std::size_t");
}

void* allocate(std::size_t bytes, backend where) {
  if (bytes == 0) return nullptr;
  if (where == backend::cpu) {
    void* memory = ::operator new(bytes, kHostAlignment);
    std::memset(memory, 0, bytes);
    return memory;
  }
  const Device& device = device_or_throw("a jit::gpu::buffer");
  cu::DevicePtr pointer = 0;
  device.check(device.driver().api().cuMemAlloc_v2(&pointer, bytes),
               ("cuMemAlloc of " + std::to_string(bytes) + " bytes").c_str());
  try {
    device.check(device.driver().api().cuMemsetD8_v2(pointer, 0, bytes), "cuMemsetD8");
  } catch (...) {
    device.driver().api().cuMemFree_v2(pointer);
    throw;
  }
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(pointer));
}

void release(void* memory, backend where) noexcept {
  if (!memory) return;
  if (where == backend::cpu) {
    ::operator delete(memory, kHostAlignment);
    return;
  }
  // Freeing cannot be reported from a destructor; a failure leaks the memory.
  if (const Device* device = Device::get()) {
    try {
      device->bind();
      device->driver().api().cuMemFree_v2(address(memory));
    } catch (const jit::gpu_error&) {
    }
  }
}

void copy_to_device(void* device_memory, const void* host, std::size_t bytes, backend where) {
  if (bytes == 0) return;
  if (where == backend::cpu) {
    std::memcpy(device_memory, host, bytes);
    return;
  }
  const Device& device = device_or_throw("a copy to the GPU");
  device.check(device.driver().api().cuMemcpyHtoD_v2(address(device_memory), host, bytes),
               "cuMemcpyHtoD");
}

void copy_to_host(void* host, const void* device_memory, std::size_t bytes, backend where) {
  if (bytes == 0) return;
  if (where == backend::cpu) {
    std::memcpy(host, device_memory, bytes);
    return;
  }
  const Device& device = device_or_throw("a copy from the GPU");
  device.check(device.driver().api().cuMemcpyDtoH_v2(host, address(device_memory), bytes),
               "cuMemcpyDtoH");
}

void* create_stream(backend where) {
  if (where == backend::cpu) return nullptr;
  const Device& device = device_or_throw("a jit::gpu::stream");
  cu::Stream stream = nullptr;
  device.check(device.driver().api().cuStreamCreate(&stream, 0), "cuStreamCreate");
  return stream;
}

void destroy_stream(void* stream) noexcept {
  if (!stream) return;
  if (const Device* device = Device::get()) {
    try {
      device->bind();
      device->driver().api().cuStreamDestroy_v2(static_cast<cu::Stream>(stream));
    } catch (const jit::gpu_error&) {
    }
  }
}

void synchronize_stream(void* stream, backend where) {
  if (where == backend::cpu) return;
  const Device& device = device_or_throw("jit::gpu::stream::synchronize");
  device.check(device.driver().api().cuStreamSynchronize(static_cast<cu::Stream>(stream)),
               "cuStreamSynchronize");
}

}  // namespace jit::gpu::detail
