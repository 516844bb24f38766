// Compiled once per optimization level; CMake defines AUGUR_BENCH_VARIANT as
// the namespace (see interp_bench_native.h).
#include "bench/interp_bench_native.h"

namespace AUGUR_BENCH_VARIANT {

double dot(const double* a, const double* b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s = s + a[i] * b[i];
  return s;
}

std::int64_t gcd(std::int64_t a, std::int64_t b) {
  while (b != 0) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

void matmul(const double* a, const double* b, double* c, int n) {
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int l = 0; l < n; ++l) acc = acc + a[i * n + l] * b[l * n + j];
      c[i * n + j] = acc;
    }
  }
}

std::int64_t add(std::int64_t a, std::int64_t b) {
  return a + b;
}

}  // namespace AUGUR_BENCH_VARIANT
