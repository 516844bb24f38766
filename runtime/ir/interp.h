// The IR interpreter: the oracle of every differential test, and the quickest
// tier. A function is prepared once (checked, lowered to a compact form) and
// then run any number of times, from any number of threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/ir/externs.h"
#include "runtime/ir/ir.h"

namespace augur::ir {

// A host buffer the program may access in bounds-checked mode.
struct Buffer {
  const void* base = nullptr;
  std::size_t bytes = 0;
  std::string name;  // for messages
};

struct InterpOptions {
  const ExternTable* externs = nullptr;  // needed if the function calls externs
  bool bounds_check = false;             // every access must fall inside `buffers`
  std::vector<Buffer> buffers;           // shared memory of kernels is always checked
  std::uint64_t step_limit = 0;          // traps after this many steps per run; 0: none
};

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
};

class Interpreter {
 public:
  // Throws jit::verify_error if the function is missing or invalid, and
  // jit::error if an extern it calls is unbound in options.externs.
  Interpreter(const Module& module, std::string_view function, InterpOptions options = {});
  ~Interpreter();
  Interpreter(Interpreter&&) noexcept;
  Interpreter& operator=(Interpreter&&) noexcept;

  // Runs a non-kernel function; traps throw jit::trap_error.
  Value run(std::span<const Value> args) const;
  // Runs a kernel over an emulated grid.
  void run_kernel(Dim3 grid, Dim3 block, std::span<const Value> args) const;

  // Typed convenience: interp.call<double>(2.0, 13).
  template <class R, class... A>
  R call(A... args) const {
    const Value values[] = {Value::of(args)..., Value{}};
    return run(std::span<const Value>(values, sizeof...(A))).template as<R>();
  }

 private:
  struct Program;
  std::unique_ptr<const Program> program_;
};

}  // namespace augur::ir
