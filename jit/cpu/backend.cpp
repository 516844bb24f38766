#include "jit/cpu/backend.h"

#include <exception>

#include <llvm/IR/Verifier.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "jit/cpu/compile_job.h"
#include "jit/cpu/dump.h"
#include "jit/cpu/llvm_error.h"
#include "jit/cpu/pipeline.h"
#include "jit/cpu/statistics.h"
#include "jit/cpu/toolchain.h"

namespace augur::cpu {

namespace {

std::string print(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  return text;
}

// The dump sink is user code: what it throws must not unwind through ORC.
llvm::Error dump(const Options& options, DumpKind kind, const std::string& label,
                 const std::string& text) {
  try {
    write_dump(options, kind, label, text);
    return llvm::Error::success();
  } catch (const std::exception& e) {
    return make_error("the dump sink failed: " + std::string(e.what()));
  }
}

llvm::Error dump_assembly(const Options& options, const llvm::Module& module,
                          llvm::TargetMachine& machine, const std::string& label) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  llvm::SmallVector<char, 0> text;
  if (llvm::Error error = emit(*copy, machine, llvm::CodeGenFileType::AssemblyFile, text)) {
    return error;
  }
  return dump(options, DumpKind::Assembly, label, std::string(text.begin(), text.end()));
}

llvm::Expected<llvm::SmallVector<char, 0>> optimize_and_emit(llvm::Module& module,
                                                             const Options& options,
                                                             Toolchain& tools) {
  const std::string label = module.getModuleIdentifier();
  if (wants_dump(options, DumpKind::LlvmIr)) {
    if (llvm::Error error = dump(options, DumpKind::LlvmIr, label, print(module))) return error;
  }
  {
    stats::Scope timer(stats::Timer::Optimization);
    tools.optimization->run(module);
  }
  if (verifies(options)) {
    std::string report;
    llvm::raw_string_ostream stream(report);
    if (llvm::verifyModule(module, &stream)) {
      return make_error("LLVM verifier failed after optimization of " + label + ": " + report);
    }
    stats::count(stats::Counter::ModulesVerified);
  }
  if (wants_dump(options, DumpKind::OptimizedLlvmIr)) {
    if (llvm::Error error = dump(options, DumpKind::OptimizedLlvmIr, label, print(module))) {
      return error;
    }
  }
  if (wants_dump(options, DumpKind::Assembly)) {
    if (llvm::Error error = dump_assembly(options, module, *tools.machine, label)) return error;
  }
  stats::Scope timer(stats::Timer::MachineCode);
  return tools.emitter->emit(module);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> compile_with_toolchain(llvm::Module& module,
                                                                           const CompileJob* job) {
  const Options defaults;
  const Options& options = job ? job->options() : defaults;
  llvm::Expected<ToolchainLease> lease = lease_toolchain(options);
  if (!lease) return lease.takeError();
  auto object = optimize_and_emit(module, options, **lease);
  if (object && job && !job->errors().empty()) object = make_error(job->errors());
  // A failure may leave the pipelines in any state: they go with it.
  if (!object) {
    lease->discard();
    return object.takeError();
  }
  return std::make_unique<llvm::SmallVectorMemoryBuffer>(std::move(*object),
                                                         module.getModuleIdentifier(), false);
}

}  // namespace

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> compile_to_object(llvm::Module& module) {
  const CompileJob* job = CompileJob::of(module.getContext());
  auto object = compile_with_toolchain(module, job);
  if (object || !job) return object;
  *job->failure() = llvm::toString(object.takeError());
  return llvm::make_error<DeliveredError>(*job->failure());
}

}  // namespace augur::cpu
