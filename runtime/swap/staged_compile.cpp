// What tiered handles compile with (their versions come from jit::compile's
// cache, include/jit/tiered.h), and the error for static arguments of the
// wrong types.
#include <cstdlib>
#include <memory>
#include <string>
#include <typeinfo>

#include <cxxabi.h>

#include "jit/tiered.h"

namespace jit::detail {
namespace {

std::string readable(const std::type_info& type) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name != nullptr ? std::string(name.get()) : std::string(type.name());
}

compile_options at_level(int opt_level) {
  compile_options options;
  options.opt_level = opt_level;
  return options;
}

}  // namespace

const compile_options& tier_options(jit::tier tier) {
  static const compile_options quick = at_level(0);
  static const compile_options optimized = at_level(2);
  return tier == jit::tier::quick ? quick : optimized;
}

void throw_static_types_differ(const std::type_info& expected, const std::type_info& given) {
  throw jit::error("jit::handle::respecialize: static arguments " + readable(given) +
                   " do not match the generator's " + readable(expected));
}

}  // namespace jit::detail
