#include "jit/cpu/dump.h"

#include <cstdio>
#include <mutex>

#include "runtime/dump_request.h"

namespace augur::cpu {

std::string_view name_of(DumpKind kind) {
  switch (kind) {
    case DumpKind::LlvmIr:
      return "llvm";
    case DumpKind::OptimizedLlvmIr:
      return "llvm-optimized";
    case DumpKind::Assembly:
      return "asm";
  }
  return "?";
}

bool wants_dump(const Options& options, DumpKind kind) {
  static const bool environment_llvm = dump_requested("llvm");
  static const bool environment_asm = dump_requested("asm");
  if (kind == DumpKind::Assembly) return options.dump_asm || environment_asm;
  return options.dump_llvm || environment_llvm;
}

void write_dump(const Options& options, DumpKind kind, std::string_view module,
                std::string_view text) {
  if (options.dump_sink) {
    options.dump_sink(kind, module, text);
    return;
  }
  // One dump at a time, so that concurrent compilations do not interleave.
  static std::mutex stderr_lock;
  std::lock_guard lock(stderr_lock);
  std::fprintf(stderr, ";; augur %.*s of %.*s\n%.*s\n", static_cast<int>(name_of(kind).size()),
               name_of(kind).data(), static_cast<int>(module.size()), module.data(),
               static_cast<int>(text.size()), text.data());
}

}  // namespace augur::cpu
