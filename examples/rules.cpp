// Rules for a DSL's own operations: a small matrix DSL, staged with jit::dyn,
// whose algebra the PEG optimizer learns from three registered rules.
//
// Matrices and vectors live on the host, addressed by handle; staged code
// calls the DSL's pure host functions. The program
//   sum(((Aᵀ)ᵀ · B · I) · v)
// costs three N³ products, two transposes and an N² product as written.
// The rules make it sum(A·(B·v)): two N² products. No C++ compiler can do
// this: it does not know what the host functions compute.
//
//   jit::register_rule("transpose-involution", "(mat_transpose (mat_transpose ?a)) => ?a");
//   jit::register_rule("times-identity", "(mat_mul ?a (mat_identity ?n)) => ?a");
//   jit::register_rule("product-times-vector",
//                      "(mat_vec (mat_mul ?a ?b) ?v) => (mat_vec2 ?a ?b ?v)");
//
// The last one says (A·B)·v = A·(B·v); mat_vec2 computes the right-hand
// side with two matrix-vector products (every call costs the same to the
// optimizer, so the cheaper association is named by its own function).
//
// jit::compile runs the PEG optimizer at O2. The program is compiled once
// before the rules are registered and once after (under another name, so
// that the cache does not return the first version); the example checks that
// both give the same result, that the second no longer multiplies matrices
// (the host functions count their calls), and prints the speedup (same run,
// same inputs). AUGUR_DUMP=peg shows the program before and after.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "jit/jit.h"

namespace {

constexpr std::int32_t kN = 96;

// The host side: values by handle. Inputs are the first handles; every call
// appends its result (reset between runs).
std::vector<std::vector<double>>& arena() {
  static std::vector<std::vector<double>> values;
  return values;
}
std::int64_t keep(std::vector<double> value) {
  arena().push_back(std::move(value));
  return static_cast<std::int64_t>(arena().size() - 1);
}
const std::vector<double>& at(std::int64_t handle) {
  return arena()[static_cast<std::size_t>(handle)];
}

std::int64_t mat_transpose(std::int64_t a) {
  std::vector<double> t(kN * kN);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) t[j * kN + i] = at(a)[i * kN + j];
  return keep(std::move(t));
}
int matrix_products = 0;  // mat_mul calls

std::int64_t mat_mul(std::int64_t a, std::int64_t b) {
  ++matrix_products;
  std::vector<double> c(kN * kN);
  for (int i = 0; i < kN; ++i)
    for (int k = 0; k < kN; ++k)
      for (int j = 0; j < kN; ++j) c[i * kN + j] += at(a)[i * kN + k] * at(b)[k * kN + j];
  return keep(std::move(c));
}
std::int64_t mat_identity(std::int32_t n) {
  std::vector<double> id(static_cast<std::size_t>(n) * n);
  for (int i = 0; i < n; ++i) id[i * n + i] = 1;
  return keep(std::move(id));
}
std::vector<double> times(const std::vector<double>& a, const std::vector<double>& v) {
  std::vector<double> r(kN);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) r[i] += a[i * kN + j] * v[j];
  return r;
}
std::int64_t mat_vec(std::int64_t a, std::int64_t v) {
  return keep(times(at(a), at(v)));
}
std::int64_t mat_vec2(std::int64_t a, std::int64_t b, std::int64_t v) {
  return keep(times(at(a), times(at(b), at(v))));
}
double vec_sum(std::int64_t v) {
  double s = 0;
  for (double x : at(v)) s += x;
  return s;
}

const auto transpose_fn =
    jit::register_external("mat_transpose", &mat_transpose, jit::effect::pure);
const auto mul_fn = jit::register_external("mat_mul", &mat_mul, jit::effect::pure);
const auto identity_fn = jit::register_external("mat_identity", &mat_identity, jit::effect::pure);
const auto vec_fn = jit::register_external("mat_vec", &mat_vec, jit::effect::pure);
const auto vec2_fn = jit::register_external("mat_vec2", &mat_vec2, jit::effect::pure);
const auto sum_fn = jit::register_external("vec_sum", &vec_sum, jit::effect::pure);

// The user's program, written naively.
jit::dyn<double> program(jit::dyn<std::int64_t> a, jit::dyn<std::int64_t> b,
                         jit::dyn<std::int64_t> v) {
  const jit::dyn<std::int64_t> m =
      mul_fn(mul_fn(transpose_fn(transpose_fn(a)), b), identity_fn(kN));
  return sum_fn(vec_fn(m, v));
}

using Program = jit::function<double(std::int64_t, std::int64_t, std::int64_t)>;

// Seconds per call, the best of a few runs.
double time_per_call(const Program& f, int calls) {
  double best = 1e9;
  for (int run = 0; run < 3; ++run) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) {
      f(0, 1, 2);
      arena().resize(3);
    }
    best = std::min(
        best,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls);
  }
  return best;
}

// The matrix products one call of `f` makes.
int products_per_call(const Program& f) {
  matrix_products = 0;
  f(0, 1, 2);
  arena().resize(3);
  return matrix_products;
}

}  // namespace

int main() {
  try {
    jit::compile_options as_written;
    as_written.name = "as_written";
    const Program plain = jit::compile(as_written, program);

    jit::register_rule("transpose-involution", "(mat_transpose (mat_transpose ?a)) => ?a");
    jit::register_rule("times-identity", "(mat_mul ?a (mat_identity ?n)) => ?a");
    jit::register_rule("product-times-vector",
                       "(mat_vec (mat_mul ?a ?b) ?v) => (mat_vec2 ?a ?b ?v)");
    jit::compile_options with_rules;
    with_rules.name = "with_rules";
    const Program fast = jit::compile(with_rules, program);

    std::vector<double> a(kN * kN), b(kN * kN), v(kN);
    for (int i = 0; i < kN * kN; ++i) {
      a[i] = std::sin(i);
      b[i] = std::cos(i);
    }
    for (int i = 0; i < kN; ++i) v[i] = 1.0 / (1 + i);
    arena() = {a, b, v};
    const double expected = plain(0, 1, 2);
    arena().resize(3);
    const double actual = fast(0, 1, 2);
    arena().resize(3);
    const bool agree = std::fabs(expected - actual) <= 1e-9 * std::fmax(1.0, std::fabs(expected));
    std::printf("result as written %.12g, with the rules %.12g: %s\n", expected, actual,
                agree ? "agree" : "DIFFER");
    const int products_before = products_per_call(plain);
    const int products_after = products_per_call(fast);
    std::printf("matrix products per call: as written %d, with the rules %d\n", products_before,
                products_after);

    const double slow_s = time_per_call(plain, 5);
    const double fast_s = time_per_call(fast, 200);
    std::printf("per call: as written %.3f ms, with the rules %.4f ms: %.0fx faster\n",
                slow_s * 1e3, fast_s * 1e3, slow_s / fast_s);
    return agree && products_before == 2 && products_after == 0 ? 0 : 1;
  } catch (const jit::error& err) {
    std::fprintf(stderr, "error: %s\n", err.what());
    return 1;
  }
}
