// What staged GPU kernels use beyond jit::dyn: thread and block indices,
// block-shared arrays, barriers and atomics. They exist only while a kernel
// is extracted (jit::gpu::compile, or jit::extract with
// extract_options::kernel); elsewhere they throw jit::staging_error.
//
//   void histogram(jit::dyn<const std::uint8_t*> data, jit::dyn<int> n,
//                  jit::dyn<unsigned*> bins) {
//     jit::gpu::shared_array<unsigned, 256> local;
//     jit::dyn<int> i = jit::gpu::global_id_x();
//     if (i < n) jit::gpu::atomic_add(local[data[i]], 1u);
//     jit::gpu::barrier();
//     ...
//   }
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

#include "jit/dyn.h"

namespace jit::gpu {

// ---------------------------------------------------------------- indices

#define AUGUR_GPU_INDEX(name, which, axis)                                                         \
  inline dyn_expr<int> name() {                                                                    \
    return jit::detail::wrap<int>(jit::detail::gpu_index_of(jit::detail::gpu_index::which, axis)); \
  }
// CUDA's threadIdx, blockIdx, blockDim and gridDim, as int.
AUGUR_GPU_INDEX(thread_idx_x, thread_idx, 0)
AUGUR_GPU_INDEX(thread_idx_y, thread_idx, 1)
AUGUR_GPU_INDEX(thread_idx_z, thread_idx, 2)
AUGUR_GPU_INDEX(block_idx_x, block_idx, 0)
AUGUR_GPU_INDEX(block_idx_y, block_idx, 1)
AUGUR_GPU_INDEX(block_idx_z, block_idx, 2)
AUGUR_GPU_INDEX(block_dim_x, block_dim, 0)
AUGUR_GPU_INDEX(block_dim_y, block_dim, 1)
AUGUR_GPU_INDEX(block_dim_z, block_dim, 2)
AUGUR_GPU_INDEX(grid_dim_x, grid_dim, 0)
AUGUR_GPU_INDEX(grid_dim_y, grid_dim, 1)
AUGUR_GPU_INDEX(grid_dim_z, grid_dim, 2)
#undef AUGUR_GPU_INDEX

// block_idx * block_dim + thread_idx along one axis: the thread's index in the grid.
inline dyn_expr<int> global_id_x() {
  return block_idx_x() * block_dim_x() + thread_idx_x();
}
inline dyn_expr<int> global_id_y() {
  return block_idx_y() * block_dim_y() + thread_idx_y();
}
inline dyn_expr<int> global_id_z() {
  return block_idx_z() * block_dim_z() + thread_idx_z();
}

// ---------------------------------------------------------------- shared memory

// An array of N elements of T shared by the threads of a block (CUDA's
// __shared__), zero at the start of every block. Declare it at the top level
// of the kernel, not under a dyn branch or loop.
template <class T, std::uint32_t N>
class shared_array {
  static_assert(N > 0, "jit::gpu::shared_array needs at least one element");
  static_assert(jit::detail::ir_element<T> && !std::is_const_v<T> && !std::is_pointer_v<T>,
                "jit::gpu::shared_array<T, N>: T is bool, an integer, float or double");

 public:
  shared_array() : shared_array(nullptr) {}
  // Named in the IR and the CUDA source.
  explicit shared_array(const char* name)
      : var_(jit::detail::declare_shared(jit::detail::ir_type_of<T*>(), N, name)),
        pointer_(jit::detail::read(var_, jit::detail::ir_type_of<T*>())) {}
  ~shared_array() { jit::detail::release(var_); }
  shared_array(const shared_array&) = delete;
  shared_array& operator=(const shared_array&) = delete;

  template <class I>
  dyn_ref<T> operator[](const I& index)
      const requires jit::detail::operand<I> && std::is_integral_v<jit::detail::value_t<I>> {
    jit::detail::check_token(var_.token, "a jit::gpu::shared_array");
    return {pointer_, jit::detail::as<jit::detail::value_t<I>>(index)};
  }
  // The array's address, e.g. to offset it: (s.data() + 16)[i].
  dyn_expr<T*> data() const {
    jit::detail::check_token(var_.token, "a jit::gpu::shared_array");
    return jit::detail::wrap<T*>(pointer_);
  }
  static constexpr std::uint32_t size() { return N; }

 private:
  jit::detail::var_ref var_;
  jit::detail::expr_ref pointer_;
};

// ---------------------------------------------------------------- synchronization

// Waits until every thread of the block reaches it (CUDA's __syncthreads()).
// Every thread of the block must reach the same barriers.
inline void barrier() {
  jit::detail::barrier();
}

// ---------------------------------------------------------------- atomics

namespace detail {
template <class T>
concept atomic_element = !std::is_const_v<T> && (sizeof(T) == 4 || sizeof(T) == 8) &&
                         std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

template <class T, class... V>
dyn_expr<T> atomic(jit::detail::atomic_op op, const dyn_ref<T>& element, const V&... values) {
  const std::array<jit::detail::expr_ref, 2 + sizeof...(V)> args = {
      element.pointer(), element.index(), jit::detail::as<T>(values)...};
  return jit::detail::wrap<T>(jit::detail::atomic_now(op, args));
}
}  // namespace detail

// Each acts on one element atomically and returns its old value, like
// CUDA's atomicAdd(&p[i], v): jit::gpu::atomic_add(bins[k], 1u). Elements
// are 32 or 64 bits; min, max and compare-and-swap take integers only.
template <class T, jit::detail::operand V>
dyn_expr<T> atomic_add(const dyn_ref<T>& element,
                       const V& value) requires detail::atomic_element<T> {
  return detail::atomic(jit::detail::atomic_op::add, element, value);
}
template <class T, jit::detail::operand V>
dyn_expr<T> atomic_min(const dyn_ref<T>& element,
                       const V& value) requires detail::atomic_element<T> && std::is_integral_v<T> {
  return detail::atomic(jit::detail::atomic_op::min, element, value);
}
template <class T, jit::detail::operand V>
dyn_expr<T> atomic_max(const dyn_ref<T>& element,
                       const V& value) requires detail::atomic_element<T> && std::is_integral_v<T> {
  return detail::atomic(jit::detail::atomic_op::max, element, value);
}
template <class T, jit::detail::operand V>
dyn_expr<T> atomic_exchange(const dyn_ref<T>& element,
                            const V& value) requires detail::atomic_element<T> {
  return detail::atomic(jit::detail::atomic_op::exchange, element, value);
}
// Stores `desired` if the element equals `expected`; returns the old value either way.
template <class T, jit::detail::operand E, jit::detail::operand D>
dyn_expr<T> atomic_cas(const dyn_ref<T>& element, const E& expected, const D& desired) requires
    detail::atomic_element<T> && std::is_integral_v<T> {
  return detail::atomic(jit::detail::atomic_op::cas, element, expected, desired);
}

}  // namespace jit::gpu
