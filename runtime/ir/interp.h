// The IR interpreter: the oracle of every differential test, and the quickest
// tier. A function is prepared once (lowered to linear register code with
// jumps, see interp_code.h) and then run any number of times, from any number
// of threads at once: run() and run_kernel() are const and share nothing
// mutable.
//
// It implements docs/ir.md "Semantics" exactly. Where the IR traps, it throws
// jit::trap_error naming the function, the statement path and the reason.
// Operands evaluate left to right (a store: pointer, index, then value).
// Memory is the host's: loads and stores dereference real addresses. Beyond
// what docs/ir.md requires, an access below address 4096 traps as a null
// dereference instead of crashing the process, and so does a misaligned
// atomic.
//
// Kernels: run_kernel() runs the blocks one after another and, inside a block,
// the threads one after another in x-fastest order; a thread runs until it
// finishes or reaches a barrier, and a block resumes its threads past the
// barrier once all of them wait there; a thread finishing while others wait,
// or threads waiting at different barriers, trap as barrier divergence. So
// threads interleave only at barriers, and atomics behave sequentially. Atomics are real hardware
// atomics anyway, so concurrent runs on shared memory stay consistent. Shared arrays are allocated
// and zeroed per block. A direct access to a shared array (`s[i]`, `atomic_add(s, i, v)`) is always
// checked against the array's extent, since that memory belongs to the interpreter; in
// bounds-checked mode every shared array of the running block counts as a registered buffer.
//
// Extern calls go through the ExternTable's invokers; the bindings are copied
// at construction, so the table need not outlive the interpreter. An exception
// thrown by an extern passes through unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
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
  std::vector<Buffer> buffers;
  // Traps after this many executed instructions per run() or run_kernel()
  // (all threads together); 0: no limit. Meant for tests of programs that may
  // not terminate.
  std::uint64_t step_limit = 0;
  // Run the verifier on the module first (microseconds for typical programs).
  // Off only to test the interpreter's own handling of invalid IR.
  bool verify = true;
};

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
};

namespace interp {
struct Program;
}

class Interpreter {
 public:
  // Throws jit::verify_error if the function is missing or cannot be lowered
  // (a break outside a loop, a barrier outside a kernel, ...), and jit::error
  // if an extern it calls is unbound in options.externs. The verifier runs
  // first unless options.verify is off.
  Interpreter(const Module& module, std::string_view function, InterpOptions options = {});
  ~Interpreter();
  Interpreter(Interpreter&&) noexcept;
  Interpreter& operator=(Interpreter&&) noexcept;

  const std::string& name() const;
  bool is_kernel() const;
  std::span<const Type> param_types() const;
  Type return_type() const;

  // Runs a non-kernel function with one value per parameter (in canonical
  // form, value.h; the bits are truncated to each parameter's width). Traps
  // throw jit::trap_error; a wrong argument count throws jit::error.
  Value run(std::span<const Value> args) const;
  // Runs a kernel over an emulated grid; every dimension must be at least 1.
  void run_kernel(Dim3 grid, Dim3 block, std::span<const Value> args) const;

  // Typed conveniences: interp.call<double>(2.0, 13), interp.launch(grid,
  // block, ptr, n). The C++ argument types must be exactly the parameters'
  // IR types, and R the return type (or void, which discards the result);
  // otherwise they throw jit::error.
  template <class R, class... A>
  R call(A... args) const {
    check_call(type_of<R>(), {type_of<A>()...});
    const Value values[] = {Value::of(args)..., Value{}};
    const Value result = run(std::span<const Value>(values, sizeof...(A)));
    if constexpr (!std::is_void_v<R>) return result.template as<R>();
  }
  template <class... A>
  void launch(Dim3 grid, Dim3 block, A... args) const {
    check_call(Type::void_(), {type_of<A>()...});
    const Value values[] = {Value::of(args)..., Value{}};
    run_kernel(grid, block, std::span<const Value>(values, sizeof...(A)));
  }

 private:
  void check_call(Type ret, std::initializer_list<Type> args) const;

  std::unique_ptr<const interp::Program> program_;
};

}  // namespace augur::ir
