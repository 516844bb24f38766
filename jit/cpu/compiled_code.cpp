#include "jit/cpu/compiled_code.h"

#include "jit/cpu/dylib.h"
#include "jit/cpu/statistics.h"
#include "jit/error.h"

namespace augur::cpu {

namespace {

// The symbols that give the entry points' addresses: function and (optional)
// invoker symbols, or block symbols for kernels.
std::vector<SymbolLookup> entry_symbols(std::span<const EntryPoint> entries) {
  std::vector<SymbolLookup> symbols;
  for (const EntryPoint& entry : entries) {
    if (entry.kernel) {
      symbols.push_back({block_symbol(entry.name)});
    } else {
      symbols.push_back({function_symbol(entry.name)});
      symbols.push_back({invoker_symbol(entry.name), true});
    }
  }
  return symbols;
}

}  // namespace

std::vector<EntryPoint> entry_points(const ir::Module& module) {
  std::vector<EntryPoint> entries;
  entries.reserve(module.functions.size());
  for (const ir::Function& function : module.functions) {
    EntryPoint entry;
    entry.name = function.name;
    entry.kernel = function.kernel;
    entry.ret = function.ret;
    for (const ir::Variable& p : function.params()) entry.params.push_back(p.type);
    if (function.kernel) entry.shared_bytes = shared_layout(function).bytes;
    entries.push_back(std::move(entry));
  }
  return entries;
}

CompiledCode::CompiledCode(std::unique_ptr<Dylib> dylib, std::vector<EntryPoint> entries)
    : dylib_(std::move(dylib)), entries_(std::move(entries)) {
  const std::vector<void*> addresses = dylib_->lookup(entry_symbols(entries_));
  std::size_t next = 0;
  for (EntryPoint& entry : entries_) {
    entry.address = addresses[next++];
    if (!entry.kernel) entry.invoker = reinterpret_cast<InvokerFn>(addresses[next++]);
  }
}

CompiledCode::~CompiledCode() {
  stats::count(stats::Counter::VersionsUnloaded);
}

const std::string& CompiledCode::label() const {
  return dylib_->label();
}

const EntryPoint* CompiledCode::find(std::string_view function) const {
  for (const EntryPoint& entry : entries_) {
    if (entry.name == function) return &entry;
  }
  return nullptr;
}

const EntryPoint& CompiledCode::entry(std::string_view function) const {
  if (const EntryPoint* e = find(function)) return *e;
  throw jit::error("no function '" + std::string(function) + "' in compiled module " + label());
}

}  // namespace augur::cpu
