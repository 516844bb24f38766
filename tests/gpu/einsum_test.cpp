// The einsum DSL's run_on_gpu regions on the GPU backend (einsum_gpu.h): the
// host program runs on the CPU backend and launches one kernel per statement
// of a region; only the tensors a region reads are copied to the device and
// only those it writes are copied back, and the results are a plain C++
// einsum's.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "einsum_gpu.h"
#include "jit/cpu/compile.h"
#include "jit/cpu/invoke.h"
#include "runtime/stage/externs.h"
#include "runtime/stage/extract.h"

namespace augur::gpu::testing {
namespace {

el::options on_backend() {
  el_gpu::device_state::current().reset(jit::gpu::detail::default_backend());
  jit::gpu::options kernels;
  kernels.check_cuda = true;  // every einsum kernel also compiles with NVRTC
  el::options o;
  o.device = &el_gpu::device_functions();
  o.gpu_statement = el_gpu::statement_launcher(kernels);
  return o;
}

// The host program, compiled by the CPU backend (its externals bound).
struct host_program {
  std::shared_ptr<cpu::CompiledCode> code;
  std::string name;
  ir::Module module;

  template <class... A>
  void operator()(A... args) const {
    const std::vector<ir::Value> values = {ir::Value::of(args)...};
    cpu::invoke(*code, name, values);
  }
};

template <class F, class... S>
host_program compile_host(F fn, S... statics) {
  const jit::detail::generator_closure<F, S...> closure(fn, statics...);
  jit::extract_options options;
  options.name = "host";
  stage::Extracted e = stage::extract(closure.get(), options);
  host_program p;
  p.code = cpu::compile(e.module, stage::registered_externs());
  p.name = "host";
  p.module = std::move(e.module);
  return p;
}

std::vector<float> random_floats(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = value(rng);
  return v;
}

std::set<int> as_set(const std::vector<int>& ids) {
  return {ids.begin(), ids.end()};
}

// The matrix multiply of the seed paper (section 6.1).
void matmul(jit::dyn<float*> x_in, jit::dyn<float*> y_in, jit::dyn<float*> z_out, int m, int n,
            int o, const el::options& opts) {
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

TEST(EinsumOnGpuBackend, MatmulCopiesOnlyWhatTheKernelTouches) {
  constexpr int M = 5, N = 7, O = 6;
  const std::size_t compiled_before = el_gpu::compiled_statements();
  const host_program host = compile_host(&matmul, M, N, O, on_backend());
  EXPECT_EQ(el_gpu::compiled_statements(), compiled_before + 1);  // one statement in the region
  std::mt19937 rng(31);
  for (int round = 0; round < 3; ++round) {
    el_gpu::device_state& device = el_gpu::device_state::current();
    device.reset(device.where);
    std::vector<float> x = random_floats(M * N, rng), y = random_floats(N * O, rng);
    std::vector<float> z(M * O, -1.0f);
    host(x.data(), y.data(), z.data());
    // Tensors: x 0, x_b 1, y 2, y_b 3, z 4, z_b 5. The region reads x, y and
    // z (+= reads z) and writes z.
    EXPECT_EQ(as_set(device.copied_in), (std::set<int>{0, 2, 4}));
    EXPECT_EQ(device.copied_in.size(), 3u);
    EXPECT_EQ(device.copied_out, (std::vector<int>{4}));
    EXPECT_EQ(device.launches, 1);
    for (int r = 0; r < M; ++r) {
      for (int c = 0; c < O; ++c) {
        float expected = 0.0f;  // z starts at 0: the program allocates it
        for (int q = 0; q < N; ++q) expected = expected + x[r * N + q] * y[q * O + c];
        EXPECT_FLOAT_EQ(z[r * O + c], expected) << r << ", " << c;
      }
    }
  }
}

// Reads under dyn branches of the host program: a and b only when mode > 0,
// c only otherwise; d is never read on the device; r is written on both
// paths, s on one.
void branchy(jit::dyn<float*> a_in, jit::dyn<float*> b_in, jit::dyn<float*> c_in,
             jit::dyn<float*> d_in, jit::dyn<float*> r_out, jit::dyn<float*> s_out,
             jit::dyn<int> mode, int n, const el::options& opts) {
  el::context ctx(opts);
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
  el::assign(d(i), d(i) * 3.0f);  // on the host
}

TEST(EinsumOnGpuBackend, ReadsUnderDynBranchesAreAllPredicted) {
  constexpr int n = 70;  // two blocks of 64 threads
  const host_program host = compile_host(&branchy, n, on_backend());
  std::mt19937 rng(32);
  for (int mode : {1, 0, -3, 5}) {
    el_gpu::device_state& device = el_gpu::device_state::current();
    device.reset(device.where);
    std::vector<float> a = random_floats(n, rng), b = random_floats(n, rng),
                       c = random_floats(n, rng), d = random_floats(n, rng);
    std::vector<float> r(n, 7.0f), s(n, 9.0f);
    const std::vector<float> d0 = d;
    host(a.data(), b.data(), c.data(), d.data(), r.data(), s.data(), mode);
    // a 0, b 1, c 2, d 3, r 4, s 5: every tensor the region may read is
    // copied in (the prediction covers both paths), only what this path
    // wrote comes back.
    EXPECT_EQ(as_set(device.copied_in), (std::set<int>{0, 1, 2})) << mode;
    EXPECT_EQ(device.copied_in.size(), 3u);
    const std::vector<int> written = mode > 0 ? std::vector<int>{4} : std::vector<int>{4, 5};
    EXPECT_EQ(device.copied_out, written) << mode;
    EXPECT_EQ(device.launches, mode > 0 ? 1 : 2);
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

TEST(EinsumOnGpuBackend, RegionStatementsAreKernelsOfTheBackend) {
  const host_program host = compile_host(&branchy, 8, on_backend());
  std::string calls;
  for (const ir::ExternRef& e : host.module.externs) calls += e->name + " ";
  EXPECT_NE(calls.find("elg_launch"), std::string::npos) << calls;
  EXPECT_NE(calls.find("elg_copy_to_device"), std::string::npos) << calls;
}

}  // namespace
}  // namespace augur::gpu::testing
