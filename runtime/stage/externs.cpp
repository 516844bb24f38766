#include "runtime/stage/externs.h"

#include <deque>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jit/error.h"
#include "runtime/stage/types.h"

namespace augur::stage {

namespace {

class Registry {
 public:
  const jit::detail::extern_entry& add(ir::ExternFn decl, ir::GenericFn address,
                                       jit::detail::raw_invoker raw) {
    std::unique_lock lock(mutex_);
    auto it = by_name_.find(decl.name);
    if (it != by_name_.end()) {
      const jit::detail::extern_entry& known = *it->second;
      if (*known.binding.decl == decl && known.binding.address == address) return known;
      throw jit::staging_error("the external function '" + decl.name +
                               "' is already registered with another address, signature or "
                               "effect");
    }
    jit::detail::extern_entry& entry = entries_.emplace_back();
    entry.binding.decl = std::make_shared<const ir::ExternFn>(std::move(decl));
    entry.binding.address = address;
    entry.binding.invoke = &invoke;
    entry.raw = raw;
    by_name_.emplace(entry.binding.decl->name, &entry);
    by_address_.emplace(address, raw);
    return entry;
  }

  ir::ExternTable table() const {
    std::shared_lock lock(mutex_);
    ir::ExternTable table;
    for (const jit::detail::extern_entry& e : entries_) table.add(e.binding);
    return table;
  }

  jit::detail::raw_invoker raw_for(ir::GenericFn address) const {
    std::shared_lock lock(mutex_);
    return by_address_.at(address);
  }

 private:
  // The interpreter's invoker for every registered function: forwards to the
  // typed thunk registered with the function's address.
  static ir::Value invoke(ir::GenericFn fn, std::span<const ir::Value> args) {
    std::vector<std::uint64_t> bits(args.size() + 1);
    for (std::size_t i = 0; i < args.size(); ++i) bits[i] = args[i].bits;
    return ir::Value{instance().raw_for(fn)(fn, bits.data())};
  }

 public:
  static Registry& instance() {
    // Never destroyed: host functions stay callable during static destruction.
    static Registry* registry = new Registry;
    return *registry;
  }

 private:
  mutable std::shared_mutex mutex_;
  std::deque<jit::detail::extern_entry> entries_;
  std::unordered_map<std::string, const jit::detail::extern_entry*> by_name_;
  std::unordered_map<ir::GenericFn, jit::detail::raw_invoker> by_address_;
};

}  // namespace

ir::ExternTable registered_externs() {
  return Registry::instance().table();
}

}  // namespace augur::stage

namespace jit::detail {

const extern_entry& register_extern(std::string name, void (*address)(), raw_invoker invoke,
                                    ir_type ret, std::span<const ir_type> params, effect e) {
  using namespace augur;
  ir::ExternFn decl;
  decl.name = std::move(name);
  decl.ret = stage::to_ir(ret);
  for (const ir_type& p : params) decl.params.push_back(stage::to_ir(p));
  decl.effect = stage::to_ir(e);
  return stage::Registry::instance().add(std::move(decl), address, invoke);
}

effect effect_of(const extern_entry& fn) {
  return augur::stage::from_ir(fn.binding.decl->effect);
}

}  // namespace jit::detail
