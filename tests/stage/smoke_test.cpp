#include <gtest/gtest.h>

#include <iostream>

#include "jit/jit.h"

namespace {

jit::dyn<double> power(jit::dyn<double> x, int n) {
  jit::dyn<double> r = 1.0;
  for (jit::stat<int> e = n; e > 0; e = e / 2) {
    if (e % 2 == 1) r = r * x;
    x = x * x;
  }
  return r;
}

jit::dyn<double> power_dyn(jit::dyn<double> x, jit::dyn<int> n) {
  jit::dyn<double> r = 1.0;
  while (n > 0) {
    if ((n & 1) == 1) r = r * x;
    x = x * x;
    n = n >> 1;
  }
  return r;
}

TEST(Smoke, Power) {
  jit::extraction e = jit::extract(power, 13);
  std::cout << e.ir() << e.report().str() << "\n";
  jit::extraction d = jit::extract(power_dyn);
  std::cout << d.ir() << d.report().str() << "\n";
}

}  // namespace
