// The part of the CUDA Driver API's ABI that Augur uses, declared here so the
// library builds without the CUDA toolkit and never links libcuda: the types
// are cuda.h's (opaque handles, CUdeviceptr), and each entry point is named by
// the versioned symbol that cuda.h's macros select (cuMemAlloc → cuMemAlloc_v2).
#pragma once

#include <cstddef>

namespace augur::gpu::cu {

using Result = int;  // CUresult
using Device = int;  // CUdevice
struct ContextHandle;
using Context = ContextHandle*;  // CUcontext
struct ModuleHandle;
using Module = ModuleHandle*;  // CUmodule
struct FunctionHandle;
using Function = FunctionHandle*;  // CUfunction
struct StreamHandle;
using Stream = StreamHandle*;          // CUstream; null is the default stream
using DevicePtr = unsigned long long;  // CUdeviceptr

inline constexpr Result kSuccess = 0;          // CUDA_SUCCESS
inline constexpr Result kErrorNoDevice = 100;  // CUDA_ERROR_NO_DEVICE

// CUdevice_attribute values.
inline constexpr int kAttributeComputeCapabilityMajor = 75;
inline constexpr int kAttributeComputeCapabilityMinor = 76;
inline constexpr int kAttributeMultiprocessorCount = 16;

// Every entry point Augur calls, by its symbol in libcuda.so.1.
// clang-format off
struct Api {
  Result (*cuInit)(unsigned flags);
  Result (*cuDriverGetVersion)(int* version);
  Result (*cuGetErrorName)(Result error, const char** name);
  Result (*cuGetErrorString)(Result error, const char** text);
  Result (*cuDeviceGetCount)(int* count);
  Result (*cuDeviceGet)(Device* device, int ordinal);
  Result (*cuDeviceGetName)(char* name, int length, Device device);
  Result (*cuDeviceGetAttribute)(int* value, int attribute, Device device);
  Result (*cuDeviceTotalMem_v2)(std::size_t* bytes, Device device);
  Result (*cuDevicePrimaryCtxRetain)(Context* context, Device device);
  Result (*cuCtxGetCurrent)(Context* context);
  Result (*cuCtxSetCurrent)(Context context);
  Result (*cuCtxSynchronize)();
  Result (*cuModuleLoadData)(Module* module, const void* image);
  Result (*cuModuleUnload)(Module module);
  Result (*cuModuleGetFunction)(Function* function, Module module, const char* name);
  Result (*cuLaunchKernel)(Function f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                           unsigned block_x, unsigned block_y, unsigned block_z,
                           unsigned shared_bytes, Stream stream, void** params, void** extra);
  Result (*cuStreamCreate)(Stream* stream, unsigned flags);
  Result (*cuStreamDestroy_v2)(Stream stream);
  Result (*cuStreamSynchronize)(Stream stream);
  Result (*cuMemAlloc_v2)(DevicePtr* pointer, std::size_t bytes);
  Result (*cuMemFree_v2)(DevicePtr pointer);
  Result (*cuMemcpyHtoD_v2)(DevicePtr destination, const void* source, std::size_t bytes);
  Result (*cuMemcpyDtoH_v2)(void* destination, DevicePtr source, std::size_t bytes);
  Result (*cuMemsetD8_v2)(DevicePtr destination, unsigned char value, std::size_t bytes);
};
// clang-format on

}  // namespace augur::gpu::cu
