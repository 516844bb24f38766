// Static data in the compiled code: a table the first stage computes (a
// matcher's transitions, a filter's coefficients, a lookup table) copied into
// the code as a read-only array.
//
//   std::vector<std::uint16_t> next = build_transitions(pattern);  // first stage
//   jit::dyn_expr<const std::uint16_t*> t = jit::table(next);
//   state = t[state * 256 + byte];                                 // staged code
//
// The table becomes part of the staged program (docs/ir.md, "Tables"): the
// CPU backend makes it a private constant global, the CUDA emitter a
// `__device__ const` array, the interpreter reads it where the program keeps
// it. So the code never points at the caller's memory: the table lives
// exactly as long as the compiled code, and equal contents are equal
// programs (cache keys and the disk cache compare them by content, whatever
// static argument they came from). Tables hold 1 to 16 MiB of bools,
// integers or floats; writing through a table's pointer is an error the
// verifier reports where it can see it and undefined behavior elsewhere.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "jit/detail/staging.h"
#include "jit/dyn.h"

namespace jit {

namespace detail {
expr_ref table(ir_type element, std::span<const std::byte> bytes);
}  // namespace detail

// A read-only copy of `values` in the compiled code: a pointer to its first
// element. Called in a first stage only.
template <class T>
requires detail::ir_value<T> &&
    (!std::is_pointer_v<T>)dyn_expr<const T*> table(std::span<const T> values) {
  return detail::wrap<const T*>(detail::table(detail::ir_type_of<T>(), std::as_bytes(values)));
}

template <class T, class Allocator>
dyn_expr<const T*> table(const std::vector<T, Allocator>& values) {
  return table(std::span<const T>(values));
}

template <class T, std::size_t N>
dyn_expr<const T*> table(const std::array<T, N>& values) {
  return table(std::span<const T>(values));
}

}  // namespace jit
