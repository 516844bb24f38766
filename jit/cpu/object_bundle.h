// Several object files in one byte string: what compile_object() makes of a
// split module (split_compile.h), so that the disk cache keeps one file per
// version.
//
// Layout: the 8 bytes "AUGOBJS1", the count as a little-endian u64, then
// each object as its size (u64) and its bytes. A plain object file (ELF,
// Mach-O, COFF) never starts with the magic.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include <llvm/Support/MemoryBuffer.h>

namespace augur::cpu {

std::vector<char> bundle_objects(std::span<const std::unique_ptr<llvm::MemoryBuffer>> objects);

// The objects in `bytes`: those of a bundle, or `bytes` itself for a plain
// object file. Throws jit::compile_error for a truncated bundle.
std::vector<std::span<const char>> unbundle_objects(std::span<const char> bytes);

}  // namespace augur::cpu
