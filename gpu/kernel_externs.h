// The host functions a kernel may call: Augur's scans (jit/scan.h). On a
// device each is a helper with the same semantics (cuda_helpers); on the CPU
// fallback the kernel calls the host function itself. Any other host function
// in a kernel is a compile_error.
#pragma once

#include <optional>

#include "gpu/cuda_helpers.h"
#include "runtime/ir/externs.h"

namespace augur::gpu {

// The scans, bound to their host functions.
const ir::ExternTable& kernel_externs();

// The helper that computes `callee` on a device, if it is one of the scans
// with the signature jit/scan.h gives it.
std::optional<HelperKind> device_helper(const ir::ExternFn& callee);

}  // namespace augur::gpu
