// The CPU backend behind the compile pipeline's interface
// (runtime/compile/backend.h), made through compile::cpu_backend
// (runtime/compile/backends.h): IR → ORC. Its artifact is a CpuEntry
// (cpu_entry.h), its code a CompiledCode.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jit/compile_options.h"
#include "jit/cpu/compile.h"
#include "jit/cpu/cpu_entry.h"
#include "jit/cpu/options.h"
#include "runtime/compile/backends.h"

namespace augur::cpu {

namespace {

// jit::compile's options: the C ABI entry only (jit::function calls nothing
// else), so no invokers.
Options options_of(const jit::compile_options& options) {
  Options backend;
  backend.opt_level = options.opt_level;
  backend.cpu = options.cpu;
  backend.features = options.features;
  backend.invokers = false;
  backend.dump_llvm = options.dump_llvm;
  backend.dump_asm = options.dump_asm;
  if (options.dump_sink) {
    backend.dump_sink = [sink = options.dump_sink](DumpKind kind, std::string_view,
                                                   std::string_view text) {
      sink(name_of(kind), text);
    };
  }
  return backend;
}

// Every member compiles and links on the calling thread (CompileOnThisThread),
// as the interface asks.
class CpuBackend final : public compile::Backend {
 public:
  explicit CpuBackend(const jit::compile_options& options) : options_(options_of(options)) {}

  std::string toolchain() const override { return object_key(options_); }

  std::shared_ptr<const compile::Code> build(const ir::Module& module,
                                             const ir::ExternTable& externs) const override {
    const CompileOnThisThread here;
    return cpu::compile(module, externs, options_);
  }

  std::vector<char> compile(const ir::Module& module) const override {
    const CompileOnThisThread here;
    return encode_cpu_entry(called_externs(module), compile_object(module, options_));
  }

  std::shared_ptr<const compile::Code> load(std::span<const char> artifact,
                                            const ir::Module& module,
                                            const ir::ExternTable& externs) const override {
    const CompileOnThisThread here;
    const CpuEntry entry = decode_cpu_entry(artifact);
    return load_object(entry.object, module, entry.callees, externs);
  }

  void* entry(const compile::Code& code, std::string_view function) const override {
    return static_cast<const CompiledCode&>(code).address(function);
  }

 private:
  Options options_;
};

}  // namespace

}  // namespace augur::cpu

namespace augur::compile {

std::unique_ptr<const Backend> cpu_backend(const jit::compile_options& options) {
  return std::make_unique<const cpu::CpuBackend>(options);
}

}  // namespace augur::compile
