// Options of jit::compile (compiler.h).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace jit {

struct compile_options {
  // 0..3: LLVM's O0..O3 pipelines (vectorization from O2 on). Anything else
  // is a jit::error when the request compiles.
  int opt_level = 2;
  // The compiled function's name, as dumps show it.
  std::string name = "staged";
  // The target CPU by LLVM name ("znver3") and extra features ("+avx2,-fma");
  // empty: the host's CPU with all its features.
  std::string cpu;
  std::string features;

  // Dumps of what a compilation produces (a request served from the cache
  // dumps nothing): the IR given to the backend, LLVM IR before and after
  // optimization, assembly. AUGUR_DUMP=ir,llvm,asm turns them on too.
  bool dump_ir = false;
  bool dump_llvm = false;
  bool dump_asm = false;
  // Receives each dump: its kind ("ir", "llvm", "llvm-optimized", "asm") and
  // text. Empty: stderr.
  std::function<void(std::string_view kind, std::string_view text)> dump_sink;
};

}  // namespace jit
