// One JITDylib of the engine: the code, data and extern bindings of one
// compiled version, which never clash with another version's. Destroying it
// unloads all of them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>

namespace augur::cpu {

struct SymbolAddress {
  std::string symbol;
  std::uintptr_t address = 0;
};

struct SymbolLookup {
  std::string symbol;
  bool optional = false;  // its absence is no error
};

class Dylib {
 public:
  explicit Dylib(std::string label);
  ~Dylib();
  Dylib(const Dylib&) = delete;
  Dylib& operator=(const Dylib&) = delete;

  const std::string& label() const { return label_; }

  void define(std::span<const SymbolAddress> absolute_symbols);
  void add(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context);
  void add(std::unique_ptr<llvm::MemoryBuffer> object);

  // Materializes the definitions of `symbols` (compiling and linking them) and
  // returns their addresses, in order; null for an optional symbol that is not
  // defined. Throws jit::compile_error on failure.
  std::vector<void*> lookup(std::span<const SymbolLookup> symbols);

 private:
  std::string label_;
  llvm::orc::JITDylib* dylib_ = nullptr;  // owned by the session; removed by ~Dylib
};

}  // namespace augur::cpu
