// Options of jit::compile (compiler.h).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "jit/extract.h"

namespace jit {

struct compile_options {
  // 0..3: LLVM's O0..O3 pipelines (vectorization from O2 on). Anything else
  // is a jit::error when the request compiles.
  int opt_level = 2;
  // The compiled function's name, as dumps show it.
  std::string name = "staged";
  // The first stage's options (docs/staging.md, "Options"): its budgets
  // (max_*), how call chains are read, the parameters' names. Its `name` and
  // `kernel` are not used: the function is named by `name` above and is not
  // a GPU kernel. Of these only param_names and max_split_nodes are part of
  // the key (they change the program); the budgets bound the work of a
  // compilation, and a request served from the cache does not stage.
  extract_options extraction;
  // The target CPU by LLVM name ("znver3") and extra features ("+avx2,-fma");
  // empty: the host's CPU with all its features.
  std::string cpu;
  std::string features;

  // A directory of compiled objects shared by later processes (docs/compile.md,
  // "Disk cache"). Empty: AUGUR_CACHE_DIR, or no disk cache if that is unset.
  // Not part of the key: the code is the same either way. It must belong to
  // this user and be writable by no one else, or it is refused (reported once,
  // counted in cache_statistics::disk_refused) and the process compiles
  // without it.
  std::string cache_dir;
  // Trust cache_dir's group as well: a cache shared by the users of one group
  // (docs/compile.md, "Security"). Members can make each other run code.
  bool cache_dir_group_shared = false;

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
