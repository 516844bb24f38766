// Staged code in a user's program, through the installed <jit/jit.h> only:
// a static exponent, dyn values, `&&` on a dyn and a static operand, compiled
// at O2 and checked against plain C++. Built by each compiler the install
// test is given (GCC, and Clang where it is installed).
#include <jit/jit.h>

#include <cstdio>

namespace {

jit::dyn<double> clamped_power(jit::dyn<double> x, int n) {
  jit::dyn<double> r = 1.0;
  for (jit::stat<int> e = n; e > 0; e = e / 2) {
    if (e % 2 == 1) r = r * x;
    x = x * x;
  }
  jit::dyn<double> result = r;
  if (n > 2 && r > 1000.0) result = 1000.0;
  return result;
}

double reference(double x, int n) {
  double r = 1.0;
  for (int i = 0; i < n; ++i) r *= x;
  return n > 2 && r > 1000.0 ? 1000.0 : r;
}

}  // namespace

int main() {
  try {
    const jit::function<double(double)> pow7 = jit::compile(clamped_power, 7);
    int failures = 0;
    for (double x : {-3.0, -1.5, 0.5, 1.0, 2.0, 3.0}) {
      if (pow7(x) != reference(x, 7)) {
        std::fprintf(stderr, "staged: pow7(%g) = %g, expected %g\n", x, pow7(x), reference(x, 7));
        ++failures;
      }
    }
    return failures == 0 ? 0 : 1;
  } catch (const jit::error& e) {
    std::fprintf(stderr, "staged: %s\n", e.what());
    return 1;
  }
}
