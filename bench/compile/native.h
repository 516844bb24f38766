// The benchmark programs hand-written in C++, compiled twice: with the bench
// target's flags (namespace native_o3) and with -march=native added
// (native_o3_march), since Augur compiles for the host CPU.
#pragma once

#include <cstdint>

namespace augur::bench {

namespace native_o3 {
double power13(double x);
double dot64(const double* a, const double* b);
int bf(std::uint8_t* tape, const std::uint8_t* input, std::uint8_t* output);
}  // namespace native_o3

namespace native_o3_march {
double power13(double x);
double dot64(const double* a, const double* b);
int bf(std::uint8_t* tape, const std::uint8_t* input, std::uint8_t* output);
}  // namespace native_o3_march

}  // namespace augur::bench
