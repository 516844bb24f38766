// The seed paper's first prophecy use: GPU preloading in an einsum DSL. Only
// the tensors a run_on_gpu region reads are copied to the device before it,
// only the ones it writes are copied back, and only tensors the device ever
// touches get a device buffer, even when the reads happen under dyn branches.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "einsum.h"
#include "jit/jit.h"
#include "support.h"

namespace augur::stage::testing {
namespace {

// The ids in calls to `callee` with a constant first argument.
std::set<long long> ids_in_calls(const ir::Function& fn, const std::string& callee) {
  std::set<long long> ids;
  for (long long id = 0; id < 16; ++id) {
    if (count_calls(fn, callee, id) > 0) ids.insert(id);
  }
  return ids;
}

std::vector<float> random_floats(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = value(rng);
  return v;
}

// The paper's matrix multiply (seed 000, section 6.1), one pass.
void matmul(jit::dyn<float*> x_in, jit::dyn<float*> y_in, jit::dyn<float*> z_out, int m, int n,
            int o, el::options opts) {
  el::context ctx(opts);
  el::index i, j, k;
  el::tensor x(ctx, {m, n});
  el::tensor x_b(ctx, {m, n}, x_in);
  el::tensor y(ctx, {n, o});
  el::tensor y_b(ctx, {n, o}, y_in);
  el::tensor z(ctx, {m, o});
  el::tensor z_b(ctx, {m, o}, z_out);
  el::assign(x(i, j), x_b(i, j));
  el::assign(y(i, j), y_b(i, j));
  ctx.run_on_gpu([&] { el::accumulate(z(i, j), x(i, k) * y(k, j)); });
  el::assign(z_b(i, j), z(i, j));
}

TEST(Einsum, MatmulCopiesOnlyWhatTheKernelTouches) {
  constexpr int M = 3, N = 4, O = 5;
  const jit::extraction e = jit::extract(matmul, M, N, O, el::options{});
  const ir::Function& fn = function_of(e);
  // Tensors: x 0, x_b 1, y 2, y_b 3, z 4, z_b 5. The kernel reads x, y and z
  // (+= reads z) and writes z.
  EXPECT_EQ(ids_in_calls(fn, "el_copy_to_device"), (std::set<long long>{0, 2, 4}));
  EXPECT_EQ(ids_in_calls(fn, "el_copy_to_host"), (std::set<long long>{4}));
  EXPECT_EQ(ids_in_calls(fn, "el_device_alloc"), (std::set<long long>{0, 2, 4}));
  EXPECT_EQ(count_calls(fn, "el_copy_to_device"), 3);
  EXPECT_EQ(count_calls(fn, "el_copy_to_host"), 1);
  // All misses surface in the first exploration: one restart.
  EXPECT_EQ(e.report().prophecy_runs, 2u);

  const ir::Interpreter interp = interpreter(e);
  std::mt19937 rng(21);
  for (int round = 0; round < 5; ++round) {
    el::device::current().reset();
    std::vector<float> x = random_floats(M * N, rng), y = random_floats(N * O, rng);
    std::vector<float> z(M * O, -1.0f);
    run<void>(interp, x.data(), y.data(), z.data());
    for (int r = 0; r < M; ++r) {
      for (int c = 0; c < O; ++c) {
        float expected = 0.0f;
        for (int q = 0; q < N; ++q) expected = expected + x[r * N + q] * y[q * O + c];
        EXPECT_FLOAT_EQ(z[r * O + c], expected) << r << ", " << c;
      }
    }
    EXPECT_EQ(el::device::current().copies_to_device, 3);
    EXPECT_EQ(el::device::current().copies_to_host, 1);
  }
}

TEST(Einsum, CopyAllBaselineCopiesEveryTensor) {
  const jit::extraction e = jit::extract(matmul, 2, 2, 2, el::options{.copy_all = true});
  EXPECT_EQ(count_calls(function_of(e), "el_copy_to_device"), 6);
  EXPECT_EQ(count_calls(function_of(e), "el_copy_to_host"), 6);
  EXPECT_EQ(e.report().prophecy_runs, 1u);
}

// Reads under dyn branches: a and b only when mode > 0 (b only where a > 0),
// c only otherwise; d is never read; r is written on both paths, s on one.
void branchy(jit::dyn<float*> a_in, jit::dyn<float*> b_in, jit::dyn<float*> c_in,
             jit::dyn<float*> d_in, jit::dyn<float*> r_out, jit::dyn<float*> s_out,
             jit::dyn<int> mode, int n) {
  el::context ctx;
  el::index i;
  el::tensor a(ctx, {n}, a_in);
  el::tensor b(ctx, {n}, b_in);
  el::tensor c(ctx, {n}, c_in);
  el::tensor d(ctx, {n}, d_in);
  el::tensor r(ctx, {n}, r_out);
  el::tensor s(ctx, {n}, s_out);
  ctx.run_on_gpu([&] {
    if (mode > 0) {
      el::assign(r(i), el::where_greater(a(i), 0.0f, b(i), 1.0f));
    } else {
      el::assign(r(i), c(i) * 2.0f);
      el::assign(s(i), c(i) + 1.0f);
    }
  });
  el::assign(d(i), d(i) * 3.0f);  // on the host: no copies for d
}

TEST(Einsum, ReadsUnderDynBranchesAreAllPredicted) {
  constexpr int n = 6;
  const jit::extraction e = jit::extract(branchy, n);
  const ir::Function& fn = function_of(e);
  // a 0, b 1, c 2, d 3, r 4, s 5.
  EXPECT_EQ(ids_in_calls(fn, "el_copy_to_device"), (std::set<long long>{0, 1, 2}));
  EXPECT_EQ(count_calls(fn, "el_copy_to_device"), 3);
  EXPECT_EQ(ids_in_calls(fn, "el_copy_to_host"), (std::set<long long>{4, 5}));
  EXPECT_EQ(count_calls(fn, "el_copy_to_host", 4), 2);  // once per path
  EXPECT_EQ(count_calls(fn, "el_copy_to_host", 5), 1);  // only where s is written
  EXPECT_EQ(ids_in_calls(fn, "el_device_alloc"), (std::set<long long>{0, 1, 2, 4, 5}));

  const ir::Interpreter interp = interpreter(e);
  std::mt19937 rng(22);
  for (int mode : {1, 0, -3, 5}) {
    el::device::current().reset();
    std::vector<float> a = random_floats(n, rng), b = random_floats(n, rng),
                       c = random_floats(n, rng), d = random_floats(n, rng);
    std::vector<float> r(n, 7.0f), s(n, 9.0f);
    const std::vector<float> d0 = d;
    run<void>(interp, a.data(), b.data(), c.data(), d.data(), r.data(), s.data(), mode);
    for (int q = 0; q < n; ++q) {
      if (mode > 0) {
        EXPECT_EQ(r[q], a[q] > 0.0f ? b[q] : 1.0f);
        EXPECT_EQ(s[q], 9.0f);
      } else {
        EXPECT_EQ(r[q], c[q] * 2.0f);
        EXPECT_EQ(s[q], c[q] + 1.0f);
      }
      EXPECT_EQ(d[q], d0[q] * 3.0f);
    }
  }
}

}  // namespace
}  // namespace augur::stage::testing
