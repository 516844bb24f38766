// The programs of the compile benchmarks, shared by the benchmark, its
// hand-written C++ counterparts and the BF → C++ translator.
#pragma once

#include <string>

namespace augur::bench {

// A BF program of 1,000+ instructions: each of the first `chars` characters of
// a text built by a multiplication loop and printed, then the input echoed.
inline std::string long_bf_program(std::size_t chars = 40) {
  const std::string text =
      std::string(
          "Augur stages C++ into IR: a Brainfuck interpreter specialized to this program "
          "leaves only the program's own loops.")
          .substr(0, chars);
  std::string p;
  for (const char c : text) {
    const int v = static_cast<unsigned char>(c);
    p += "[-]>[-]++++++++++[<";
    p += std::string(static_cast<std::size_t>(v / 10), '+');
    p += ">-]<";
    p += std::string(static_cast<std::size_t>(v % 10), '+');
    p += ".";
  }
  p += ",[.,]";
  return p;
}

inline constexpr int kPowerExponent = 13;
inline constexpr int kDotLength = 64;

}  // namespace augur::bench
