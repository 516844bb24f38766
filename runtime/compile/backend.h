// What the compile pipeline (runtime/cache/pipeline.cpp) asks of a backend:
// the pipeline keys, caches, stages and optimizes; a backend only turns an
// optimized module into an artifact and an artifact into loaded code. Two
// implement it: the CPU backend on LLVM ORC (jit/cpu/cpu_backend.cpp) and the
// GPU backend, NVRTC and the driver or its CPU fallback (gpu/gpu_backend.cpp).
//
// An artifact is bytes the disk cache stores as they are: everything a later
// process needs to load the code besides the module it was made from (for the
// CPU: the object file and the externs it calls; for a GPU kernel: the cubin
// or PTX, or on the fallback the CPU's artifact, with the kernel's optimized
// IR and CUDA source).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/ir/externs.h"
#include "runtime/ir/ir.h"

namespace augur::compile {

// Loaded code of one module. It stays loaded while the object lives; the
// pipeline's versions share it.
class Code {
 public:
  virtual ~Code() = default;
};

// One backend with the options of one request. Every member may run on any
// number of threads at once. Compiling and loading run on the calling thread
// (helped by idle pool workers) and never need a free TBB worker: callers of
// the pipeline may be pool workers waiting on the compilation.
class Backend {
 public:
  virtual ~Backend() = default;

  // Everything besides the module that decides the artifact (target, options,
  // tool versions), on one line: part of the program cache's and the disk
  // cache's keys.
  virtual std::string toolchain() const = 0;

  // Compiles `module` and loads its code, its externs bound in `externs`,
  // without an artifact: the pipeline's route without a disk cache.
  virtual std::shared_ptr<const Code> build(const ir::Module& module,
                                            const ir::ExternTable& externs) const = 0;

  // The artifact of `module`.
  virtual std::vector<char> compile(const ir::Module& module) const = 0;

  // Loads an artifact that compile() made from a module with `module`'s
  // functions (names and signatures), binding the externs it calls in
  // `externs`. Throws jit::error for an artifact that does not load.
  virtual std::shared_ptr<const Code> load(std::span<const char> artifact, const ir::Module& module,
                                           const ir::ExternTable& externs) const = 0;

  // The entry of `function` in `code`, which this backend made: its native
  // entry point for the CPU; for a GPU kernel, the launchable kernel object
  // (a jit::gpu::detail::kernel_code) that `code` is, valid while `code`
  // lives. Throws jit::error if there is none.
  virtual void* entry(const Code& code, std::string_view function) const = 0;
};

}  // namespace augur::compile
