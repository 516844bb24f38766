// Kernels on the emulated grid: indices, shared memory, barriers, atomics.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <numeric>
#include <random>
#include <thread>

#include "jit/error.h"
#include "tests/ir/interp_test_support.h"

namespace augur::ir {
namespace {

using namespace augur::ir::testing;
using ::testing::HasSubstr;

const Type kI32p = Type::pointer_to(Scalar::I32);

jit::trap_error trap_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const jit::trap_error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a trap";
  return jit::trap_error("no trap");
}

Function scale() {
  // kernel fn scale(v: f32*, n: i32, a: f32) {
  //   var i: i32 = block_idx.x * block_dim.x + thread_idx.x; if (i < n) v[i] = v[i] * a; }
  FunctionBuilder b("scale", Type::void_(), true);
  E v = b.read(b.param("v", Type::pointer_to(Scalar::F32)));
  E n = b.read(b.param("n", Type::i32()));
  E a = b.read(b.param("a", Type::f32()));
  VarId i = b.declare("i", Type::i32(), block_x() * block_dim_x() + thread_x());
  b.if_(E(b.read(i)) < n, [&] { b.store(v, b.read(i), at(v, E(b.read(i))) * a); });
  return std::move(b).finish();
}

TEST(InterpKernels, ScaleOverSeveralBlocks) {
  Interpreter k = interpreter(scale());
  EXPECT_TRUE(k.is_kernel());
  std::mt19937 rng(5);
  for (std::uint32_t block : {1u, 32u, 100u}) {
    for (int n : {0, 1, 31, 257, 1000}) {
      std::vector<float> v(static_cast<std::size_t>(n));
      for (float& x : v) x = static_cast<float>(rng() % 1000) / 7.0f;
      std::vector<float> expected = v;
      for (float& x : expected) x = x * 2.5f;
      const std::uint32_t grid = std::max(1u, (static_cast<std::uint32_t>(n) + block - 1) / block);
      k.launch({grid}, {block}, v.data(), n, 2.5f);
      EXPECT_EQ(v, expected) << "n = " << n << ", block = " << block;
    }
  }
}

Function reduce() {
  // kernel fn reduce(in: i32*, out: i64*, n: i32) {
  //   shared s: i64[256];
  //   var t: i32 = thread_idx.x; var g: i32 = block_idx.x * block_dim.x + t;
  //   s[t] = g < n ? i64(in[g]) : 0i64;
  //   barrier;
  //   for (var stride: i32 = block_dim.x / 2; stride > 0; stride = stride >> 1) {
  //     if (t < stride) { s[t] = s[t] + s[t + stride]; }
  //     barrier;
  //   }
  //   if (t == 0) { out[block_idx.x] = s[0]; } }
  FunctionBuilder b("reduce", Type::void_(), true);
  E in = b.read(b.param("in", kI32p));
  E out = b.read(b.param("out", Type::pointer_to(Scalar::I64)));
  E n = b.read(b.param("n", Type::i32()));
  E s = b.read(b.shared_array("s", Scalar::I64, 256));
  E t = b.read(b.declare("t", Type::i32(), thread_x()));
  E g = b.read(b.declare("g", Type::i32(), block_x() * block_dim_x() + t));
  b.store(s, t, sel(g < n, to(Type::i64(), at(in, g)), lit<std::int64_t>(0)));
  b.barrier();
  VarId stride = b.new_local("stride", Type::i32());
  b.for_([&] { b.emit(Stmt::decl(stride, block_dim_x() / 2)); }, E(b.read(stride)) > 0,
         [&] { b.assign(stride, E(b.read(stride)) >> 1); },
         [&] {
           b.if_(t < E(b.read(stride)),
                 [&] { b.store(s, t, at(s, t) + at(s, t + E(b.read(stride)))); });
           b.barrier();
         });
  b.if_(t == 0, [&] { b.store(out, block_x(), at(s, 0)); });
  return std::move(b).finish();
}

std::vector<std::int64_t> block_sums(const std::vector<std::int32_t>& in, std::uint32_t block,
                                     std::uint32_t blocks) {
  std::vector<std::int64_t> sums(blocks, 0);
  for (std::size_t i = 0; i < in.size(); ++i) sums[i / block] += in[i];
  return sums;
}

TEST(InterpKernels, BlockReductionThroughSharedMemoryAndBarriers) {
  Interpreter k = interpreter(reduce());
  std::mt19937 rng(9);
  for (std::uint32_t block : {1u, 2u, 64u, 256u}) {
    for (int n : {1, 100, 777}) {
      std::vector<std::int32_t> in(static_cast<std::size_t>(n));
      for (auto& x : in) x = static_cast<std::int32_t>(rng());
      const std::uint32_t blocks = (static_cast<std::uint32_t>(n) + block - 1) / block;
      std::vector<std::int64_t> out(blocks, -1);
      k.launch({blocks}, {block}, in.data(), out.data(), n);
      EXPECT_EQ(out, block_sums(in, block, blocks)) << "n = " << n << ", block = " << block;
    }
  }
}

TEST(InterpKernels, HistogramWithGlobalAndSharedAtomics) {
  // kernel fn histogram(data: u32*, n: i32, global: i32*, bins: u32) {
  //   shared local: i32[64];
  //   var i: i32 = block_idx.x * block_dim.x + thread_idx.x;
  //   if (i < n) { atomic_add(global, data[i] % bins, 1i32); atomic_add(local, data[i] % bins,
  //   1i32); } barrier; if (thread_idx.x == 0) { for (var b: u32 = 0; b < bins; b = b + 1)
  //   atomic_add(global, b + bins, local[b]); } }
  FunctionBuilder b("histogram", Type::void_(), true);
  E data = b.read(b.param("data", Type::pointer_to(Scalar::U32)));
  E n = b.read(b.param("n", Type::i32()));
  E global = b.read(b.param("global", kI32p));
  E bins = b.read(b.param("bins", Type::u32()));
  E local = b.read(b.shared_array("local", Scalar::I32, 64));
  E i = b.read(b.declare("i", Type::i32(), block_x() * block_dim_x() + thread_x()));
  b.if_(i < n, [&] {
    b.eval(atomic(AtomicOp::Add, {global, at(data, i) % bins, lit<std::int32_t>(1)}));
    b.eval(atomic(AtomicOp::Add, {local, at(data, i) % bins, lit<std::int32_t>(1)}));
  });
  b.barrier();
  VarId bin = b.new_local("bin", Type::u32());
  b.if_(thread_x() == 0, [&] {
    b.for_(
        [&] { b.emit(Stmt::decl(bin, lit<std::uint32_t>(0))); }, E(b.read(bin)) < bins,
        [&] { b.assign(bin, E(b.read(bin)) + 1); },
        [&] {
          b.eval(atomic(AtomicOp::Add, {global, E(b.read(bin)) + bins, at(local, E(b.read(bin)))}));
        });
  });
  Interpreter k = interpreter(std::move(b).finish());
  std::mt19937 rng(2);
  for (std::uint32_t bin_count : {1u, 10u, 64u}) {
    const int n = 1000;
    std::vector<std::uint32_t> values(n);
    for (auto& x : values) x = rng();
    std::vector<std::int32_t> hist(2 * bin_count, 0), expected(2 * bin_count, 0);
    for (std::uint32_t x : values) {
      ++expected[x % bin_count];
      ++expected[bin_count + x % bin_count];
    }
    k.launch({static_cast<std::uint32_t>(n + 127) / 128}, {128}, values.data(), n, hist.data(),
             bin_count);
    EXPECT_EQ(hist, expected) << bin_count << " bins";
  }
}

TEST(InterpKernels, AtomicsReturnTheOldValueAndRunInThreadOrder) {
  // kernel fn atomics(x: i32*, u: u64*, f: f32*, prev: i32*, cells: i64*) {
  //   var i: i32 = block_idx.x * block_dim.x + thread_idx.x;
  //   atomic_max(cells, 0, i64(x[i])); atomic_min(cells, 1, i64(x[i]));
  //   atomic_max(u, 0, u64(x[i])); atomic_min(u, 1, u64(x[i]));
  //   atomic_add(f, 0, f32(x[i]) * 0.1f32);
  //   prev[i] = atomic_exchange(prev, n, i)   (prev[n] holds the last writer)
  //   var old: i64 = cells[2]; while (atomic_cas(cells, 2, old, old + i64(i)) != old) { old =
  //   cells[2]; } cells[3] = atomic_cas(cells, 4, 12345i64, 7i64);  (fails: cells[4] is never
  //   12345) }
  const int threads = 6 * 16;
  FunctionBuilder b("atomics", Type::void_(), true);
  E x = b.read(b.param("x", kI32p));
  E u = b.read(b.param("u", Type::pointer_to(Scalar::U64)));
  E f = b.read(b.param("f", Type::pointer_to(Scalar::F32)));
  E prev = b.read(b.param("prev", kI32p));
  E cells = b.read(b.param("cells", Type::pointer_to(Scalar::I64)));
  E i = b.read(b.declare("i", Type::i32(), block_x() * block_dim_x() + thread_x()));
  E xi = at(x, i);
  b.eval(atomic(AtomicOp::Max, {cells, lit<std::int32_t>(0), to(Type::i64(), xi)}));
  b.eval(atomic(AtomicOp::Min, {cells, lit<std::int32_t>(1), to(Type::i64(), xi)}));
  b.eval(atomic(AtomicOp::Max, {u, lit<std::int32_t>(0), to(Type::u64(), xi)}));
  b.eval(atomic(AtomicOp::Min, {u, lit<std::int32_t>(1), to(Type::u64(), xi)}));
  b.eval(atomic(AtomicOp::Add, {f, lit<std::int32_t>(0), to(Type::f32(), xi) * 0.1f}));
  b.store(prev, i, atomic(AtomicOp::Exchange, {prev, lit<std::int32_t>(threads), i}));
  VarId old = b.declare("old", Type::i64(), at(cells, 2));
  b.while_(E(atomic(AtomicOp::Cas, {cells, lit<std::int32_t>(2), b.read(old),
                                    E(b.read(old)) + to(Type::i64(), i)})) != E(b.read(old)),
           [&] { b.assign(old, at(cells, 2)); });
  b.store(cells, lit<std::int32_t>(3),
          atomic(AtomicOp::Cas,
                 {cells, lit<std::int32_t>(4), lit<std::int64_t>(12345), lit<std::int64_t>(7)}));
  Interpreter k = interpreter(std::move(b).finish());

  std::mt19937 rng(4);
  std::vector<std::int32_t> xs(threads);
  for (auto& v : xs) v = static_cast<std::int32_t>(rng() % 2001) - 1000;
  std::vector<std::uint64_t> us = {0, ~std::uint64_t{0}};
  float fsum = 0.0f;
  std::vector<std::int32_t> prev_values(threads + 1, -1);
  std::vector<std::int64_t> cells_values = {std::numeric_limits<std::int64_t>::min(),
                                            std::numeric_limits<std::int64_t>::max(), 0, 0, 99};
  k.launch({6}, {16}, xs.data(), us.data(), &fsum, prev_values.data(), cells_values.data());

  float expected_sum = 0.0f;  // in thread order: x-fastest, blocks in order
  for (std::int32_t v : xs) expected_sum += static_cast<float>(v) * 0.1f;
  EXPECT_EQ(fsum, expected_sum);
  EXPECT_EQ(cells_values[0], *std::max_element(xs.begin(), xs.end()));
  EXPECT_EQ(cells_values[1], *std::min_element(xs.begin(), xs.end()));
  std::uint64_t umax = 0, umin = ~std::uint64_t{0};
  for (std::int32_t v : xs) {
    umax = std::max(umax, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
    umin = std::min(umin, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
  }
  EXPECT_EQ(us[0], umax);
  EXPECT_EQ(us[1], umin);
  for (int t = 0; t < threads; ++t) EXPECT_EQ(prev_values[t], t - 1) << t;
  EXPECT_EQ(prev_values[threads], threads - 1);
  EXPECT_EQ(cells_values[2], threads * (threads - 1) / 2);
  EXPECT_EQ(cells_values[3], 99);
  EXPECT_EQ(cells_values[4], 99);
}

TEST(InterpKernels, EveryIndexIntrinsicInAThreeDimensionalGrid) {
  // out[linear id] = tx + 10 ty + 100 tz + 1000 bx + 10000 by + 100000 bz, where the
  // linear id is built from block_dim and grid_dim; count[0] counts the threads.
  FunctionBuilder b("grid3", Type::void_(), true);
  E out_p = b.read(b.param("out", kI32p));
  E count_p = b.read(b.param("count", kI32p));
  const auto idx = [](GpuIndex w, unsigned axis) { return E(gpu_index(w, axis)); };
  E tx = idx(GpuIndex::ThreadIdx, 0), ty = idx(GpuIndex::ThreadIdx, 1),
    tz = idx(GpuIndex::ThreadIdx, 2);
  E bx = idx(GpuIndex::BlockIdx, 0), by = idx(GpuIndex::BlockIdx, 1),
    bz = idx(GpuIndex::BlockIdx, 2);
  E dx = idx(GpuIndex::BlockDim, 0), dy = idx(GpuIndex::BlockDim, 1),
    dz = idx(GpuIndex::BlockDim, 2);
  E gx = idx(GpuIndex::GridDim, 0), gy = idx(GpuIndex::GridDim, 1);
  E block_id = (bz * gy + by) * gx + bx;
  E thread_id = (tz * dy + ty) * dx + tx;
  b.store(out_p, block_id * (dx * dy * dz) + thread_id,
          tx + ty * 10 + tz * 100 + bx * 1000 + by * 10000 + bz * 100000);
  b.eval(atomic(AtomicOp::Add, {count_p, lit<std::int32_t>(0), lit<std::int32_t>(1)}));
  Interpreter k = interpreter(std::move(b).finish());
  const Dim3 grid{2, 3, 2}, block{4, 2, 3};
  const int total = 2 * 3 * 2 * 4 * 2 * 3;
  std::vector<std::int32_t> out(total, -1), expected(total);
  std::int32_t count = 0;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 2; ++x)
        for (int k3 = 0; k3 < 3; ++k3)
          for (int j = 0; j < 2; ++j)
            for (int i = 0; i < 4; ++i) {
              const int linear = ((z * 3 + y) * 2 + x) * 24 + (k3 * 2 + j) * 4 + i;
              expected[linear] = i + j * 10 + k3 * 100 + x * 1000 + y * 10000 + z * 100000;
            }
  k.launch(grid, block, out.data(), &count);
  EXPECT_EQ(out, expected);
  EXPECT_EQ(count, total);
}

TEST(InterpKernels, SharedMemoryIsPerBlockAndZeroed) {
  // kernel fn neighbours(out: i32*, first: i32*) {
  //   shared s: i32[32]; var t: i32 = thread_idx.x;
  //   if (t == 0) { first[block_idx.x] = s[0] + s[31]; }
  //   s[t] = t * 10 + block_idx.x; barrier;
  //   out[block_idx.x * block_dim.x + t] = s[(t + 1) % block_dim.x]; }
  FunctionBuilder b("neighbours", Type::void_(), true);
  E out_p = b.read(b.param("out", kI32p));
  E first_p = b.read(b.param("first", kI32p));
  E s = b.read(b.shared_array("s", Scalar::I32, 32));
  E t = b.read(b.declare("t", Type::i32(), thread_x()));
  b.if_(t == 0, [&] { b.store(first_p, block_x(), at(s, 0) + at(s, 31)); });
  b.store(s, t, t * 10 + block_x());
  b.barrier();
  b.store(out_p, block_x() * block_dim_x() + t, at(s, (t + 1) % block_dim_x()));
  Interpreter k = interpreter(std::move(b).finish());
  const int blocks = 5, threads = 32;
  std::vector<std::int32_t> out(blocks * threads, -1), first(blocks, -1);
  k.launch({blocks}, {threads}, out.data(), first.data());
  for (int blk = 0; blk < blocks; ++blk) {
    EXPECT_EQ(first[blk], 0) << "block " << blk << " saw an earlier block's shared memory";
    for (int t = 0; t < threads; ++t) {
      EXPECT_EQ(out[blk * threads + t], ((t + 1) % threads) * 10 + blk);
    }
  }
}

Function diverging(bool two_barriers) {
  // kernel fn diverge() { var t: i32 = thread_idx.x;
  //   if (t < 2) { barrier; }                      (one barrier)
  //   if (t % 2 == 0) { barrier; } else { barrier; } (two barriers) }
  FunctionBuilder b("diverge", Type::void_(), true);
  E t = b.read(b.declare("t", Type::i32(), thread_x()));
  if (two_barriers) {
    b.if_(
        t % 2 == 0, [&] { b.barrier(); }, [&] { b.barrier(); });
  } else {
    b.if_(t < 2, [&] { b.barrier(); });
  }
  return std::move(b).finish();
}

TEST(InterpKernels, BarrierDivergenceTraps) {
  Interpreter one = interpreter(diverging(false));
  jit::trap_error finished = trap_of([&] { one.launch({2}, {4}); });
  EXPECT_EQ(finished.message(),
            "barrier divergence: thread (2,0,0) finished without reaching this barrier "
            "(thread (0,0,0) of block (0,0,0))");
  EXPECT_EQ(finished.where().path, "body[1].then[0]");
  // Blocks whose threads all reach the barrier are fine.
  EXPECT_NO_THROW(one.launch({3}, {2}));

  Interpreter two = interpreter(diverging(true));
  jit::trap_error split = trap_of([&] { two.launch({1}, {2}); });
  EXPECT_EQ(split.message(),
            "barrier divergence: thread (1,0,0) waits at another barrier, body[1].else[0] "
            "(thread (0,0,0) of block (0,0,0))");
  EXPECT_EQ(split.where().path, "body[1].then[0]");
  EXPECT_NO_THROW(two.launch({1}, {1}));
}

TEST(InterpKernels, TrapsNameTheThreadAndBlock) {
  // kernel fn k(out: i32*) { var i: i32 = block_idx.x * block_dim.x + thread_idx.x; out[i] = 100 /
  // (i - 5); }
  FunctionBuilder b("k", Type::void_(), true);
  E out_p = b.read(b.param("out", kI32p));
  E i = b.read(b.declare("i", Type::i32(), block_x() * block_dim_x() + thread_x()));
  b.store(out_p, i, 100 / (i - 5));
  Interpreter k = interpreter(std::move(b).finish());
  std::vector<std::int32_t> out(8, 0);
  jit::trap_error e = trap_of([&] { k.launch({2}, {4}, out.data()); });
  EXPECT_EQ(e.message(), "division by zero (thread (1,0,0) of block (1,0,0))");
  EXPECT_EQ(e.where().path, "body[1]");
  EXPECT_EQ(out[4], -100);  // thread (0,0,0) of block (1,0,0) ran before it
}

TEST(InterpKernels, SharedArraysAreAlwaysBoundsChecked) {
  // kernel fn k(offset: i32) { shared s: i32[8]; s[thread_idx.x + offset] = 1; }
  FunctionBuilder b("k", Type::void_(), true);
  E offset = b.read(b.param("offset", Type::i32()));
  E s = b.read(b.shared_array("s", Scalar::I32, 8));
  b.store(s, thread_x() + offset, lit<std::int32_t>(1));
  Interpreter k = interpreter(std::move(b).finish());
  EXPECT_NO_THROW(k.launch({1}, {8}, 0));
  jit::trap_error e = trap_of([&] { k.launch({1}, {8}, 1); });
  EXPECT_THAT(e.message(), HasSubstr("store out of bounds: "));
  EXPECT_THAT(e.message(), HasSubstr(" is 4 bytes past shared array 's' ["));
  EXPECT_THAT(e.message(), HasSubstr(", +32) (thread (7,0,0) of block (0,0,0))"));
  EXPECT_THAT(trap_of([&] { k.launch({1}, {8}, -2); }).message(),
              HasSubstr(" is 8 bytes before shared array 's' ["));
}

TEST(InterpKernels, BoundsCheckedKernelsAcceptSharedArraysThroughDerivedPointers) {
  // kernel fn k(out: i32*, n: i32) { shared s: i32[4]; var q: i32* = s + 1i32;
  //   q[thread_idx.x] = thread_idx.x; barrier; out[thread_idx.x] = s[thread_idx.x + 1] + n; }
  FunctionBuilder b("k", Type::void_(), true);
  E out_p = b.read(b.param("out", kI32p));
  E n = b.read(b.param("n", Type::i32()));
  E s = b.read(b.shared_array("s", Scalar::I32, 4));
  E q = b.read(b.declare("q", kI32p, s + lit<std::int32_t>(1)));
  b.store(q, thread_x(), thread_x());
  b.barrier();
  b.store(out_p, thread_x(), at(s, thread_x() + 1) + n);
  std::vector<std::int32_t> out(4, -1);
  InterpOptions options;
  options.bounds_check = true;
  options.buffers = {{out.data(), 3 * sizeof(std::int32_t), "out"}};
  Interpreter k = interpreter(std::move(b).finish(), options);
  k.launch({1}, {3}, out.data(), 100);
  EXPECT_EQ(out, (std::vector<std::int32_t>{100, 101, 102, -1}));
  // Four threads: q[3] is s[4], past the array, found through the derived pointer.
  EXPECT_THAT(trap_of([&] { k.launch({1}, {4}, out.data(), 0); }).message(),
              HasSubstr("is 4 bytes past shared array 's'"));
}

TEST(InterpKernels, StepLimitCoversTheWholeLaunch) {
  // kernel fn k(out: i32*) { var i: i32; while (i < 10) { i = i + 1; } out[thread_idx.x] = i; }
  FunctionBuilder b("k", Type::void_(), true);
  E out_p = b.read(b.param("out", kI32p));
  VarId i = b.declare("i", Type::i32());
  b.while_(E(b.read(i)) < 10, [&] { b.assign(i, E(b.read(i)) + 1); });
  b.store(out_p, thread_x(), b.read(i));
  std::vector<std::int32_t> out(64, 0);
  InterpOptions options;
  options.step_limit = 100;
  Interpreter small = interpreter(std::move(b).finish(), options);
  EXPECT_NO_THROW(small.launch({1}, {1}, out.data()));
  EXPECT_EQ(out[0], 10);
  EXPECT_THAT(trap_of([&] { small.launch({1}, {64}, out.data()); }).message(),
              HasSubstr("step limit of 100 exceeded"));
}

TEST(InterpKernels, LaunchErrors) {
  Interpreter k = interpreter(scale());
  float v = 1.0f;
  EXPECT_THROW(k.launch({0}, {1}, &v, 1, 2.0f), jit::error);
  EXPECT_THROW(k.launch({1}, {1, 0, 1}, &v, 1, 2.0f), jit::error);
  EXPECT_THROW(k.launch({1}, {1}, &v, 1), jit::error);
  const Value args[] = {Value::of(&v), Value::of(1), Value::of(2.0f)};
  EXPECT_THROW(k.run(args), jit::error);
  FunctionBuilder b("host", Type::void_());
  Interpreter host = interpreter(std::move(b).finish());
  EXPECT_THROW(host.launch({1}, {1}), jit::error);
}

TEST(InterpKernels, ConcurrentLaunchesKeepTheirSharedMemoryApart) {
  const Interpreter k = interpreter(reduce());
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(50 + t);
      for (int round = 0; round < 20; ++round) {
        std::vector<std::int32_t> in(300);
        for (auto& x : in) x = static_cast<std::int32_t>(rng() % 1000);
        std::vector<std::int64_t> out(5, 0);
        k.launch({5}, {64}, in.data(), out.data(), 300);
        if (out != block_sums(in, 64, 5)) ++mismatches;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace augur::ir
