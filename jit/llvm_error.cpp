#include "jit/llvm_error.h"

namespace augur::cpu {

void check(llvm::Error error, const std::string& what) {
  if (!error) return;
  throw jit::compile_error(what + ": " + llvm::toString(std::move(error)));
}

llvm::Error make_error(const std::string& message) {
  return llvm::make_error<llvm::StringError>(message, llvm::inconvertibleErrorCode());
}

}  // namespace augur::cpu
