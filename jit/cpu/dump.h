// Dumps of what the CPU backend produces: asked for by Options or by the
// AUGUR_DUMP environment variable ("llvm" and "asm" in its comma-separated list).
#pragma once

#include <string_view>

#include "jit/cpu/options.h"

namespace augur::cpu {

bool wants_dump(const Options& options, DumpKind kind);

// Hands the text to options.dump_sink, or writes it to stderr under a header.
void write_dump(const Options& options, DumpKind kind, std::string_view module,
                std::string_view text);

}  // namespace augur::cpu
