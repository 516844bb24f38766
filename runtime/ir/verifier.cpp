#include "runtime/ir/verifier.h"

#include <string>
#include <vector>

#include "runtime/ir/names.h"
#include "runtime/ir/verify_function.h"

namespace augur::ir {

namespace verifier_detail {

// Module::find_extern, tolerating the null entries a broken module may have.
const ExternFn* find_extern(const Module& module, std::string_view name) {
  for (const ExternRef& fn : module.externs) {
    if (fn && fn->name == name) return fn.get();
  }
  return nullptr;
}

}  // namespace verifier_detail

namespace {

using verifier_detail::find_extern;
using verifier_detail::FunctionVerifier;
using verifier_detail::quoted;
using verifier_detail::Reporter;
using verifier_detail::well_formed;

void check_externs(const Module& module, Reporter& reporter) {
  for (std::size_t i = 0; i < module.externs.size(); ++i) {
    const ExternRef& fn = module.externs[i];
    if (!fn) {
      reporter.report("extern #" + std::to_string(i) + " is missing");
      continue;
    }
    const std::string name = quoted(fn->name);
    if (std::string e = global_name_error(fn->name); !e.empty()) {
      reporter.report("extern name " + name + " " + e);
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (module.externs[j] && module.externs[j]->name == fn->name) {
        reporter.report("extern " + name + " is declared twice");
        break;
      }
    }
    if (!well_formed(fn->ret)) {
      reporter.report("extern " + name + " returns an invalid type " + fn->ret.name());
    }
    for (std::size_t p = 0; p < fn->params.size(); ++p) {
      if (!fn->params[p].is_value() || !well_formed(fn->params[p])) {
        reporter.report("parameter " + std::to_string(p + 1) + " of extern " + name +
                        " cannot have type " + fn->params[p].name());
      }
    }
  }
}

void check_module(const Module& module, Reporter& reporter) {
  check_externs(module, reporter);
  for (std::size_t i = 0; i < module.functions.size(); ++i) {
    const Function& fn = module.functions[i];
    const jit::location where = jit::location::in_function(fn.name);
    for (std::size_t j = 0; j < i; ++j) {
      if (module.functions[j].name == fn.name) {
        reporter.report("function " + quoted(fn.name) + " is defined twice", where);
        break;
      }
    }
    if (find_extern(module, fn.name)) {
      reporter.report("function " + quoted(fn.name) + " has the name of an extern", where);
    }
    FunctionVerifier(module, fn, reporter).run();
  }
}

}  // namespace

std::vector<jit::verify_error> check(const Module& module) {
  std::vector<jit::verify_error> errors;
  Reporter reporter(&errors);
  check_module(module, reporter);
  return errors;
}

void verify(const Module& module) {
  Reporter reporter(nullptr);
  check_module(module, reporter);
}

}  // namespace augur::ir
