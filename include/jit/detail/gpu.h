// The narrow interface between the public GPU templates (buffer, stream,
// kernel, compile) and the GPU backend in gpu/. Nothing here is meant for
// users; names and shapes may change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "jit/detail/staging.h"
#include "jit/gpu/options.h"
#include "jit/key.h"

namespace augur::gpu {
class KernelCode;
}

namespace jit::gpu {
struct statistics;  // jit/gpu.h
}

namespace jit::gpu::detail {

// ---------------------------------------------------------------- memory

// The backend buffers get by default: cuda where a GPU is available.
backend default_backend();
// `bytes` of device memory (cpu: host memory), zeroed; null for 0 bytes.
void* allocate(std::size_t bytes, backend where);

[[noreturn]] void throw_size_overflow(const char* api, std::size_t count, std::size_t size);

// count * size, or a jit::error naming `api` and both when the product does
// not fit in std::size_t: a wrapped size would allocate a small buffer that
// later copies of `count` elements overflow.
inline std::size_t checked_bytes(const char* api, std::size_t count, std::size_t size) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) throw_size_overflow(api, count, size);
  return bytes;
}
void release(void* memory, backend where) noexcept;
void copy_to_device(void* device, const void* host, std::size_t bytes, backend where);
void copy_to_host(void* host, const void* device, std::size_t bytes, backend where);

// ---------------------------------------------------------------- streams

// A CUDA stream (null on the CPU fallback, whose launches are synchronous).
void* create_stream(backend where);
void destroy_stream(void* stream) noexcept;
void synchronize_stream(void* stream, backend where);

// ---------------------------------------------------------------- kernels

using kernel_code = augur::gpu::KernelCode;

// Writes into a kernel's key every option that decides its compiled code.
// Not the disk cache's: they choose where an image may come from, not what
// it is. Compact, so that a key with a few static arguments stays within
// key_writer's inline bytes (a longer one allocates on every lookup): the
// scalars in one block, 32-bit lengths, and arch and NVRTC options only
// where some are given (the block says which).
inline void write_options(key_writer& out, const options& opts) {
  struct scalars {
    int opt_level;
    int cpu_opt_level;
    std::uint32_t name_size;
    target where;
    bool check_cuda;
    bool extras;
    std::uint8_t unused = 0;
  };
  static_assert(std::has_unique_object_representations_v<scalars>);
  const bool extras = !opts.arch.empty() || !opts.nvrtc_options.empty();
  out.write_value(scalars{opts.opt_level, opts.cpu_opt_level,
                          static_cast<std::uint32_t>(opts.name.size()), opts.where, opts.check_cuda,
                          extras});
  out.write(opts.name.data(), opts.name.size());
  if (extras) {
    out.write_string(opts.arch);
    out.write_size(opts.nvrtc_options.size());
    for (const std::string& option : opts.nvrtc_options) out.write_string(option);
  }
}

// The kernel of `key` if the calling thread requested it before (no locks),
// else null.
std::shared_ptr<const kernel_code> find_kernel(std::string_view key, std::uint64_t hash) noexcept;
// The shared cache: a hit, a wait on the thread compiling `key`, or here the
// first stage of `gen` as a kernel, optimized and compiled for the backend
// `opts` selects.
std::shared_ptr<const kernel_code> compile(std::string_view key, std::uint64_t hash,
                                           const jit::detail::generator& gen, const options& opts);

// `params[i]` points at argument i in its C++ type (what cuLaunchKernel
// takes); `bits[i]` is the same argument in the canonical encoding.
void launch(const kernel_code& code, dim3 grid, dim3 block, void** params,
            std::span<const std::uint64_t> bits, void* stream);

backend backend_of(const kernel_code& code);
const std::string& name_of(const kernel_code& code);
const std::string& ir_of(const kernel_code& code);
const std::string& cuda_source_of(const kernel_code& code);

// Throws jit::error if a buffer of `buffer` memory is passed to a kernel on `kernel`.
void check_buffer_backend(backend buffer, backend kernel, std::size_t argument);

// Adds what the backend counts (NVRTC, module loads, launches, the fallback's
// compiles and launches) to `s`, whose cache counters stats() fills.
void add_backend_statistics(statistics& s);

// Runs `job` on Augur's TBB task pool, isolated (jit::detail::run_in_background).
void enqueue(std::function<void()> job);

}  // namespace jit::gpu::detail
