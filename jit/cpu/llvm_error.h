// LLVM's errors as jit::compile_error.
#pragma once

#include <string>
#include <utility>

#include <llvm/Support/Error.h>

#include "jit/error.h"

namespace augur::cpu {

// Throws jit::compile_error("<what>: <LLVM's message>") if `error` is set.
void check(llvm::Error error, const std::string& what);

template <class T>
T unwrap(llvm::Expected<T> value, const std::string& what) {
  if (!value) check(value.takeError(), what);
  return std::move(*value);
}

// An llvm::Error carrying `message`, for code that runs inside LLVM's frames.
llvm::Error make_error(const std::string& message);

// An error that reaches the user through a compilation's result, so the
// session's error reporter (which gets every materialization failure) stays quiet.
class DeliveredError : public llvm::ErrorInfo<DeliveredError> {
 public:
  static char ID;
  explicit DeliveredError(std::string message) : message_(std::move(message)) {}
  void log(llvm::raw_ostream& stream) const override;
  std::error_code convertToErrorCode() const override;

 private:
  std::string message_;
};

// Prints errors that reach no caller, except DeliveredError.
void report_session_error(llvm::Error error);

}  // namespace augur::cpu
