// A compilation in flight: its options and LLVM's error diagnostics.
//
// It is installed as the diagnostic handler of the compilation's own
// LLVMContext, so it travels with the module into ORC's compile function
// (backend.h), which is handed nothing but the module.
#pragma once

#include <memory>
#include <string>

#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/LLVMContext.h>

#include "jit/cpu/options.h"

namespace augur::cpu {

class CompileJob final : public llvm::DiagnosticHandler {
 public:
  explicit CompileJob(Options options) : options_(std::move(options)) {}

  // The job of a context made by make_context(); null for any other context.
  static const CompileJob* of(const llvm::LLVMContext& context);

  // Collects errors (reported with the compile's result); ignores the rest.
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override;

  const Options& options() const { return options_; }
  // Error diagnostics LLVM reported while compiling.
  const std::string& errors() const { return errors_; }

  // Why compile_to_object() failed, kept apart from the context: ORC discards
  // a module that fails to compile, with its context and this job, and tells
  // the lookup waiting for it no more than "failed to materialize".
  std::shared_ptr<std::string> failure() const { return failure_; }

 private:
  Options options_;
  std::string errors_;
  std::shared_ptr<std::string> failure_ = std::make_shared<std::string>();
};

// Whether LLVM's verifier checks the modules of a compilation with `options`.
bool verifies(const Options& options);

// A fresh context for one compilation, carrying its job.
std::unique_ptr<llvm::LLVMContext> make_context(Options options);

}  // namespace augur::cpu
