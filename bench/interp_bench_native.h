// The native side of interp_bench: the benchmarked functions in plain C++,
// compiled twice from interp_bench_native.cpp, at -O3 (namespace native_o3)
// and at -O0 (namespace native_o0).
#pragma once

#include <cstdint>

#define AUGUR_BENCH_NATIVE_FUNCTIONS(ns)                           \
  namespace ns {                                                   \
  double dot(const double* a, const double* b, int n);             \
  std::int64_t gcd(std::int64_t a, std::int64_t b);                \
  void matmul(const double* a, const double* b, double* c, int n); \
  std::int64_t add(std::int64_t a, std::int64_t b);                \
  }
AUGUR_BENCH_NATIVE_FUNCTIONS(native_o3)
AUGUR_BENCH_NATIVE_FUNCTIONS(native_o0)
#undef AUGUR_BENCH_NATIVE_FUNCTIONS
