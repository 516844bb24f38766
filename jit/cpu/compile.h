// The CPU backend's entry points: an IR module → loaded machine code, directly
// or through an object file (what the disk cache stores).
//
//   auto code = augur::cpu::compile(module, externs, {.opt_level = 2});
//   auto twice = reinterpret_cast<int (*)(int)>(code->address("twice"));
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jit/cpu/compiled_code.h"
#include "jit/cpu/options.h"
#include "runtime/ir/externs.h"
#include "runtime/ir/ir.h"

namespace augur::cpu {

// Compiles every function of `module` (verified IR: checked builds and
// Options::verify check it, throwing jit::verify_error) and loads the code, the
// externs it calls bound to their addresses in `externs`. Any number of
// threads may compile at once. Throws jit::compile_error if LLVM fails or for
// what the backend does not support (barriers), jit::error for an extern that
// `externs` does not bind with the declared signature.
std::shared_ptr<CompiledCode> compile(const ir::Module& module, const ir::ExternTable& externs,
                                      const Options& options = {});

// The object file that compile() would load, its externs left undefined; for
// a module with split functions, its objects in one bundle (object_bundle.h).
std::vector<char> compile_object(const ir::Module& module, const Options& options = {});

// Loads an object file that compile_object() made from the same module.
// Throws jit::compile_error for an object that is corrupt or not for this
// machine, and jit::error as compile() does for externs.
std::shared_ptr<CompiledCode> load_object(std::span<const char> object, const ir::Module& module,
                                          const ir::ExternTable& externs);
// The same for an object made from a module with `module`'s functions (names
// and signatures) whose code calls `callees`: the disk cache loads the object
// of an optimized module, which may call externs the extracted one does not
// (user rules introduce calls), with the callees stored beside it.
std::shared_ptr<CompiledCode> load_object(std::span<const char> object, const ir::Module& module,
                                          std::span<const ir::ExternFn> callees,
                                          const ir::ExternTable& externs);

// The externs `module`'s code calls, each once, in order of first call: the
// symbols its object leaves undefined.
std::vector<ir::ExternFn> called_externs(const ir::Module& module);

// Whether the version labelled `label` (CompiledCode::label()) is still loaded.
bool is_loaded(std::string_view label);

// Everything besides the IR module that decides the object file
// compile_object() makes with `options`, in one line: the LLVM version, the
// target triple, the CPU's name and features (the host's, resolved, unless
// `options` names them), the opt level, whether invokers are generated and
// the split bound.
// The disk cache keys objects on it.
std::string object_key(const Options& options);

// While one lives, compile() and load_object() on this thread run their
// compilation and linking on the thread itself instead of ORC's TBB pool. The
// caller waits for them either way; in place it saves the handoff and never
// depends on a pool worker being free (the specialization cache, whose
// callers may block pool workers on a compilation in flight, uses it). The
// pieces of a split function (docs/cpu.md, "Large functions") still compile
// concurrently: the thread works on them itself, helped by idle workers, and
// runs nothing else meanwhile.
class CompileOnThisThread {
 public:
  CompileOnThisThread();
  ~CompileOnThisThread();
  CompileOnThisThread(const CompileOnThisThread&) = delete;
  CompileOnThisThread& operator=(const CompileOnThisThread&) = delete;
};

}  // namespace augur::cpu
