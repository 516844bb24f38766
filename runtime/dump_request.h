// AUGUR_DUMP: which stages print what they make to stderr. The variable is a
// comma-separated list of stage names (stage, peg, ir, llvm, asm, cuda) or
// "all"; each stage asks for its own name.
#pragma once

#include <string_view>

namespace augur {

// Whether AUGUR_DUMP lists `stage` (or "all").
bool dump_requested(std::string_view stage);

}  // namespace augur
