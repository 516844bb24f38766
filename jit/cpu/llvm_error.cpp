#include "jit/cpu/llvm_error.h"

#include <llvm/Support/raw_ostream.h>

namespace augur::cpu {

void check(llvm::Error error, const std::string& what) {
  if (!error) return;
  throw jit::compile_error(what + ": " + llvm::toString(std::move(error)));
}

llvm::Error make_error(const std::string& message) {
  return llvm::make_error<llvm::StringError>(message, llvm::inconvertibleErrorCode());
}

char DeliveredError::ID = 0;

void DeliveredError::log(llvm::raw_ostream& stream) const {
  stream << message_;
}

std::error_code DeliveredError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

void report_session_error(llvm::Error error) {
  llvm::handleAllErrors(
      std::move(error), [](const DeliveredError&) {},
      [](const llvm::ErrorInfoBase& other) {
        llvm::errs() << "augur: JIT error: " << other.message() << "\n";
      });
}

}  // namespace augur::cpu
