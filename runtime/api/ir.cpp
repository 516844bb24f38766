// jit::ir (include/jit/ir.h): IR modules read from text, run by the
// interpreter or compiled through jit::compile's pipeline from the optimizer
// on (runtime/cache/pipeline.h, compile_module).
#include "jit/ir.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/cache/pipeline.h"
#include "runtime/compile/backends.h"
#include "runtime/ir/hash.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/ir/visit.h"
#include "runtime/stage/externs.h"

namespace air = augur::ir;

namespace jit::detail {

// One function of a module alone with the externs it calls: what compile()
// compiles, and its canonical text, which keys the cache.
struct ir_compile_unit {
  air::Module module;
  std::string text;
};

struct ir_module_state {
  air::Module module;
  // The units compile() has asked for, by function name: a repeated compile
  // of one module prints and verifies its function once.
  mutable std::mutex mutex;
  mutable std::unordered_map<std::string, std::shared_ptr<const ir_compile_unit>> units;
};

}  // namespace jit::detail

namespace jit::ir {
namespace {

using detail::ir_module_state;

air::Type to_ir(detail::ir_type t) {
  return air::Type(static_cast<air::Scalar>(t.element), t.pointer);
}

std::string list_functions(const air::Module& m) {
  if (m.functions.empty()) return "it has none";
  std::string names = "it has";
  for (const air::Function& f : m.functions)
    names += (&f == &m.functions.front() ? " " : ", ") + f.name;
  return names;
}

const air::Function& find_function(const air::Module& m, std::string_view name,
                                   std::string_view what) {
  const air::Function* f = m.find_function(name);
  if (!f) {
    throw jit::error(std::string(what) + ": the module has no function '" + std::string(name) +
                         "' (" + list_functions(m) + ")",
                     location::in_function(std::string(name)));
  }
  if (f->kernel) {
    throw jit::error(
        std::string(what) + ": '" + f->name + "' is a GPU kernel; only functions run here",
        location::in_function(f->name));
  }
  return *f;
}

std::string header_of(const air::Function& f) {
  std::string out = f.kernel ? "kernel fn " : "fn ";
  out += f.name + "(";
  for (std::size_t i = 0; i < f.num_params; ++i) {
    if (i) out += ", ";
    out += f.vars[i].name + ": " + f.vars[i].type.name();
  }
  return out + ") -> " + f.ret.name();
}

std::string signature_text(detail::ir_type result, std::span<const detail::ir_type> params) {
  std::string out = to_ir(result).name() + "(";
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) out += ", ";
    out += to_ir(params[i]).name();
  }
  return out + ")";
}

// The function `name`, if `result(params)` is exactly its signature.
const air::Function& checked_function(const air::Module& m, std::string_view name,
                                      detail::ir_type result,
                                      std::span<const detail::ir_type> params,
                                      std::string_view what) {
  const air::Function& f = find_function(m, name, what);
  bool same = f.ret == to_ir(result) && f.num_params == params.size();
  for (std::size_t i = 0; same && i < params.size(); ++i) same = f.vars[i].type == to_ir(params[i]);
  if (!same) {
    throw jit::error(std::string(what) + ": '" + f.name + "' is " + header_of(f) +
                         ", but the requested signature is " + signature_text(result, params),
                     location::in_function(f.name));
  }
  return f;
}

std::uint64_t run_interpreter(const air::Module& m, const air::Function& f,
                              std::span<const std::uint64_t> args,
                              const interpret_options& options) {
  const air::ExternTable externs = augur::stage::registered_externs();
  air::InterpOptions interp;
  interp.externs = &externs;
  interp.bounds_check = options.bounds_check;
  interp.step_limit = options.step_limit;
  for (const buffer& b : options.buffers) interp.buffers.push_back({b.base, b.bytes, b.name});
  const air::Interpreter interpreter(m, f.name, std::move(interp));
  std::vector<air::Value> values;
  values.reserve(args.size());
  for (std::uint64_t bits : args) values.push_back({bits});
  return interpreter.run(values).bits;
}

// The compile unit of `f`, made (and verified) on the first request.
std::shared_ptr<const detail::ir_compile_unit> unit_of(const ir_module_state& state,
                                                       const air::Function& f) {
  std::lock_guard lock(state.mutex);
  auto& unit = state.units[f.name];
  if (!unit) {
    auto made = std::make_shared<detail::ir_compile_unit>();
    made->module.functions.push_back(f);
    air::for_each_stmt(f.body, [&](const air::Stmt& s) {
      air::for_each_expr(s, [&](const air::Expr& e) {
        if (e.kind != air::ExprKind::Call) return;
        auto& externs = made->module.externs;
        if (std::find(externs.begin(), externs.end(), e.callee) == externs.end()) {
          externs.push_back(e.callee);
        }
      });
    });
    air::verify(made->module);
    made->text = air::print(made->module);
    unit = std::move(made);
  }
  return unit;
}

// Distinguishes jit::ir's cache keys from jit::compile's, which start with a
// generator's tag (compile.h): the address of this object is unique.
constexpr char ir_key_tag = 0;

}  // namespace

type type::named(std::string_view name) {
  const std::optional<air::Type> parsed = air::Type::parse(name);
  if (!parsed) throw jit::error("jit::ir::type: '" + std::string(name) + "' is not an IR type");
  return type(detail::ir_type{static_cast<detail::scalar>(parsed->scalar()), parsed->is_pointer()});
}

std::string type::name() const {
  return to_ir(type_).name();
}

std::string function_info::signature() const {
  std::string out = kernel ? "kernel fn " : "fn ";
  out += name + "(";
  for (const parameter& p : params) {
    if (&p != &params.front()) out += ", ";
    out += p.name + ": " + p.type.name();
  }
  return out + ") -> " + result.name();
}

module::module() :state_(std::make_shared<ir_module_state>()) {}

module::module(std::shared_ptr<const ir_module_state> state) :state_(std::move(state)) {}

std::string module::print() const {
  return air::print(state_->module);
}

std::vector<verify_error> module::check() const {
  return air::check(state_->module);
}

void module::verify() const {
  air::verify(state_->module);
}

std::string module::content_hash() const {
  return air::content_hash(state_->module).hex();
}

std::vector<function_info> module::functions() const {
  std::vector<function_info> out;
  for (const air::Function& f : state_->module.functions) {
    function_info info;
    info.name = f.name;
    for (const air::Variable& p : f.params())
      info.params.push_back({p.name, type::named(p.type.name())});
    info.result = type::named(f.ret.name());
    info.kernel = f.kernel;
    out.push_back(std::move(info));
  }
  return out;
}

function_info module::function(std::string_view name) const {
  for (function_info& info : functions()) {
    if (info.name == name) return std::move(info);
  }
  throw jit::error("jit::ir: the module has no function '" + std::string(name) + "' (" +
                       list_functions(state_->module) + ")",
                   location::in_function(std::string(name)));
}

value module::interpret(std::string_view name, std::span<const value> args,
                        const interpret_options& options) const {
  const air::Function& f = find_function(state_->module, name, "jit::ir::interpret");
  if (args.size() != f.num_params) {
    throw jit::error("jit::ir::interpret: '" + f.name + "' takes " + std::to_string(f.num_params) +
                         " arguments (" + header_of(f) + "), not " + std::to_string(args.size()),
                     location::in_function(f.name));
  }
  std::vector<std::uint64_t> bits;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string given = args[i].type().name();
    if (given != f.vars[i].type.name()) {
      throw jit::error("jit::ir::interpret: argument " + std::to_string(i + 1) + " of '" + f.name +
                           "' is " + given + ", but parameter '" + f.vars[i].name + "' is " +
                           f.vars[i].type.name(),
                       location::in_function(f.name));
    }
    bits.push_back(args[i].bits());
  }
  const std::uint64_t result = run_interpreter(state_->module, f, bits, options);
  return f.ret.is_void() ? value() : value::from_bits(type::named(f.ret.name()), result);
}

module parse(std::string_view text, std::string_view file) {
  auto state = std::make_shared<ir_module_state>();
  state->module = air::parse_module(text, file);
  return module(std::move(state));
}

}  // namespace jit::ir

namespace jit::detail {

std::uint64_t interpret_ir(const ir::module& module, std::string_view name, ir_type result,
                           std::span<const ir_type> params, std::span<const std::uint64_t> args,
                           const ir::interpret_options& options) {
  const air::Module& m = module.state().module;
  const air::Function& f =
      ir::checked_function(m, name, result, params, "jit::ir::module::interpret");
  return ir::run_interpreter(m, f, args, options);
}

compiled_entry compile_ir(const ir::module& module, std::string_view name, ir_type result,
                          std::span<const ir_type> params, const compile_options& options) {
  const ir_module_state& state = module.state();
  const air::Function& f =
      ir::checked_function(state.module, name, result, params, "jit::ir::compile");
  const std::shared_ptr<const ir_compile_unit> unit = ir::unit_of(state, f);

  // The key: what decides the code. The function's name is in its text;
  // options.name and the staging options do not apply.
  key_writer key;
  key.write_value(reinterpret_cast<std::uintptr_t>(&ir::ir_key_tag));
  key.write_value(options.opt_level);
  key.write_string(options.cpu);
  key.write_string(options.features);
  key.write_string(unit->text);
  const std::string_view bytes = key.bytes();
  const std::uint64_t hash = hash_key(bytes);

  compiled_entry entry;
  if (find_compiled(bytes, hash, entry)) return entry;
  return augur::cache::compile_cached(
      bytes, hash, f.name, [&](augur::cache::ProgramCache& programs) {
        compile_options effective = options;
        effective.name = f.name;
        effective.extraction = {};
        const auto backend = augur::compile::cpu_backend(effective);
        return augur::cache::compile_module(unit->module, effective, *backend, programs);
      });
}

void throw_ir_value_type(const std::string& requested, const std::string& actual) {
  throw jit::error("jit::ir::value: as<" + requested + ">() on a value of type " + actual);
}

}  // namespace jit::detail
