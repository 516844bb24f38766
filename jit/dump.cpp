#include "jit/dump.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

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

namespace {

struct EnvironmentDumps {
  bool llvm = false;
  bool assembly = false;
};

EnvironmentDumps parse_environment() {
  EnvironmentDumps dumps;
  const char* value = std::getenv("AUGUR_DUMP");
  std::string_view list = value ? value : "";
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    dumps.llvm = dumps.llvm || item == "llvm";
    dumps.assembly = dumps.assembly || item == "asm";
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return dumps;
}

}  // namespace

bool wants_dump(const Options& options, DumpKind kind) {
  static const EnvironmentDumps environment = parse_environment();
  if (kind == DumpKind::Assembly) return options.dump_asm || environment.assembly;
  return options.dump_llvm || environment.llvm;
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
