#include "gpu/kernel_externs.h"

#include <array>
#include <utility>

#include "jit/scan.h"

namespace augur::gpu {

namespace {

struct Scan {
  const char* name;
  HelperKind helper;
};

// The extern names jit/scan.h registers its host functions under.
constexpr std::array<Scan, 4> kScans = {{
    {"augur_find_byte", HelperKind::FindByte},
    {"augur_find_any_of", HelperKind::FindAnyOf},
    {"augur_find_literal", HelperKind::FindLiteral},
    {"augur_find_sets", HelperKind::FindSets},
}};

}  // namespace

const ir::ExternTable& kernel_externs() {
  static const ir::ExternTable table = [] {
    ir::ExternTable t;
    t.add(kScans[0].name, &jit::detail::find_byte_host, ir::Effect::ReadOnly);
    t.add(kScans[1].name, &jit::detail::find_any_of_host, ir::Effect::ReadOnly);
    t.add(kScans[2].name, &jit::detail::find_literal_host, ir::Effect::ReadOnly);
    t.add(kScans[3].name, &jit::detail::find_sets_host, ir::Effect::ReadOnly);
    return t;
  }();
  return table;
}

std::optional<HelperKind> device_helper(const ir::ExternFn& callee) {
  for (const Scan& scan : kScans) {
    if (callee.name != scan.name) continue;
    const ir::ExternBinding* binding = kernel_externs().find(scan.name);
    if (binding && *binding->decl == callee) return scan.helper;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace augur::gpu
