// The process-wide ORC LLJIT that holds all compiled code.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

namespace augur::cpu {

// Created on first use, thread-safe, never destroyed: LLVM's own function-local
// statics may be destroyed before it at exit, and an LLJIT destroyed after them
// aborts (llvm#76382). Code is unloaded by destroying the CompiledCode that
// holds it; what is still loaded at exit is reclaimed with the process.
//
// Configuration: a TBB-backed task dispatcher; JITLink with EH-frame
// registration (LLJIT's default on ELF x86-64/AArch64); no platform runtime
// (generated modules have no static initializers); process symbols (libm,
// memset) visible to every JITDylib; and backend.h's compile function, which
// optimizes each module with its own options.
class Engine {
 public:
  static Engine& get();

  llvm::orc::LLJIT& jit() { return *jit_; }
  llvm::orc::ExecutionSession& session() { return jit_->getExecutionSession(); }
  const llvm::DataLayout& data_layout() const { return jit_->getDataLayout(); }
  const llvm::Triple& triple() const { return jit_->getTargetTriple(); }

  // A name no earlier compilation had: "augur.v<n>".
  std::string new_label();
  // Whether a JITDylib with this name is loaded.
  bool has_dylib(std::string_view label);

  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

 private:
  Engine();
  ~Engine() = default;

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::atomic<std::uint64_t> next_version_{0};
};

}  // namespace augur::cpu
