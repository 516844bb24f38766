#include "runtime/ir/interp.h"
#include "runtime/ir/verifier.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include "jit/error.h"
#include "runtime/ir/interp_code.h"
#include "runtime/ir/interp_kernel.h"
#include "runtime/ir/interp_lower.h"
#include "runtime/ir/interp_run.h"

namespace augur::ir {

namespace {

// A run's frame: on the stack when it is small, which most are. The inline
// slots are left uninitialized; the frame template fills them.
class Frame {
 public:
  explicit Frame(const std::vector<Value>& init) {
    if (init.size() > kInline) {
      heap_ = init;
      data_ = heap_.data();
    } else {
      data_ = inline_.values;
      std::uninitialized_copy(init.begin(), init.end(), data_);
    }
  }
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  Value* data() { return data_; }

 private:
  static constexpr std::size_t kInline = 64;
  union Slots {
    Slots() {}
    Value values[kInline];
  };
  Slots inline_;
  std::vector<Value> heap_;
  Value* data_ = nullptr;
};

void check_arity(const interp::Program& p, std::size_t given) {
  if (given != p.param_types.size()) {
    throw jit::error("takes " + std::to_string(p.param_types.size()) + " arguments, got " +
                         std::to_string(given),
                     jit::location::in_function(p.name));
  }
}

void check_dimensions(const interp::Program& p, Dim3 grid, Dim3 block) {
  constexpr std::uint32_t kMax = std::numeric_limits<std::int32_t>::max();
  for (std::uint32_t d : {grid.x, grid.y, grid.z, block.x, block.y, block.z}) {
    if (d == 0 || d > kMax) {
      throw jit::error("grid and block dimensions must be between 1 and 2^31-1",
                       jit::location::in_function(p.name));
    }
  }
}

}  // namespace

Interpreter::Interpreter(const Module& module, std::string_view function, InterpOptions options) {
  const Function* fn = module.find_function(function);
  if (!fn) {
    throw jit::verify_error("the module has no function named '" + std::string(function) + "'");
  }
  if (options.verify) verify(module);
  program_ = std::make_unique<const interp::Program>(interp::lower(*fn, options));
}

Interpreter::~Interpreter() = default;
Interpreter::Interpreter(Interpreter&&) noexcept = default;
Interpreter& Interpreter::operator=(Interpreter&&) noexcept = default;

const std::string& Interpreter::name() const {
  return program_->name;
}

bool Interpreter::is_kernel() const {
  return program_->kernel;
}

std::span<const Type> Interpreter::param_types() const {
  return program_->param_types;
}

Type Interpreter::return_type() const {
  return program_->return_type;
}

Value Interpreter::run(std::span<const Value> args) const {
  const interp::Program& p = *program_;
  if (p.kernel) {
    throw jit::error("is a kernel: launch it with run_kernel", jit::location::in_function(p.name));
  }
  check_arity(p, args.size());
  Frame frame(p.frame_template);
  Value* regs = frame.data();
  for (std::size_t i = 0; i < args.size(); ++i) {
    regs[i].bits = canonical_bits(p.param_types[i], args[i].bits);
  }
  interp::RunContext ctx{p, {}, p.step_limit};
  interp::Thread thread;
  thread.regs = regs;
  interp::execute(ctx, thread);
  return thread.result;
}

void Interpreter::run_kernel(Dim3 grid, Dim3 block, std::span<const Value> args) const {
  const interp::Program& p = *program_;
  if (!p.kernel) {
    throw jit::error("is not a kernel: call it with run", jit::location::in_function(p.name));
  }
  check_arity(p, args.size());
  check_dimensions(p, grid, block);
  interp::run_grid(p, grid, block, args);
}

void Interpreter::check_call(Type ret, std::initializer_list<Type> args) const {
  const interp::Program& p = *program_;
  check_arity(p, args.size());
  std::size_t i = 0;
  for (Type given : args) {
    const Type expected = p.param_types[i++];
    if (given != expected) {
      throw jit::error("argument " + std::to_string(i) + " is " + given.name() +
                           " in C++, the parameter is " + expected.name(),
                       jit::location::in_function(p.name));
    }
  }
  if (!ret.is_void() && ret != p.return_type) {
    throw jit::error("returns " + p.return_type.name() + ", the call expects " + ret.name(),
                     jit::location::in_function(p.name));
  }
}

}  // namespace augur::ir
