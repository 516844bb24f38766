// One compiled version of an IR module, loaded in the engine. Its code stays
// loaded while the object lives; the destructor unloads it, so callers must
// make sure that no thread is still running it (runtime/swap's job).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jit/cpu/abi.h"
#include "runtime/compile/backend.h"
#include "runtime/ir/ir.h"

namespace augur::cpu {

class Dylib;

struct EntryPoint {
  std::string name;
  bool kernel = false;
  ir::Type ret;
  std::vector<ir::Type> params;
  std::size_t shared_bytes = 0;  // kernels: SharedLayout::bytes
  // Non-kernels: the function with the C ABI. Kernels: the BlockFn.
  void* address = nullptr;
  InvokerFn invoker = nullptr;  // non-kernels compiled with Options::invokers
};

// The entry points of `module`'s functions, without addresses.
std::vector<EntryPoint> entry_points(const ir::Module& module);

// The CPU backend's compile::Code.
class CompiledCode final : public compile::Code {
 public:
  // Looks up the addresses of `entries` in `dylib` (materializing its code).
  CompiledCode(std::unique_ptr<Dylib> dylib, std::vector<EntryPoint> entries);
  ~CompiledCode() override;
  CompiledCode(const CompiledCode&) = delete;
  CompiledCode& operator=(const CompiledCode&) = delete;

  // Null if the module had no such function.
  const EntryPoint* find(std::string_view function) const;
  // Throws jit::error naming the function if there is none.
  const EntryPoint& entry(std::string_view function) const;
  // entry(function).address.
  void* address(std::string_view function) const { return entry(function).address; }

  std::span<const EntryPoint> entries() const { return entries_; }
  // The engine's name for this version ("augur.v12").
  const std::string& label() const;

 private:
  std::unique_ptr<Dylib> dylib_;
  std::vector<EntryPoint> entries_;
};

}  // namespace augur::cpu
