#include "jit/cpu/compile.h"

#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <optional>
#include <string_view>
#include <unordered_set>

#include "jit/cpu/abi.h"
#include "jit/cpu/backend.h"
#include "jit/cpu/codegen.h"
#include "jit/cpu/compile_job.h"
#include "jit/cpu/dylib.h"
#include "jit/cpu/engine.h"
#include "jit/cpu/llvm_error.h"
#include "jit/cpu/object_bundle.h"
#include "jit/cpu/split_compile.h"
#include "jit/cpu/statistics.h"
#include "jit/cpu/tall_expressions.h"
#include "jit/cpu/target.h"
#include "jit/error.h"
#include "runtime/ir/verifier.h"
#include "runtime/ir/visit.h"

namespace augur::cpu {

namespace {

// The address of each extern in `callees`, under its extern_symbol().
std::vector<SymbolAddress> bind_externs(std::span<const ir::ExternFn> callees,
                                        const ir::ExternTable& externs) {
  std::vector<SymbolAddress> bound;
  for (const ir::ExternFn& callee : callees) {
    bound.push_back({extern_symbol(callee.name), externs.resolve(callee).address_bits()});
  }
  return bound;
}

std::vector<SymbolAddress> bind_externs(const ir::Module& module, const ir::ExternTable& externs) {
  return bind_externs(called_externs(module), externs);
}

struct GeneratedModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;  // destroyed before its context
};

// LLVM IR for a module that is not split (verified IR).
GeneratedModule generate(const ir::Module& module, const Options& options, std::string label) {
  stats::Scope timer(stats::Timer::IrToLlvm);
  GeneratedModule generated;
  generated.context = make_context(options);
  Engine& engine = Engine::get();
  generated.module = generate_llvm(module, *generated.context, engine.data_layout(),
                                   engine.triple(), label, options.invokers);
  if (verifies(options)) {
    std::string report;
    llvm::raw_string_ostream stream(report);
    if (llvm::verifyModule(*generated.module, &stream)) {
      throw jit::compile_error("LLVM verifier rejected the code generated for " + label + ": " +
                               report);
    }
    stats::count(stats::Counter::ModulesVerified);
  }
  return generated;
}

// Parses the object as the JIT linker will, so that a corrupt or foreign file is
// reported to the caller, not only to the session's error log.
void check_object(const llvm::MemoryBuffer& object) {
  auto graph = llvm::jitlink::createLinkGraphFromObject(object.getMemBufferRef());
  if (!graph) check(graph.takeError(), "not a loadable object file");
  const llvm::Triple& host = Engine::get().triple();
  const llvm::Triple& target = (*graph)->getTargetTriple();
  if (target.getArch() != host.getArch() || target.getObjectFormat() != host.getObjectFormat()) {
    throw jit::compile_error("object file for " + target.str() + " cannot run on " + host.str());
  }
}

// `module` with its tall expressions cut (tall_expressions.h), verified
// again when the options verify; nullopt if it has none.
std::optional<ir::Module> cut_for_code(const ir::Module& module, const Options& options) {
  std::optional<ir::Module> cut = cut_tall_expressions(module, options.split_nodes);
  if (cut && verifies(options)) ir::verify(*cut);
  return cut;
}

// compile() for a module with split functions: its objects, compiled
// concurrently, linked in one JITDylib.
std::shared_ptr<CompiledCode> compile_split_module(const ir::Module& module,
                                                   const std::vector<FunctionPlan>& plans,
                                                   const std::vector<SymbolAddress>& bound,
                                                   const Options& options) {
  auto dylib = std::make_unique<Dylib>(Engine::get().new_label());
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects =
      compile_split(module, plans, options, dylib->label());
  dylib->define(bound);
  for (std::unique_ptr<llvm::MemoryBuffer>& object : objects) dylib->add(std::move(object));
  auto code = std::make_shared<CompiledCode>(std::move(dylib), entry_points(module));
  stats::count(stats::Counter::ModulesCompiled);
  return code;
}

}  // namespace

std::shared_ptr<CompiledCode> compile(const ir::Module& module, const ir::ExternTable& externs,
                                      const Options& options) {
  stats::Scope timer(stats::Timer::Total);
  check_options(options);
  const std::vector<SymbolAddress> bound = bind_externs(module, externs);
  if (verifies(options)) ir::verify(module);
  const std::optional<ir::Module> cut = cut_for_code(module, options);
  const ir::Module& source = cut ? *cut : module;
  const std::vector<FunctionPlan> plans = plan_module(source, options);
  if (split_any(plans)) return compile_split_module(source, plans, bound, options);
  auto dylib = std::make_unique<Dylib>(Engine::get().new_label());
  const std::string label = dylib->label();
  GeneratedModule generated = generate(source, options, label);
  const std::shared_ptr<std::string> failure = CompileJob::of(*generated.context)->failure();
  dylib->define(bound);
  dylib->add(std::move(generated.module), std::move(generated.context));
  try {
    auto code = std::make_shared<CompiledCode>(std::move(dylib), entry_points(module));
    stats::count(stats::Counter::ModulesCompiled);
    return code;
  } catch (const jit::compile_error&) {
    if (failure->empty()) throw;
    throw jit::compile_error("cannot compile " + label + ": " + *failure);
  }
}

std::vector<char> compile_object(const ir::Module& module, const Options& options) {
  check_options(options);
  if (verifies(options)) ir::verify(module);
  const std::optional<ir::Module> cut = cut_for_code(module, options);
  const ir::Module& source = cut ? *cut : module;
  const std::vector<FunctionPlan> plans = plan_module(source, options);
  if (split_any(plans)) {
    const std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects =
        compile_split(source, plans, options, Engine::get().new_label());
    stats::count(stats::Counter::ObjectsCompiled);
    return bundle_objects(objects);
  }
  GeneratedModule generated = generate(source, options, Engine::get().new_label());
  std::unique_ptr<llvm::MemoryBuffer> object = unwrap(
      compile_to_object(*generated.module), "cannot compile " + generated.module->getName().str());
  stats::count(stats::Counter::ObjectsCompiled);
  return std::vector<char>(object->getBufferStart(), object->getBufferEnd());
}

std::shared_ptr<CompiledCode> load_object(std::span<const char> object, const ir::Module& module,
                                          const ir::ExternTable& externs) {
  return load_object(object, module, called_externs(module), externs);
}

std::shared_ptr<CompiledCode> load_object(std::span<const char> object, const ir::Module& module,
                                          std::span<const ir::ExternFn> callees,
                                          const ir::ExternTable& externs) {
  stats::Scope timer(stats::Timer::Total);
  const std::vector<SymbolAddress> bound = bind_externs(callees, externs);
  auto dylib = std::make_unique<Dylib>(Engine::get().new_label());
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> buffers;
  for (std::span<const char> piece : unbundle_objects(object)) {
    buffers.push_back(llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(piece.data(), piece.size()), dylib->label()));
    check_object(*buffers.back());
  }
  dylib->define(bound);
  for (std::unique_ptr<llvm::MemoryBuffer>& buffer : buffers) dylib->add(std::move(buffer));
  auto code = std::make_shared<CompiledCode>(std::move(dylib), entry_points(module));
  stats::count(stats::Counter::ObjectsLoaded);
  return code;
}

std::vector<ir::ExternFn> called_externs(const ir::Module& module) {
  std::vector<ir::ExternFn> callees;
  std::unordered_set<std::string_view> seen;
  for (const ir::Function& function : module.functions) {
    ir::for_each_stmt(function.body, [&](const ir::Stmt& stmt) {
      ir::for_each_expr(stmt, [&](const ir::Expr& expr) {
        if (expr.kind == ir::ExprKind::Call && expr.callee &&
            seen.insert(expr.callee->name).second) {
          callees.push_back(*expr.callee);
        }
      });
    });
  }
  return callees;
}

bool is_loaded(std::string_view label) {
  return Engine::get().has_dylib(label);
}

}  // namespace augur::cpu
