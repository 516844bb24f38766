// Kernels on the CPU: block functions run over an emulated grid (blocks in
// parallel on TBB), GPU indices, shared arrays and atomics.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "jit/error.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

using namespace ir;

ExprPtr bin(BinaryOp op, ExprPtr a, ExprPtr b) {
  return binary(op, std::move(a), std::move(b));
}
ExprPtr i32(std::int32_t v) {
  return constant(v);
}
ExprPtr global_x() {
  return bin(BinaryOp::Add,
             bin(BinaryOp::Mul, gpu_index(GpuIndex::BlockIdx, 0), gpu_index(GpuIndex::BlockDim, 0)),
             gpu_index(GpuIndex::ThreadIdx, 0));
}

void launch(const CompiledCode& code, const char* name, Dim3 grid, Dim3 block,
            std::vector<Value> args) {
  run_kernel(code, name, grid, block, args);
}

Function scale() {
  FunctionBuilder b("scale", Type::void_(), true);
  VarId v = b.param("v", Type::pointer_to(Scalar::F32));
  VarId n = b.param("n", Type::i32());
  VarId a = b.param("a", Type::f32());
  VarId i = b.declare("i", Type::i32(), global_x());
  b.if_(bin(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
    b.store(b.read(v), b.read(i), bin(BinaryOp::Mul, load(b.read(v), b.read(i)), b.read(a)));
  });
  return std::move(b).finish();
}

TEST_P(AtOptLevel, ScaleKernelOverSeveralBlocks) {
  auto code = compile_at(opt(), module_of({scale()}));
  std::vector<float> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.5f;
  std::vector<float> expected = v;
  for (float& x : expected) x *= 2.5f;
  // 8 blocks of 128 threads: the last 24 threads are out of range.
  launch(*code, "scale", {8, 1, 1}, {128, 1, 1},
         {Value::of(v.data()), Value::of(std::int32_t{1000}), Value::of(2.5f)});
  EXPECT_EQ(v, expected);
}

// out[linear id] = an encoding of every index and dimension the thread sees.
Function coordinates() {
  FunctionBuilder b("coordinates", Type::void_(), true);
  VarId out = b.param("out", Type::pointer_to(Scalar::I64));
  ExprPtr linear = i32(0);
  ExprPtr code = constant<std::int64_t>(0);
  std::int64_t scale = 1;
  // linear = ((bz*gy + by)*gx + bx) * threads + (tz*dy + ty)*dx + tx
  ExprPtr block_linear = bin(
      BinaryOp::Add,
      bin(BinaryOp::Mul,
          bin(BinaryOp::Add,
              bin(BinaryOp::Mul, gpu_index(GpuIndex::BlockIdx, 2), gpu_index(GpuIndex::GridDim, 1)),
              gpu_index(GpuIndex::BlockIdx, 1)),
          gpu_index(GpuIndex::GridDim, 0)),
      gpu_index(GpuIndex::BlockIdx, 0));
  ExprPtr threads =
      bin(BinaryOp::Mul,
          bin(BinaryOp::Mul, gpu_index(GpuIndex::BlockDim, 0), gpu_index(GpuIndex::BlockDim, 1)),
          gpu_index(GpuIndex::BlockDim, 2));
  ExprPtr thread_linear = bin(BinaryOp::Add,
                              bin(BinaryOp::Mul,
                                  bin(BinaryOp::Add,
                                      bin(BinaryOp::Mul, gpu_index(GpuIndex::ThreadIdx, 2),
                                          gpu_index(GpuIndex::BlockDim, 1)),
                                      gpu_index(GpuIndex::ThreadIdx, 1)),
                                  gpu_index(GpuIndex::BlockDim, 0)),
                              gpu_index(GpuIndex::ThreadIdx, 0));
  linear = bin(BinaryOp::Add, bin(BinaryOp::Mul, block_linear, threads), thread_linear);
  for (GpuIndex which :
       {GpuIndex::ThreadIdx, GpuIndex::BlockIdx, GpuIndex::BlockDim, GpuIndex::GridDim}) {
    for (unsigned axis = 0; axis < 3; ++axis) {
      code = bin(BinaryOp::Add, code,
                 bin(BinaryOp::Mul, cast(Type::i64(), gpu_index(which, axis)), constant(scale)));
      scale *= 8;
    }
  }
  b.store(b.read(out), linear, code);
  return std::move(b).finish();
}

TEST_P(AtOptLevel, GpuIndicesInThreeDimensions) {
  auto code = compile_at(opt(), module_of({coordinates()}));
  const Dim3 grid{3, 2, 2}, block{4, 3, 2};
  const std::size_t total = 3 * 2 * 2 * 4 * 3 * 2;
  std::vector<std::int64_t> out(total, -1), expected(total);
  for (std::uint32_t bz = 0; bz < grid.z; ++bz)
    for (std::uint32_t by = 0; by < grid.y; ++by)
      for (std::uint32_t bx = 0; bx < grid.x; ++bx)
        for (std::uint32_t tz = 0; tz < block.z; ++tz)
          for (std::uint32_t ty = 0; ty < block.y; ++ty)
            for (std::uint32_t tx = 0; tx < block.x; ++tx) {
              const std::uint32_t values[] = {tx,      ty,      tz,      bx,     by,     bz,
                                              block.x, block.y, block.z, grid.x, grid.y, grid.z};
              std::int64_t code_value = 0, scale = 1;
              for (std::uint32_t v : values) {
                code_value += v * scale;
                scale *= 8;
              }
              const std::size_t linear =
                  ((bz * grid.y + by) * grid.x + bx) * 24 + (tz * block.y + ty) * block.x + tx;
              expected[linear] = code_value;
            }
  launch(*code, "coordinates", grid, block, {Value::of(out.data())});
  EXPECT_EQ(out, expected);
}

TEST_P(AtOptLevel, EachThreadHasItsOwnParameters) {
  FunctionBuilder b("own", Type::void_(), true);
  VarId dest = b.param("dest", Type::pointer_to(Scalar::I32));
  VarId base = b.param("base", Type::i32());
  b.assign(base, bin(BinaryOp::Add, b.read(base), gpu_index(GpuIndex::ThreadIdx, 0)));
  b.store(b.read(dest), global_x(), b.read(base));
  auto code = compile_at(opt(), module_of({std::move(b).finish()}));
  std::vector<std::int32_t> out(16);
  launch(*code, "own", {2, 1, 1}, {8, 1, 1}, {Value::of(out.data()), Value::of(std::int32_t{100})});
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], 100 + i % 8) << i;
}

Function histogram() {
  FunctionBuilder b("histogram", Type::void_(), true);
  VarId data = b.param("data", Type::pointer_to(Scalar::U8));
  VarId n = b.param("n", Type::i32());
  VarId bins = b.param("bins", Type::pointer_to(Scalar::U32));
  VarId i = b.declare("i", Type::i32(), global_x());
  b.if_(bin(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
    ExprPtr bucket = bin(BinaryOp::Rem, load(b.read(data), b.read(i)), constant<std::uint8_t>(16));
    b.eval(atomic(AtomicOp::Add, {b.read(bins), bucket, constant<std::uint32_t>(1)}));
  });
  return std::move(b).finish();
}

TEST_P(AtOptLevel, HistogramWithAtomicsAcrossParallelBlocks) {
  auto code = compile_at(opt(), module_of({histogram()}));
  std::mt19937 rng(3);
  std::vector<std::uint8_t> data(20000);
  for (auto& d : data) d = static_cast<std::uint8_t>(rng());
  std::vector<std::uint32_t> bins(16), expected(16);
  for (std::uint8_t d : data) ++expected[d % 16];
  launch(*code, "histogram", {157, 1, 1}, {128, 1, 1},
         {Value::of(data.data()), Value::of(static_cast<std::int32_t>(data.size())),
          Value::of(bins.data())});
  EXPECT_EQ(bins, expected);
}

// Every atomic: min/max (signed and unsigned), exchange, a CAS loop, float add.
Function atomics() {
  FunctionBuilder b("atomics", Type::void_(), true);
  VarId ints = b.param("ints", Type::pointer_to(Scalar::I64));
  VarId uints = b.param("uints", Type::pointer_to(Scalar::U32));
  VarId floats = b.param("floats", Type::pointer_to(Scalar::F64));
  VarId olds = b.param("olds", Type::pointer_to(Scalar::I32));
  VarId i = b.declare("i", Type::i32(), global_x());
  ExprPtr value = bin(BinaryOp::Sub, cast(Type::i64(), b.read(i)), constant<std::int64_t>(300));
  b.eval(atomic(AtomicOp::Min, {b.read(ints), i32(0), value}));
  b.eval(atomic(AtomicOp::Max, {b.read(ints), i32(1), value}));
  ExprPtr uvalue =
      bin(BinaryOp::Mul, cast(Type::u32(), b.read(i)), constant<std::uint32_t>(2654435761u));
  b.eval(atomic(AtomicOp::Min, {b.read(uints), i32(0), uvalue}));
  b.eval(atomic(AtomicOp::Max, {b.read(uints), i32(1), uvalue}));
  b.eval(atomic(AtomicOp::Add, {b.read(floats), i32(0), cast(Type::f64(), b.read(i))}));
  // olds[i] = exchange(ints[2], i): the old values are all distinct.
  b.store(b.read(olds), b.read(i),
          cast(Type::i32(),
               atomic(AtomicOp::Exchange, {b.read(ints), i32(2), cast(Type::i64(), b.read(i))})));
  // do { old = ints[3]; } while (cas(ints, 3, old, old + i) != old);
  VarId old = b.declare("old", Type::i64());
  b.while_(constant(true), [&] {
    b.assign(old, load(b.read(ints), i32(3)));
    b.if_(
        bin(BinaryOp::Eq,
            atomic(AtomicOp::Cas, {b.read(ints), i32(3), b.read(old),
                                   bin(BinaryOp::Add, b.read(old), cast(Type::i64(), b.read(i)))}),
            b.read(old)),
        [&] { b.break_(); });
  });
  return std::move(b).finish();
}

TEST_P(AtOptLevel, EveryAtomic) {
  auto code = compile_at(opt(), module_of({atomics()}));
  constexpr int n = 64 * 40;
  std::vector<std::int64_t> ints = {1000000, -1000000, -1, 0};
  std::vector<std::uint32_t> uints = {0xffffffffu, 0};
  std::vector<double> floats = {0.5};
  std::vector<std::int32_t> olds(n);
  launch(*code, "atomics", {40, 1, 1}, {64, 1, 1},
         {Value::of(ints.data()), Value::of(uints.data()), Value::of(floats.data()),
          Value::of(olds.data())});
  std::uint32_t umin = 0xffffffffu, umax = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    umin = std::min(umin, i * 2654435761u);
    umax = std::max(umax, i * 2654435761u);
  }
  EXPECT_EQ(ints[0], -300);
  EXPECT_EQ(ints[1], n - 1 - 300);
  EXPECT_EQ(uints[0], umin);
  EXPECT_EQ(uints[1], umax);
  EXPECT_EQ(floats[0], 0.5 + n * (n - 1) / 2.0);
  EXPECT_EQ(ints[3], std::int64_t{n} * (n - 1) / 2);
  // The exchanges form a chain: the old values are -1 and all ids but the last one stored.
  std::vector<std::int32_t> sorted = olds;
  sorted.push_back(static_cast<std::int32_t>(ints[2]));
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i <= n; ++i) EXPECT_EQ(sorted[i], i - 1);
}

// Two shared arrays per block, zero at block start: each thread takes a
// ticket from each, so a block's tickets are 0..threads-1.
Function tickets() {
  FunctionBuilder b("tickets", Type::void_(), true);
  VarId out = b.param("out", Type::pointer_to(Scalar::I32));
  VarId small = b.shared_array("small", Scalar::I32, 3);
  VarId wide = b.shared_array("wide", Scalar::I64, 5);
  ExprPtr first = atomic(AtomicOp::Add, {b.read(small), i32(2), i32(1)});
  ExprPtr second =
      cast(Type::i32(), atomic(AtomicOp::Add, {b.read(wide), i32(4), constant<std::int64_t>(1)}));
  b.store(b.read(out), global_x(),
          bin(BinaryOp::Add, bin(BinaryOp::Mul, first, i32(1000)), second));
  return std::move(b).finish();
}

TEST_P(AtOptLevel, SharedArraysAreZeroedPerBlock) {
  auto code = compile_at(opt(), module_of({tickets()}));
  EXPECT_EQ(code->entry("tickets").shared_bytes, 16u + 48u);
  constexpr int blocks = 9, threads = 32;
  std::vector<std::int32_t> out(blocks * threads, -1);
  launch(*code, "tickets", {blocks, 1, 1}, {threads, 1, 1}, {Value::of(out.data())});
  for (int b = 0; b < blocks; ++b) {
    std::vector<std::int32_t> block(out.begin() + b * threads, out.begin() + (b + 1) * threads);
    std::sort(block.begin(), block.end());
    for (int t = 0; t < threads; ++t) EXPECT_EQ(block[t], t * 1000 + t) << b;
  }
}

TEST(Kernels, BarriersAreRejectedWithTheirPath) {
  FunctionBuilder b("reduce", Type::void_(), true);
  VarId out = b.param("out", Type::pointer_to(Scalar::I32));
  b.if_(bin(BinaryOp::Eq, gpu_index(GpuIndex::ThreadIdx, 0), i32(0)),
        [&] { b.store(b.read(out), i32(0), i32(1)); });
  b.while_(constant(false), [&] {
    b.store(b.read(out), i32(1), i32(2));
    b.barrier();
  });
  try {
    compile(module_of({std::move(b).finish()}), {});
    FAIL() << "expected a compile_error";
  } catch (const jit::compile_error& e) {
    EXPECT_EQ(e.where().function, "reduce");
    EXPECT_EQ(e.where().path, "body[1].body[1]");
    EXPECT_NE(e.message().find("barrier"), std::string::npos) << e.what();
  }
}

TEST(Kernels, LaunchMisuseIsAnError) {
  FunctionBuilder plain("plain", Type::void_());
  auto code = compile(module_of({scale(), std::move(plain).finish()}), {});
  std::vector<float> v(4);
  const std::vector<Value> args = {Value::of(v.data()), Value::of(std::int32_t{4}),
                                   Value::of(1.0f)};
  EXPECT_THROW(run_kernel(*code, "scale", {1, 1, 1}, {4, 1, 1}, {args.data(), 2}), jit::error);
  EXPECT_THROW(run_kernel(*code, "scale", {0, 1, 1}, {4, 1, 1}, args), jit::error);
  EXPECT_THROW(run_kernel(*code, "scale", {1, 1, 1}, {0x80000000u, 1, 1}, args), jit::error);
  EXPECT_THROW(run_kernel(*code, "plain", {1, 1, 1}, {1, 1, 1}, {}), jit::error);
  EXPECT_THROW(run_kernel(*code, "nothing", {1, 1, 1}, {1, 1, 1}, {}), jit::error);
  EXPECT_THROW(invoke(*code, "scale", args), jit::error);
}

// The same kernels, in the text form, against the interpreter's emulated grid.
constexpr const char* kKernels = R"(
kernel fn saxpy(x: f32*, y: f32*, n: i32, a: f32) -> void {
  var i: i32 = block_idx.x * block_dim.x + thread_idx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}

kernel fn grid2d(out: i64*, width: i32) -> void {
  var x: i32 = block_idx.x * block_dim.x + thread_idx.x;
  var y: i32 = block_idx.y * block_dim.y + thread_idx.y;
  var acc: i64 = 0i64;
  for (var k: i32 = 0i32; k < x + y; k = k + 1i32) {
    if (k % 3i32 == 2i32) {
      continue;
    }
    acc = acc * 31i64 + i64(k);
    if (acc > 1000000i64) {
      break;
    }
  }
  out[y * width + x] = acc * 4i64 + i64(grid_dim.y);
}

kernel fn histogram(data: u8*, n: i32, bins: u32*) -> void {
  var i: i32 = block_idx.x * block_dim.x + thread_idx.x;
  if (i < n) {
    atomic_add(bins, data[i] % 16u8, 1u32);
  }
}

kernel fn tickets(out: i32*, scratch: f64*) -> void {
  shared counter: i32[2];
  shared mine: f64[64];
  mine[thread_idx.x] = f64(thread_idx.x) * 0.5f64;
  var t: i32 = atomic_add(counter, 1i32, 1i32);
  out[block_idx.x * block_dim.x + thread_idx.x] = t;
  scratch[block_idx.x * block_dim.x + thread_idx.x] = mine[thread_idx.x] + f64(t);
}
)";

// Runs `kernel` in the interpreter and compiled, each on its own copy of the
// launch state (buffers and scalars; State::args() points into it), and
// compares the states afterwards. Threads of a block run in the same order in
// both, so even order-dependent atomics agree.
template <class State>
void expect_interpreter_agrees(const Module& module, const CompiledCode& code, const char* kernel,
                               Dim3 grid, Dim3 block, const State& initial) {
  SCOPED_TRACE(kernel);
  State interpreted = initial;
  State compiled = initial;
  Interpreter(module, kernel).run_kernel(grid, block, interpreted.args());
  run_kernel(code, kernel, grid, block, compiled.args());
  EXPECT_TRUE(interpreted == compiled);
}

struct SaxpyState {
  std::vector<float> x, y;
  std::vector<Value> args() {
    return {Value::of(x.data()), Value::of(y.data()),
            Value::of(static_cast<std::int32_t>(x.size())), Value::of(1.5f)};
  }
  bool operator==(const SaxpyState&) const = default;
};

struct GridState {
  std::vector<std::int64_t> out = std::vector<std::int64_t>(24 * 10);
  std::vector<Value> args() { return {Value::of(out.data()), Value::of(std::int32_t{24})}; }
  bool operator==(const GridState&) const = default;
};

struct HistogramState {
  std::vector<std::uint8_t> data;
  std::vector<std::uint32_t> bins = std::vector<std::uint32_t>(16);
  std::vector<Value> args() {
    return {Value::of(data.data()), Value::of(static_cast<std::int32_t>(data.size())),
            Value::of(bins.data())};
  }
  bool operator==(const HistogramState&) const = default;
};

struct TicketState {
  std::vector<std::int32_t> out = std::vector<std::int32_t>(4 * 48);
  std::vector<double> scratch = std::vector<double>(4 * 48);
  std::vector<Value> args() { return {Value::of(out.data()), Value::of(scratch.data())}; }
  bool operator==(const TicketState&) const = default;
};

TEST_P(AtOptLevel, KernelsMatchTheInterpreter) {
  const Module module = parse_module(kKernels, "kernels");
  auto code = compile_at(opt(), module);

  SaxpyState saxpy;
  for (int i = 0; i < 300; ++i) {
    saxpy.x.push_back(static_cast<float>(i) * 0.25f);
    saxpy.y.push_back(static_cast<float>(300 - i));
  }
  expect_interpreter_agrees(module, *code, "saxpy", {5, 1, 1}, {64, 1, 1}, saxpy);
  expect_interpreter_agrees(module, *code, "grid2d", {3, 2, 1}, {8, 5, 1}, GridState{});
  HistogramState histogram;
  std::mt19937 rng(9);
  for (int i = 0; i < 5000; ++i) histogram.data.push_back(static_cast<std::uint8_t>(rng()));
  expect_interpreter_agrees(module, *code, "histogram", {40, 1, 1}, {128, 1, 1}, histogram);
  expect_interpreter_agrees(module, *code, "tickets", {4, 1, 1}, {48, 1, 1}, TicketState{});
}

INSTANTIATE_TEST_SUITE_P(Jit, AtOptLevel, ::testing::Values(0, 2));

}  // namespace
}  // namespace augur::cpu::test
