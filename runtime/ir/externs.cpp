#include "runtime/ir/externs.h"

#include <algorithm>

#include "jit/error.h"

namespace augur::ir {

void ExternTable::add(ExternBinding binding) {
  std::string name = binding.decl->name;
  bindings_.insert_or_assign(std::move(name), std::move(binding));
}

const ExternBinding* ExternTable::find(std::string_view name) const {
  auto it = bindings_.find(name);
  return it == bindings_.end() ? nullptr : &it->second;
}

std::vector<ExternRef> ExternTable::declarations() const {
  std::vector<ExternRef> decls;
  decls.reserve(bindings_.size());
  for (const auto& [name, binding] : bindings_) decls.push_back(binding.decl);
  std::sort(decls.begin(), decls.end(),
            [](const ExternRef& a, const ExternRef& b) { return a->name < b->name; });
  return decls;
}

const ExternBinding& ExternTable::resolve(const ExternFn& decl) const {
  const ExternBinding* b = find(decl.name);
  if (!b) throw jit::error("extern '" + decl.name + "' is not bound to a host function");
  const ExternFn& bound = *b->decl;
  if (bound.ret != decl.ret || bound.params != decl.params) {
    throw jit::error("extern '" + decl.name +
                     "' is declared with a signature that differs from "
                     "the bound host function");
  }
  return *b;
}

}  // namespace augur::ir
