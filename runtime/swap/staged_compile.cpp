// The CPU backend behind tiered handles: an extracted program compiled at the
// tier's optimization level, through jit::compile's optimizer step (the PEG
// optimizer at O2).
#include <memory>
#include <string>
#include <typeinfo>

#include <cxxabi.h>

#include "jit/compile.h"
#include "jit/tiered.h"
#include "runtime/cache/pipeline.h"
#include "runtime/stage/externs.h"
#include "runtime/stage/extract.h"

namespace jit::detail {
namespace {

std::string readable(const std::type_info& type) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name != nullptr ? std::string(name.get()) : std::string(type.name());
}

}  // namespace

compiled_version compile_extraction(const extraction& program, jit::tier tier) {
  jit::compile_options level;
  level.opt_level = tier == jit::tier::quick ? 0 : 2;
  augur::ir::Module module = program.result().extracted.module;
  const augur::ir::ExternTable externs = augur::stage::registered_externs();
  augur::cache::optimize(module, level, externs);
  augur::cpu::Options options;
  options.opt_level = level.opt_level;
  options.invokers = false;  // handles call the C ABI entry only
  const auto code = augur::cpu::compile(module, externs, options);
  return {reinterpret_cast<erased_entry>(code->address(program.name())), code};
}

void throw_static_types_differ(const std::type_info& expected, const std::type_info& given) {
  throw jit::error("jit::handle::respecialize: static arguments " + readable(given) +
                   " do not match the generator's " + readable(expected));
}

}  // namespace jit::detail
