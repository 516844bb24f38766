#include "jit/cpu/abi.h"

namespace augur::cpu {

namespace {
std::string prefixed(std::string_view prefix, std::string_view name) {
  std::string out(prefix);
  out += name;
  return out;
}
}  // namespace

std::string function_symbol(std::string_view function) {
  return prefixed("augur.fn.", function);
}
std::string invoker_symbol(std::string_view function) {
  return prefixed("augur.invoke.", function);
}
std::string block_symbol(std::string_view kernel) {
  return prefixed("augur.block.", kernel);
}
std::string extern_symbol(std::string_view name) {
  return prefixed("augur.extern.", name);
}

std::string part_symbol(std::string_view function, std::size_t index) {
  return prefixed("augur.part.", function) + "." + std::to_string(index);
}

SharedLayout shared_layout(const ir::Function& kernel) {
  SharedLayout layout;
  layout.offsets.assign(kernel.vars.size(), 0);
  for (std::size_t i = 0; i < kernel.vars.size(); ++i) {
    const ir::Variable& var = kernel.vars[i];
    if (var.kind != ir::VarKind::Shared) continue;
    layout.offsets[i] = layout.bytes;
    const std::size_t size = var.type.pointee().size() * var.shared_count;
    layout.bytes += (size + kSharedAlignment - 1) / kSharedAlignment * kSharedAlignment;
  }
  return layout;
}

}  // namespace augur::cpu
