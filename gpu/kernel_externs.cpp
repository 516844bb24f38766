#include "gpu/kernel_externs.h"

#include <vector>

#include "jit/scan.h"

namespace augur::gpu {

namespace {

struct Scan {
  ir::ExternBinding host;  // under the name jit/scan.h registers it with
  HelperKind helper;
};

const std::vector<Scan>& scans() {
  static const std::vector<Scan> all = {
      {ir::bind_extern("augur_find_byte", &jit::detail::find_byte_host, ir::Effect::ReadOnly),
       HelperKind::FindByte},
      {ir::bind_extern("augur_find_any_of", &jit::detail::find_any_of_host, ir::Effect::ReadOnly),
       HelperKind::FindAnyOf},
      {ir::bind_extern("augur_find_literal", &jit::detail::find_literal_host, ir::Effect::ReadOnly),
       HelperKind::FindLiteral},
      {ir::bind_extern("augur_find_sets", &jit::detail::find_sets_host, ir::Effect::ReadOnly),
       HelperKind::FindSets},
  };
  return all;
}

}  // namespace

const ir::ExternTable& kernel_externs() {
  static const ir::ExternTable table = [] {
    ir::ExternTable t;
    for (const Scan& scan : scans()) t.add(scan.host);
    return t;
  }();
  return table;
}

std::optional<HelperKind> device_helper(const ir::ExternFn& callee) {
  for (const Scan& scan : scans()) {
    if (*scan.host.decl == callee) return scan.helper;
  }
  return std::nullopt;
}

}  // namespace augur::gpu
