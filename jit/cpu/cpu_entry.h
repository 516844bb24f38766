// The CPU backend's artifact (cpu_backend.cpp), what the disk cache stores: the
// object file and the externs its code calls. The optimized program may call
// externs the extracted one does not (a user rule introduces a call), so a
// later process binds the object against this list, not against the program
// it extracted.
//
//   offset  size  field
//        0     8  length n of the declarations (little-endian)
//        8     n  the callees as IR text: extern declarations only
//      8+n     …  the object file (or object bundle, jit/cpu/object_bundle.h)
#pragma once

#include <span>
#include <vector>

#include "runtime/ir/ir.h"

namespace augur::cpu {

struct CpuEntry {
  std::vector<ir::ExternFn> callees;
  std::span<const char> object;  // inside the decoded payload
};

std::vector<char> encode_cpu_entry(std::span<const ir::ExternFn> callees,
                                   std::span<const char> object);

// Throws jit::error (jit::parse_error for bad declarations) naming what is
// wrong with `payload`.
CpuEntry decode_cpu_entry(std::span<const char> payload);

}  // namespace augur::cpu
