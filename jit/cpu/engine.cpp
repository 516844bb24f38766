#include "jit/cpu/engine.h"

#include <llvm/ExecutionEngine/Orc/ExecutorProcessControl.h>
#include <llvm/ExecutionEngine/Orc/IRCompileLayer.h>

#include "jit/cpu/backend.h"
#include "jit/cpu/llvm_error.h"
#include "jit/cpu/target.h"
#include "jit/cpu/task_dispatcher.h"

namespace augur::cpu {

namespace {

class Compiler final : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  Compiler() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& module) override {
    return compile_to_object(module);
  }
};

}  // namespace

Engine& Engine::get() {
  // Deliberately leaked: see the class comment.
  static Engine* const engine = new Engine();
  return *engine;
}

Engine::Engine() {
  initialize_native_target();

  auto control = unwrap(
      llvm::orc::SelfExecutorProcessControl::Create(nullptr, std::make_unique<TbbTaskDispatcher>()),
      "cannot set up the JIT's process control");
  jit_ =
      unwrap(llvm::orc::LLJITBuilder()
                 .setExecutorProcessControl(std::move(control))
                 .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                 // Each module comes with its own context, so ORC need not clone
                 // modules into fresh contexts for concurrent compilation.
                 .setSupportConcurrentCompilation(false)
                 .setCompileFunctionCreator(
                     [](llvm::orc::JITTargetMachineBuilder)
                         -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                       return std::make_unique<Compiler>();
                     })
                 .create(),
             "cannot create the LLVM JIT");
  session().setErrorReporter(report_session_error);
}

std::string Engine::new_label() {
  return "augur.v" + std::to_string(next_version_.fetch_add(1, std::memory_order_relaxed));
}

bool Engine::has_dylib(std::string_view label) {
  return session().getJITDylibByName(label) != nullptr;
}

}  // namespace augur::cpu
