// Conversions between the public mirror types of jit/detail/staging.h and the IR's.
#pragma once

#include "jit/detail/staging.h"
#include "runtime/ir/ir.h"
#include "runtime/ir/type.h"

namespace augur::stage {

inline ir::Type to_ir(jit::detail::ir_type t) {
  return ir::Type(static_cast<ir::Scalar>(t.element), t.pointer);
}
inline jit::detail::ir_type from_ir(ir::Type t) {
  return {static_cast<jit::detail::scalar>(t.scalar()), t.is_pointer()};
}
inline ir::Effect to_ir(jit::effect e) {
  return static_cast<ir::Effect>(e);
}
inline jit::effect from_ir(ir::Effect e) {
  return static_cast<jit::effect>(e);
}

}  // namespace augur::stage
