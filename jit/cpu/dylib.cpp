#include "jit/cpu/dylib.h"

#include <utility>

#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>

#include "jit/cpu/engine.h"
#include "jit/cpu/llvm_error.h"

namespace augur::cpu {

Dylib::Dylib(std::string label) : label_(std::move(label)) {
  llvm::Expected<llvm::orc::JITDylib&> created = Engine::get().jit().createJITDylib(label_);
  if (!created) check(created.takeError(), "cannot create JITDylib " + label_);
  dylib_ = &*created;
}

Dylib::~Dylib() {
  llvm::orc::ExecutionSession& session = Engine::get().session();
  // A destructor cannot throw: failures go to the session's error reporter.
  if (llvm::Error error = session.removeJITDylib(*dylib_)) session.reportError(std::move(error));
}

void Dylib::define(std::span<const SymbolAddress> absolute_symbols) {
  if (absolute_symbols.empty()) return;
  llvm::orc::LLJIT& jit = Engine::get().jit();
  llvm::orc::SymbolMap symbols;
  for (const SymbolAddress& s : absolute_symbols) {
    symbols[jit.mangleAndIntern(s.symbol)] = {
        llvm::orc::ExecutorAddr(s.address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  }
  check(dylib_->define(llvm::orc::absoluteSymbols(std::move(symbols))),
        "cannot bind externs in " + label_);
}

void Dylib::add(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context) {
  llvm::orc::ThreadSafeModule tsm(std::move(module),
                                  llvm::orc::ThreadSafeContext(std::move(context)));
  check(Engine::get().jit().addIRModule(*dylib_, std::move(tsm)), "cannot add " + label_);
}

void Dylib::add(std::unique_ptr<llvm::MemoryBuffer> object) {
  check(Engine::get().jit().addObjectFile(*dylib_, std::move(object)),
        "cannot load the object file of " + label_);
}

std::vector<void*> Dylib::lookup(std::span<const SymbolLookup> symbols) {
  llvm::orc::LLJIT& jit = Engine::get().jit();
  llvm::orc::SymbolLookupSet names;
  std::vector<llvm::orc::SymbolStringPtr> interned;
  for (const SymbolLookup& s : symbols) {
    interned.push_back(jit.mangleAndIntern(s.symbol));
    names.add(interned.back(), s.optional ? llvm::orc::SymbolLookupFlags::WeaklyReferencedSymbol
                                          : llvm::orc::SymbolLookupFlags::RequiredSymbol);
  }
  llvm::orc::SymbolMap found = unwrap(
      Engine::get().session().lookup(llvm::orc::makeJITDylibSearchOrder(
                                         dylib_, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
                                     std::move(names)),
      "cannot compile " + label_);
  std::vector<void*> addresses;
  addresses.reserve(symbols.size());
  for (const llvm::orc::SymbolStringPtr& name : interned) {
    const auto it = found.find(name);
    addresses.push_back(it == found.end() ? nullptr : it->second.getAddress().toPtr<void*>());
  }
  return addresses;
}

}  // namespace augur::cpu
