// The arithmetic families: long straight-line code from static loops.
//
//  - power: x^e for many large static exponents e by square-and-multiply on
//    wrapping i64 (about 90 statements per exponent), summed.
//  - poly: a degree-24 polynomial (static coefficients) evaluated by Horner's
//    rule at every point of an array, each result stored.
//  - fft: an in-place radix-2 FFT on `points` complex f64 values, unrolled:
//    the bit-reversal swaps, then every butterfly with its twiddle factor a
//    constant.
//
// No dyn branch: each stages in one run. Variables declared once per
// unrolled iteration stay unnamed: staging makes a user name unique by
// probing name.1, name.2, ... (runtime/stage/finalize.cpp), which is
// quadratic in the copies of one name (fft_2048 staged in 31 s with named
// temporaries).
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "bench/corpus/families.h"
#include "bench/corpus/rng.h"

namespace augur::bench::corpus {
namespace {

constexpr std::size_t kBases = 64;
constexpr int kDegree = 24;

jit::dyn<std::int64_t> powers(jit::dyn<const std::int64_t*> bases,
                              const std::vector<std::uint64_t>& exponents) {
  jit::dyn<std::int64_t> sum("sum", 0);
  for (jit::stat<std::size_t> k = 0; k < exponents.size(); ++k) {
    jit::dyn<std::int64_t> x(bases[k % kBases]);
    jit::dyn<std::int64_t> r(1);
    for (jit::stat<std::uint64_t> e = exponents[k]; e > 0; e = e / 2) {
      if (e % 2 == 1) r = r * x;
      x = x * x;
    }
    sum = sum + r;
  }
  return sum;
}

void horner(jit::dyn<const double*> xs, jit::dyn<double*> ys, std::size_t points,
            const std::vector<double>& coefficients) {
  for (jit::stat<std::size_t> i = 0; i < points; ++i) {
    const jit::dyn<double> x(xs[i]);
    jit::dyn<double> r(coefficients.back());
    for (jit::stat<int> c = kDegree - 1; c >= 0; --c) r = r * x + coefficients[c];
    ys[i] = r;
  }
}

void fft(jit::dyn<double*> re, jit::dyn<double*> im, std::size_t points) {
  int bits = 0;
  while ((std::size_t{1} << bits) < points) ++bits;
  for (jit::stat<std::size_t> i = 0; i < points; ++i) {
    std::size_t j = 0;
    for (int b = 0; b < bits; ++b) j |= ((i >> b) & 1) << (bits - 1 - b);
    if (i < j) {
      const jit::dyn<double> tr(re[i]), ti(im[i]);
      re[i] = re[j];
      im[i] = im[j];
      re[j] = tr;
      im[j] = ti;
    }
  }
  for (jit::stat<std::size_t> half = 1; half < points; half = half * 2) {
    for (jit::stat<std::size_t> start = 0; start < points; start = start + 2 * half) {
      for (jit::stat<std::size_t> k = 0; k < half; ++k) {
        const double angle = -std::numbers::pi * static_cast<double>(k) / static_cast<double>(half);
        const double wr = std::cos(angle), wi = std::sin(angle);
        const std::size_t a = start + k, b = a + half;
        const jit::dyn<double> br(re[b]), bi(im[b]);
        const jit::dyn<double> tr(br * wr - bi * wi), ti(br * wi + bi * wr);
        const jit::dyn<double> ar(re[a]), ai(im[a]);
        re[a] = ar + tr;
        im[a] = ai + ti;
        re[b] = ar - tr;
        im[b] = ai - ti;
      }
    }
  }
}

}  // namespace

Program make_power(std::size_t exponents) {
  if (exponents < 1 || exponents > 1'000'000)
    throw jit::error("corpus: power takes 1 to 1,000,000 exponents");
  Rng rng(exponents);
  std::vector<std::uint64_t> e;
  for (std::size_t k = 0; k < exponents; ++k) e.push_back(rng.next() | (std::uint64_t{1} << 63));
  Program p;
  p.family = "power";
  p.size = exponents;
  p.name = "power_" + std::to_string(exponents);
  p.description = "sum of x^e, " + std::to_string(exponents) + " 64-bit exponents, i64";
  p.params = {{"bases", ir::type_of<const std::int64_t*>(), kBases, -1e9, 1e9, false}};
  p.stage = [name = p.name, e] {
    jit::extract_options options;
    options.name = name;
    options.param_names = {"bases"};
    return jit::extract(options, powers, e);
  };
  return p;
}

Program make_poly(std::size_t points) {
  if (points < 1 || points > 1'000'000)
    throw jit::error("corpus: poly takes 1 to 1,000,000 points");
  Rng rng(points);
  std::vector<double> c;
  for (int k = 0; k <= kDegree; ++k) c.push_back(rng.unit() * 2 - 1);
  Program p;
  p.family = "poly";
  p.size = points;
  p.name = "poly_" + std::to_string(points);
  p.description =
      "degree-" + std::to_string(kDegree) + " Horner at " + std::to_string(points) + " points, f64";
  p.params = {{"xs", ir::type_of<const double*>(), points, -1.5, 1.5, false},
              {"ys", ir::type_of<double*>(), points, 0, 0, true}};
  p.stage = [name = p.name, points, c] {
    jit::extract_options options;
    options.name = name;
    options.param_names = {"xs", "ys"};
    return jit::extract(options, horner, points, c);
  };
  return p;
}

Program make_fft(std::size_t points) {
  if (points < 2 || points > (1u << 20) || (points & (points - 1)) != 0)
    throw jit::error("corpus: fft takes a power of two from 2 to 2^20 points");
  Program p;
  p.family = "fft";
  p.size = points;
  p.name = "fft_" + std::to_string(points);
  p.description = "radix-2 FFT on " + std::to_string(points) + " complex f64, unrolled";
  p.params = {{"re", ir::type_of<double*>(), points, -1, 1, true},
              {"im", ir::type_of<double*>(), points, -1, 1, true}};
  p.stage = [name = p.name, points] {
    jit::extract_options options;
    options.name = name;
    options.param_names = {"re", "im"};
    return jit::extract(options, fft, points);
  };
  return p;
}

}  // namespace augur::bench::corpus
