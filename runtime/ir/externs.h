// Host functions callable from IR. A binding pairs a declaration with the
// function's address (for compiled code) and a typed invoker (for the
// interpreter). Bindings are made from real C++ function pointers, so the
// declared signature always matches the function.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "runtime/ir/ir.h"
#include "runtime/ir/string_map.h"

namespace augur::ir {

using GenericFn = void (*)();
using Invoker = Value (*)(GenericFn fn, std::span<const Value> args);

struct ExternBinding {
  ExternRef decl;
  GenericFn address = nullptr;
  Invoker invoke = nullptr;

  std::uintptr_t address_bits() const { return reinterpret_cast<std::uintptr_t>(address); }
};

namespace detail {
template <class R, class... A, std::size_t... I>
Value invoke_typed(GenericFn fn, std::span<const Value> args, std::index_sequence<I...>) {
  auto typed = reinterpret_cast<R (*)(A...)>(fn);
  if constexpr (std::is_void_v<R>) {
    typed(args[I].template as<A>()...);
    return {};
  } else {
    return Value::of<R>(typed(args[I].template as<A>()...));
  }
}
template <class R, class... A>
Value invoke_thunk(GenericFn fn, std::span<const Value> args) {
  return invoke_typed<R, A...>(fn, args, std::index_sequence_for<A...>{});
}
}  // namespace detail

// Makes a binding for `fn` under `name`; the signature comes from the C++ type.
template <class R, class... A>
ExternBinding bind_extern(std::string name, R (*fn)(A...), Effect effect) {
  ExternFn decl{std::move(name), type_of<R>(), {type_of<A>()...}, effect};
  return {std::make_shared<const ExternFn>(std::move(decl)), reinterpret_cast<GenericFn>(fn),
          &detail::invoke_thunk<R, A...>};
}

// Name → binding. Not synchronized: fill it, then share it read-only.
class ExternTable {
 public:
  // Adds or replaces the binding for its name.
  void add(ExternBinding binding);
  template <class R, class... A>
  ExternRef add(std::string name, R (*fn)(A...), Effect effect) {
    ExternBinding b = bind_extern(std::move(name), fn, effect);
    ExternRef decl = b.decl;
    add(std::move(b));
    return decl;
  }

  const ExternBinding* find(std::string_view name) const;
  // The binding for `decl`; throws jit::error if the name is unbound or the
  // bound signature differs from the declaration.
  const ExternBinding& resolve(const ExternFn& decl) const;

  std::size_t size() const { return bindings_.size(); }
  // Every bound declaration, by name.
  std::vector<ExternRef> declarations() const;

 private:
  StringMap<ExternBinding> bindings_;
};

}  // namespace augur::ir
