// The device functions of jit/gpu.h and the launch side of jit/detail/gpu.h
// (compiling and caching kernels: runtime/cache/kernels.cpp).
#include "gpu/device.h"
#include "gpu/kernel_code.h"
#include "gpu/statistics.h"
#include "jit/compiler.h"
#include "jit/detail/gpu.h"
#include "jit/error.h"
#include "jit/gpu.h"

namespace jit::gpu {

using augur::gpu::Device;

bool available() {
  return Device::get() != nullptr;
}

std::string unavailable_reason() {
  return Device::get() ? std::string() : Device::unavailable_reason();
}

device_info device() {
  const Device* d = Device::get();
  if (!d) throw gpu_error("no GPU: " + Device::unavailable_reason());
  const augur::gpu::DeviceInfo& info = d->info();
  return {info.name,         info.compute_major,  info.compute_minor, info.multiprocessors,
          info.memory_bytes, info.driver_version, info.arch()};
}

void synchronize() {
  if (const Device* d = Device::get()) {
    d->bind();
    d->check(d->driver().api().cuCtxSynchronize(), "cuCtxSynchronize");
  }
}

namespace detail {

void launch(const kernel_code& code, dim3 grid, dim3 block, void** params,
            std::span<const std::uint64_t> bits, void* stream) {
  code.launch({{grid.x, grid.y, grid.z},
               {block.x, block.y, block.z},
               params,
               bits,
               static_cast<augur::gpu::cu::Stream>(stream)});
}

backend backend_of(const kernel_code& code) {
  return code.where();
}
const std::string& name_of(const kernel_code& code) {
  return code.name();
}
const std::string& ir_of(const kernel_code& code) {
  return code.ir();
}
const std::string& cuda_source_of(const kernel_code& code) {
  return code.cuda_source();
}

void check_buffer_backend(backend buffer, backend kernel, std::size_t argument) {
  if (buffer == kernel) return;
  auto name = [](backend b) { return b == backend::cuda ? "the GPU" : "the CPU fallback"; };
  throw jit::error("argument " + std::to_string(argument) + " of a kernel running on " +
                   name(kernel) + " is a buffer on " + name(buffer) +
                   " (allocate it with the kernel's where())");
}

void add_backend_statistics(statistics& s) {
  const augur::gpu::Counters& c = augur::gpu::counters();
  s.nvrtc_compiles = c.nvrtc_compiles;
  s.nvrtc_time = std::chrono::nanoseconds(c.nvrtc_nanoseconds.load());
  s.module_loads = c.module_loads;
  s.launches = c.launches;
  s.fallback_compiles = c.fallback_compiles;
  s.fallback_launches = c.fallback_launches;
}

void enqueue(std::function<void()> job) {
  // The pool and isolation of jit::compile_async: a worker waiting inside one
  // kernel's compile never starts another job that could wait on it.
  jit::detail::run_in_background(std::move(job));
}

}  // namespace detail
}  // namespace jit::gpu
