// Options of one compilation by the CPU backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace augur::cpu {

enum class DumpKind : std::uint8_t {
  LlvmIr,           // as generated from Augur IR
  OptimizedLlvmIr,  // after the pass pipeline
  Assembly,         // the machine code, as assembly
};
std::string_view name_of(DumpKind kind);

// Receives a dump: its kind, the label of the compiled module ("augur.v12") and the text.
using DumpSink = std::function<void(DumpKind kind, std::string_view module, std::string_view text)>;

struct Options {
  // 0..3: the new pass manager's O0..O3 pipelines and the matching code
  // generation level. Loop and SLP vectorization are on at 2 and 3.
  int opt_level = 2;
  // An LLVM CPU name ("znver3"); empty: the host's CPU and all its features.
  std::string cpu;
  // Extra LLVM target features ("+avx2,-fma") on top of the CPU's.
  std::string features;
  // Generate each function's InvokerFn, which invoke() needs. Without them a
  // module compiles 10-20% faster; callers that use the C ABI entry only
  // (typed function pointers) can do without.
  bool invokers = true;
  // Functions of more IR nodes (statements and expressions) than this are
  // split for code generation into pieces of about this size, compiled
  // concurrently (docs/cpu.md, "Large functions"); 0: never split.
  std::size_t split_nodes = 4000;
  // Dumps, besides those that AUGUR_DUMP asks for ("llvm": LLVM IR before and
  // after optimization; "asm": assembly).
  bool dump_llvm = false;
  bool dump_asm = false;
  DumpSink dump_sink;  // empty: stderr
  // Run Augur's verifier on the IR, and LLVM's on each LLVM module before and
  // after optimization. Builds with AUGUR_CHECKED always do.
  bool verify = false;
};

}  // namespace augur::cpu
