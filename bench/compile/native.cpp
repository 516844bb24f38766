// power and dot by hand; bf comes from bf_to_cpp. Compiled once per variant.
#include "bench/compile/native.h"

#include "bench/compile/programs.h"

namespace augur::bench::AUGUR_BENCH_VARIANT {

double power13(double x) {
  double r = 1.0;
  for (int e = kPowerExponent; e > 0; e /= 2) {
    if (e % 2 == 1) r *= x;
    x *= x;
  }
  return r;
}

double dot64(const double* a, const double* b) {
  double sum = 0.0;
  for (int i = 0; i < kDotLength; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace augur::bench::AUGUR_BENCH_VARIANT
