// jit::compile's first example: x^n with n known at compile time. The static
// loop over the exponent unrolls into a handful of multiplications, compiled
// to native code once and cached on n.
#include <cstdio>
#include <cstdlib>

#include <jit/jit.h>

namespace {

// First stage: `e` is static (it unrolls); `x` and `r` are dyn (they become code).
jit::dyn<double> power(jit::dyn<double> x, int n) {
  jit::dyn<double> r = 1.0;
  for (jit::stat<int> e = n; e > 0; e = e / 2) {
    if (e % 2 == 1) r = r * x;
    x = x * x;
  }
  return r;
}

double reference(double x, int n) {
  double r = 1.0;
  for (int i = 0; i < n; ++i) r *= x;
  return r;
}

}  // namespace

int main() {
  try {
    // Dump the IR handed to the backend: a straight line of multiplications.
    jit::compile_options options;
    options.name = "pow13";
    options.dump_ir = true;
    const jit::function<double(double)> pow13 = jit::compile(options, power, 13);
    std::printf("pow13(2) = %g\n", pow13(2.0));

    // The same request again is a cache lookup: same code, nothing compiled.
    const jit::function<double(double)> again = jit::compile(options, power, 13);
    // Other exponents are other specializations, compiled in the background.
    auto pow5 = jit::compile_async(power, 5);

    int failures = again.pointer() == pow13.pointer() ? 0 : 1;
    for (double x : {-1.5, 0.5, 1.0, 2.0, 3.0}) {
      if (pow13(x) != reference(x, 13)) ++failures;
    }
    if (pow5.get()(2.0) != 32.0) ++failures;

    const jit::cache_statistics stats = jit::cache_stats();
    std::printf("cache: %llu requests, %llu hits, %llu compiles, %.2f ms compiling\n",
                static_cast<unsigned long long>(stats.requests),
                static_cast<unsigned long long>(stats.hits),
                static_cast<unsigned long long>(stats.compiles),
                static_cast<double>(stats.compile_time.count()) / 1e6);
    if (stats.compiles != 2) ++failures;
    std::printf(failures == 0 ? "power: OK\n" : "power: %d FAILURES\n", failures);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
  } catch (const jit::error& e) {
    std::fprintf(stderr, "power: %s\n", e.what());
    return EXIT_FAILURE;
  }
}
