// Device memory and streams.
//
//   jit::gpu::buffer<float> v(host_vector);      // allocated on the device, copied in
//   kernel.launch(grid, block, v, n);            // buffers pass as device pointers
//   std::vector<float> out = v.to_vector();      // copied back
//
// On the CPU fallback a buffer is host memory and the copies are memcpy, so
// the same program runs with or without a GPU.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "jit/detail/gpu.h"
#include "jit/error.h"

namespace jit::gpu {

// `count` elements of T on one backend, zeroed at allocation. Moves, does not copy.
template <class T>
class buffer {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>,
                "jit::gpu::buffer<T>: T is a trivially copyable, non-const type");

 public:
  buffer() = default;
  explicit buffer(std::size_t count, backend where = detail::default_backend())
      : data_(static_cast<T*>(
            detail::allocate(detail::checked_bytes("jit::gpu::buffer", count, sizeof(T)), where))),
        count_(count),
        where_(where) {}
  // A buffer holding a copy of `host`.
  explicit buffer(std::span<const T> host, backend where = detail::default_backend())
      : buffer(host.size(), where) {
    copy_from(host);
  }
  explicit buffer(const std::vector<T>& host, backend where = detail::default_backend())
      : buffer(std::span<const T>(host), where) {}
  ~buffer() { detail::release(data_, where_); }
  buffer(buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        count_(std::exchange(other.count_, 0)),
        where_(other.where_) {}
  buffer& operator=(buffer&& other) noexcept {
    if (this != &other) {
      detail::release(data_, where_);
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
      where_ = other.where_;
    }
    return *this;
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  // Host → buffer, `host.size()` elements from the start (at most size()).
  // check_fits() bounds the count by size(), whose size in bytes the
  // constructor checked, so size_bytes() cannot wrap here.
  void copy_from(std::span<const T> host) {
    check_fits(host.size());
    detail::copy_to_device(data_, host.data(), host.size_bytes(), where_);
  }
  // Buffer → host, `host.size()` elements from the start (at most size()).
  void copy_to(std::span<T> host) const {
    check_fits(host.size());
    detail::copy_to_host(host.data(), data_, host.size_bytes(), where_);
  }
  std::vector<T> to_vector() const {
    std::vector<T> out(count_);
    copy_to(out);
    return out;
  }

  // The device address, as kernels take it (host memory on the CPU fallback).
  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  backend where() const { return where_; }

 private:
  void check_fits(std::size_t elements) const {
    if (elements > count_) {
      throw jit::error("jit::gpu::buffer: a copy of " + std::to_string(elements) +
                       " elements does not fit in " + std::to_string(count_));
    }
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
  backend where_ = backend::cpu;
};

// A CUDA stream: launches on one stream run in order, launches on different
// streams may overlap. On the CPU fallback launches are synchronous and a
// stream only orders them as written.
class stream {
 public:
  explicit stream(backend where = detail::default_backend())
      : handle_(detail::create_stream(where)), where_(where) {}
  ~stream() { detail::destroy_stream(handle_); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  // Waits for everything launched on the stream.
  void synchronize() const { detail::synchronize_stream(handle_, where_); }
  void* handle() const { return handle_; }
  backend where() const { return where_; }

 private:
  void* handle_;
  backend where_;
};

}  // namespace jit::gpu
