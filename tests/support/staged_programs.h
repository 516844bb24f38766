// Staged programs and the same logic in plain C++: the staging goldens'
// generators (tests/stage/golden_test.cpp), shared with the tests and
// benchmarks that compile them.
#pragma once

#include <cstdint>

#include "jit/jit.h"

namespace augur::staged {

inline jit::dyn<double> power(jit::dyn<double> x, int n) {
  jit::dyn<double> r("r", 1.0);
  for (jit::stat<int> e = n; e > 0; e = e / 2) {
    if (e % 2 == 1) r = r * x;
    x = x * x;
  }
  return r;
}

inline double plain_power(double x, int n) {
  double r = 1.0;
  for (int e = n; e > 0; e = e / 2) {
    if (e % 2 == 1) r = r * x;
    x = x * x;
  }
  return r;
}

inline jit::dyn<double> power_dyn(jit::dyn<double> x, jit::dyn<int> n) {
  jit::dyn<double> r("r", 1.0);
  while (n > 0) {
    if ((n & 1) == 1) r = r * x;
    x = x * x;
    n = n >> 1;
  }
  return r;
}

inline jit::dyn<int> nested_loops(jit::dyn<int> n, jit::dyn<int> m) {
  jit::dyn<int> total("total", 0);
  for (jit::dyn<int> i("i", 0); i < n; ++i) {
    if (i % 5 == 4) continue;
    for (jit::dyn<int> j("j", 0); j < m; ++j) {
      if (j == i) break;
      if ((i + j) % 3 == 0) continue;
      total += i * j;
    }
    if (total > 1000) break;
  }
  return total;
}

inline int plain_nested_loops(int n, int m) {
  int total = 0;
  for (int i = 0; i < n; ++i) {
    if (i % 5 == 4) continue;
    for (int j = 0; j < m; ++j) {
      if (j == i) break;
      if ((i + j) % 3 == 0) continue;
      total += i * j;
    }
    if (total > 1000) break;
  }
  return total;
}

[[gnu::noinline]] inline void accumulate(jit::dyn<int>& acc, const jit::dyn<int>& v) {
  acc = acc + v * v;
}
[[gnu::always_inline]] inline void scale(jit::dyn<int>& acc, int k) {
  acc = acc * k;
}

// Each helper is called from two sites: two places, two copies of its code.
inline jit::dyn<int> helpers(jit::dyn<int> a, jit::dyn<int> b) {
  jit::dyn<int> acc("acc", 0);
  accumulate(acc, a);
  scale(acc, 3);
  if (a > b) accumulate(acc, b);
  scale(acc, 5);
  return acc;
}

inline int plain_helpers(int a, int b) {
  int acc = a * a * 3;
  if (a > b) acc += b * b;
  return acc * 5;
}

inline jit::dyn<std::uint32_t> bits(jit::dyn<std::uint32_t> x, int n) {
  jit::dyn<std::uint32_t> reversed("reversed", 0u);
  for (jit::stat<int> i = 0; i < n; ++i) {
    if (((x >> i) & 1u) == 1u) reversed = reversed | (1u << (n - 1 - i));
  }
  return reversed;
}

inline void clamp_all(jit::dyn<float*> v, jit::dyn<float> lo, jit::dyn<float> hi, int n) {
  for (jit::stat<int> i = 0; i < n; ++i) {
    if (v[i] < lo) {
      v[i] = lo;
    } else if (v[i] > hi) {
      v[i] = hi;
    }
  }
}

// Staging rule 8 (docs/staging.md): a dyn loop whose static counter changes
// every iteration unrolls until extract_options::max_nodes stops it.
inline jit::dyn<int> unrolls_forever(jit::dyn<int> x) {
  jit::stat<int> k = 0;
  while (x > 0) {
    x = x - k;
    ++k;
  }
  return x;
}

}  // namespace augur::staged
