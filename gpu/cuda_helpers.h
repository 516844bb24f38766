// The small device functions that generated CUDA C++ calls where a C++
// operator alone would not have the IR's semantics: wrapping signed and
// narrow integer arithmetic (signed overflow is undefined in CUDA C++ too),
// float → integer conversions that saturate at the target's bounds and map NaN to 0, and
// min/max in the operands' own type (floats ordering -0.0 below +0.0), and the
// scans a kernel may call (jit/scan.h) with their host functions' results. Only the helpers a
// program uses are emitted, in a fixed order, so the source stays short and deterministic.
#pragma once

#include <set>
#include <string>

#include "runtime/ir/type.h"

namespace augur::gpu {

enum class HelperKind : std::uint8_t {
  Add,        // wrapping a + b
  Sub,        // wrapping a - b
  Mul,        // wrapping a * b
  Neg,        // wrapping -a
  Shl,        // a << (b mod width), through the unsigned type
  Min,        // min in the operands' type; floats: minNum with -0.0 < +0.0
  Max,        // max in the operands' type; floats: maxNum with -0.0 < +0.0
  SaturateF,  // float (the `from` type) → integer, saturating, NaN → 0
  // The scans of jit/scan.h (gpu/kernel_externs.h), byte by byte; `type` is I64.
  FindByte,
  FindAnyOf,
  FindLiteral,
  FindSets,
};

struct Helper {
  HelperKind kind = HelperKind::Add;
  ir::Scalar type = ir::Scalar::I32;   // the result type
  ir::Scalar from = ir::Scalar::Void;  // SaturateF: the float type converted

  friend auto operator<=>(const Helper&, const Helper&) = default;
};

// The helper's name in generated code, e.g. "add_i32", "f32_to_i8", "find_byte".
std::string helper_name(const Helper& helper);

// Whether `name` is the name of some helper (generated code reserves them all).
bool is_helper_name(const std::string& name);

// The definitions of `helpers`, in their order, one per line.
std::string helper_definitions(const std::set<Helper>& helpers);

}  // namespace augur::gpu
