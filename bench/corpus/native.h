// The corpus programs through a C compiler, BuildIt's route: the IR printed
// as C (bench/compile/ir_to_c.h), compiled into a shared library with
// -fwrapv -shared -fPIC, loaded with dlopen. And one calling convention for
// every version of a program, native or Augur's: a trampoline, compiled once
// per signature, that takes the function's address and the arguments as
// 64-bit words, so that each version pays the same call overhead.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "bench/support/cpu_time.h"
#include "runtime/ir/ir.h"

namespace augur::bench::corpus {

// A directory for the sources and libraries of this process; removed at exit
// (loaded libraries stay mapped).
const std::filesystem::path& scratch_directory();

// Compiles `c_source` with `compiler` and `flags` (plus -fwrapv -shared -fPIC)
// into a library named after `stem` in the scratch directory and loads it.
// Throws jit::error with the command if the compiler or dlopen fails.
void* compile_and_load(const std::string& c_source, const std::string& stem,
                       const std::string& compiler, const std::string& flags);

// The address of `symbol` in `library`; throws jit::error if it has none.
void* symbol(void* library, const std::string& name);

// Calls `function` (a C ABI function of `signature`'s parameter and return
// types) with arguments given as IR values' bits; returns the result's bits
// (0 for void).
using Trampoline = std::uint64_t (*)(void* function, const std::uint64_t* args);

// The trampoline for `signature`'s types, compiled by cc -O2 (cached per
// signature for the process).
Trampoline trampoline_for(const ir::Function& signature);

}  // namespace augur::bench::corpus
