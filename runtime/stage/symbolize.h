// Names first-stage program points in error messages: for each return
// address, the function and source line (from debug info, when the program
// has it and Augur was built with GCC's libbacktrace), else the symbol, else
// module+offset (for addr2line). Frames inside Augur and the standard
// library are left out.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace augur::stage {

// "power(jit::dyn<double>, int) at power.cpp:12 <- main at main.cpp:30", innermost first.
std::string describe_frames(std::span<const void* const> frames, std::size_t limit = 4);

}  // namespace augur::stage
