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

}  // namespace augur::cpu
