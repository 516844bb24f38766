// The process-wide registry of host functions callable from staged code
// (jit::register_external). Backends and the interpreter resolve calls
// through registered_externs().
#pragma once

#include "jit/detail/staging.h"
#include "runtime/ir/externs.h"

namespace jit::detail {

// A registered host function: its binding (declaration, address, invoker for
// the interpreter) and the typed thunk the invoker forwards to.
struct extern_entry {
  augur::ir::ExternBinding binding;
  raw_invoker raw = nullptr;
};

}  // namespace jit::detail

namespace augur::stage {

// A snapshot of every registered host function.
ir::ExternTable registered_externs();

}  // namespace augur::stage
