#include "jit/cpu/compile_job.h"

#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/Support/raw_ostream.h>

namespace augur::cpu {

const CompileJob* CompileJob::of(const llvm::LLVMContext& context) {
  return dynamic_cast<const CompileJob*>(context.getDiagHandlerPtr());
}

bool CompileJob::handleDiagnostics(const llvm::DiagnosticInfo& info) {
  if (info.getSeverity() != llvm::DS_Error) return true;
  llvm::raw_string_ostream stream(errors_);
  llvm::DiagnosticPrinterRawOStream printer(stream);
  if (!errors_.empty()) stream << "; ";
  info.print(printer);
  return true;
}

bool verifies(const Options& options) {
#ifdef AUGUR_CHECKED
  static_cast<void>(options);
  return true;
#else
  return options.verify;
#endif
}

std::unique_ptr<llvm::LLVMContext> make_context(Options options) {
  auto context = std::make_unique<llvm::LLVMContext>();
  context->setDiagnosticHandler(std::make_unique<CompileJob>(std::move(options)));
  return context;
}

}  // namespace augur::cpu
