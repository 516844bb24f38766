// The CUDA emitter: each test kernel's source against its golden file, and
// the C++ it writes for the IR constructs whose semantics need care.
#include <gtest/gtest.h>

#include <string>

#include "gpu/cuda_emitter.h"
#include "jit/error.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/parser.h"
#include "support.h"

namespace augur::gpu::testing {
namespace {

using ir::BinaryOp;
using ir::Type;

class KernelSource : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelSource, MatchesGolden) {
  const KernelCase& c = kernel_case(GetParam());
  const ir::Module module = c.module();
  const CudaSource source = emit_cuda(module);
  EXPECT_TRUE(matches_golden(c.name, source.text));
  // Deterministic: the same IR gives the same text.
  EXPECT_EQ(emit_cuda(c.module()).text, source.text);
  ASSERT_EQ(source.functions.size(), 1u);
  EXPECT_TRUE(source.functions[0].kernel);
  EXPECT_NE(source.text.find("extern \"C\" __global__ void " + source.functions[0].cuda + "("),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Kernels, KernelSource, ::testing::ValuesIn(kernel_case_names()),
                         [](const auto& info) { return info.param; });

// The body of the one function the text of `ir` declares, as CUDA.
std::string cuda_of(const std::string& ir) {
  return emit_cuda(ir::parse_module(ir)).text;
}

bool contains(const std::string& text, const std::string& piece) {
  return text.find(piece) != std::string::npos;
}

// C++ leaves one loop at a time: `break 2` is a goto to a label after the
// outer loop, `continue 2` one to a label at the end of its body, in a block
// of its own around the body so that the goto skips no declaration in the
// label's scope (`u` below).
TEST(CudaEmitter, ExitsOfSeveralLoopsAreGotos) {
  const std::string cuda = cuda_of(
      "fn f(n: i32) -> i32 {\n"
      "  var s: i32 = 0i32;\n"
      "  for (var i: i32 = 0i32; i < n; i = i + 1i32) {\n"
      "    while (true) {\n"
      "      if (s > 100i32) {\n"
      "        break 2;\n"
      "      }\n"
      "      s = s + i;\n"
      "      if (s > 10i32) {\n"
      "        continue 2;\n"
      "      }\n"
      "      break;\n"
      "    }\n"
      "    var u: i32 = s;\n"
      "    s = u + 1i32;\n"
      "  }\n"
      "  return s;\n"
      "}\n");
  EXPECT_TRUE(contains(cuda,
                       "  for (i32 i = 0; i < n; i = add_i32(i, 1)) {\n"
                       "    {\n"
                       "    while (true) {\n"
                       "      if (s > 100) {\n"
                       "        goto augur_break_0;\n"
                       "      }\n"
                       "      s = add_i32(s, i);\n"
                       "      if (s > 10) {\n"
                       "        goto augur_continue_0;\n"
                       "      }\n"
                       "      break;\n"
                       "    }\n"
                       "    i32 u = s;\n"
                       "    s = add_i32(u, 1);\n"
                       "    }\n"
                       "    augur_continue_0:;\n"
                       "  }\n"
                       "  augur_break_0:;\n"
                       "  return s;\n"))
      << cuda;
}

TEST(CudaEmitter, SignedArithmeticWrapsThroughUnsigned) {
  const std::string cuda = cuda_of(
      "fn f(a: i32, b: i64, c: u32, d: i8) -> i32 {\n"
      "  var x: i64 = b * b - b;\n"
      "  var y: u32 = c * c + c;\n"
      "  var z: i8 = -d;\n"
      "  return a + a * -a;\n"
      "}\n");
  EXPECT_TRUE(contains(cuda, "i32 add_i32(i32 a, i32 b) { return (i32)((u32)a + (u32)b); }"));
  EXPECT_TRUE(contains(cuda, "i64 mul_i64(i64 a, i64 b) { return (i64)((u64)a * (u64)b); }"));
  EXPECT_TRUE(contains(cuda, "i8 neg_i8(i8 a) { return (i8)(0u - (u32)a); }"));
  EXPECT_TRUE(contains(cuda, "i64 x = sub_i64(mul_i64(b, b), b);"));
  // Unsigned 32- and 64-bit operators wrap by themselves.
  EXPECT_TRUE(contains(cuda, "u32 y = c * c + c;"));
  EXPECT_TRUE(contains(cuda, "return add_i32(a, mul_i32(a, neg_i32(a)));"));
  EXPECT_FALSE(contains(cuda, "add_u32"));
}

TEST(CudaEmitter, ShiftCountsAreMasked) {
  const std::string cuda = cuda_of(
      "fn f(a: i32, k: i32, u: u64, j: u64, s: i16, t: i16) -> i32 {\n"
      "  var x: u64 = u << j;\n"
      "  var y: u64 = u >> 65u64;\n"
      "  var z: i16 = s >> t;\n"
      "  return (a << k) + (a >> k) + (a >> 33i32);\n"
      "}\n");
  EXPECT_TRUE(contains(cuda, "u64 x = u << (j & 63ull);"));
  EXPECT_TRUE(contains(cuda, "u64 y = u >> 1;"));
  EXPECT_TRUE(contains(cuda, "i16 z = (i16)(s >> (t & 15));"));
  EXPECT_TRUE(contains(cuda, "shl_i32(a, k)"));
  EXPECT_TRUE(contains(cuda, "a >> (k & 31)"));
  EXPECT_TRUE(contains(cuda, "a >> 1)"));
  EXPECT_TRUE(contains(cuda, "return (i32)((u32)a << (b & 31)); }"));
}

TEST(CudaEmitter, FloatToIntegerConversionsSaturate) {
  const std::string cuda = cuda_of(
      "fn f(x: f32, y: f64) -> i32 {\n"
      "  var a: i8 = i8(x);\n"
      "  var b: u16 = u16(y);\n"
      "  var c: u64 = u64(x);\n"
      "  var d: bool = bool(x);\n"
      "  return i32(y);\n"
      "}\n");
  EXPECT_TRUE(contains(cuda, "i8 a = f32_to_i8(x);"));
  EXPECT_TRUE(contains(cuda,
                       "i8 f32_to_i8(f32 x) { if (x != x) return 0; i32 v = __float2int_rz(x); "
                       "return (i8)(v < -128 ? -128 : v > 127 ? 127 : v); }"));
  EXPECT_TRUE(contains(cuda,
                       "u16 f64_to_u16(f64 x) { if (x != x) return 0; u32 v = __double2uint_rz(x); "
                       "return (u16)(v > 65535u ? 65535u : v); }"));
  EXPECT_TRUE(contains(cuda, "u64 c = f32_to_u64(x);"));
  EXPECT_TRUE(
      contains(cuda, "u64 f32_to_u64(f32 x) { if (x != x) return 0; return __float2ull_rz(x); }"));
  EXPECT_TRUE(contains(cuda, "bool d = x != 0.0f;"));  // NaN is true
  // NaN is tested before the intrinsic: cvt.rzi.s32.f64 gives INT_MIN for it on an H100.
  EXPECT_TRUE(contains(cuda, "return f64_to_i32(y);"));
  EXPECT_TRUE(
      contains(cuda, "i32 f64_to_i32(f64 x) { if (x != x) return 0; return __double2int_rz(x); }"));
}

TEST(CudaEmitter, ConstantsKeepTheirBits) {
  const std::string cuda = cuda_of(
      "fn f() -> f64 {\n"
      "  var a: i32 = -2147483648i32;\n"
      "  var b: i64 = -9223372036854775808i64;\n"
      "  var c: u64 = 18446744073709551615u64;\n"
      "  var d: f32 = -0.0f32;\n"
      "  var e: f32 = nan_f32(0x7fc00001);\n"
      "  var g: f64 = -inf_f64;\n"
      "  var h: f32 = 16777217.0f32;\n"
      "  var k: f64 = 0.1f64;\n"
      "  var m: u8 = 255u8;\n"
      "  var p: f32* = null(f32*);\n"
      "  return 1e+300f64;\n"
      "}\n");
  EXPECT_TRUE(contains(cuda, "i32 a = (-2147483647 - 1);"));
  EXPECT_TRUE(contains(cuda, "i64 b = (-9223372036854775807ll - 1);"));
  EXPECT_TRUE(contains(cuda, "u64 c = 18446744073709551615ull;"));
  EXPECT_TRUE(contains(cuda, "f32 d = -0.0f;"));
  EXPECT_TRUE(contains(cuda, "f32 e = __uint_as_float(0x7fc00001u);"));
  EXPECT_TRUE(contains(cuda, "f64 g = __longlong_as_double((i64)0xfff0000000000000ull);"));
  EXPECT_TRUE(contains(cuda, "f32 h = 16777216.0f;"));  // the f32 the literal rounds to
  EXPECT_TRUE(contains(cuda, "f64 k = 0.1;"));
  EXPECT_TRUE(contains(cuda, "u8 m = (u8)255;"));
  EXPECT_TRUE(contains(cuda, "f32* p = (f32*)0;"));
  EXPECT_TRUE(contains(cuda, "return 1e+300;"));
}

TEST(CudaEmitter, NarrowResultsAreConvertedBack) {
  const std::string cuda = cuda_of(
      "fn f(a: u8, b: u8, p: bool, q: bool) -> u8 {\n"
      "  var r: bool = p & q;\n"
      "  var s: u8 = ~a;\n"
      "  return a / b ^ a & b;\n"
      "}\n");
  EXPECT_TRUE(contains(cuda, "bool r = (bool)(p & q);"));
  EXPECT_TRUE(contains(cuda, "u8 s = (u8)~a;"));
  EXPECT_TRUE(contains(cuda, "return (u8)((u8)(a / b) ^ (u8)(a & b));"));
}

TEST(CudaEmitter, LazyOperatorsStayLazyAndParenthesized) {
  const std::string cuda = cuda_of(
      "fn f(p: i32*, n: i32, c: bool) -> i32 {\n"
      "  var ok: bool = p != null(i32*) && p[0i32] > 0i32 || c;\n"
      "  var t: bool = n < 3i32 == c;\n"
      "  return c ? p[n] : n - -1i32;\n"
      "}\n");
  EXPECT_TRUE(contains(cuda, "bool ok = (p != (i32*)0 && p[0] > 0) || c;"));
  EXPECT_TRUE(contains(cuda, "bool t = (n < 3) == c;"));
  EXPECT_TRUE(contains(cuda, "return c ? p[n] : sub_i32(n, -1);"));
}

TEST(CudaEmitter, MathAndMinMax) {
  const std::string cuda = cuda_of(
      "fn f(x: f32, y: f64, i: i64, u: u16) -> f64 {\n"
      "  var a: f32 = min(x, 1.0f32) + max(x, 2.0f32) + fma(x, x, x) + sqrt(fabs(x));\n"
      "  var b: i64 = min(i, 5i64);\n"
      "  var c: u16 = max(u, 7u16);\n"
      "  return pow(y, floor(y)) + exp(log(y)) + y % 2.0f64;\n"
      "}\n");
  EXPECT_TRUE(
      contains(cuda, "min_f32(x, 1.0f) + max_f32(x, 2.0f) + fmaf(x, x, x) + sqrtf(fabsf(x))"));
  // -0.0 orders below +0.0 (docs/ir.md), which fminf/fmaxf leave open.
  EXPECT_TRUE(contains(
      cuda, "f32 min_f32(f32 a, f32 b) { return a == b ? (signbit(a) ? a : b) : fminf(a, b); }"));
  EXPECT_TRUE(contains(cuda, "i64 b = min_i64(i, 5ll);"));
  EXPECT_TRUE(contains(cuda, "u16 c = max_u16(u, (u16)7);"));
  EXPECT_TRUE(contains(cuda, "return pow(y, floor(y)) + exp(log(y)) + fmod(y, 2.0);"));
}

TEST(CudaEmitter, AtomicsOnEveryElementType) {
  const std::string cuda = cuda_of(
      "kernel fn k(a: i32*, b: i64*, c: u64*, d: f64*, e: f32*) -> void {\n"
      "  atomic_add(a, 0i32, 1i32);\n"
      "  atomic_add(b, 0i32, 1i64);\n"
      "  var x: i64 = atomic_cas(b, 1i32, 2i64, 3i64);\n"
      "  var y: i64 = atomic_min(b, 2i32, -5i64);\n"
      "  var z: u64 = atomic_exchange(c, 0i32, 9u64);\n"
      "  var w: f64 = atomic_exchange(d, 0i32, 1.5f64);\n"
      "  atomic_add(e, 3i32, 0.5f32);\n"
      "}\n");
  EXPECT_TRUE(contains(cuda, "atomicAdd(&a[0], 1);"));
  EXPECT_TRUE(contains(cuda, "(i64)atomicAdd((u64*)&b[0], (u64)1ll);"));
  EXPECT_TRUE(contains(cuda, "i64 x = (i64)atomicCAS((u64*)&b[1], (u64)2ll, (u64)3ll);"));
  EXPECT_TRUE(contains(cuda, "i64 y = atomicMin(&b[2], -5ll);"));
  EXPECT_TRUE(contains(cuda, "u64 z = atomicExch(&c[0], 9ull);"));
  EXPECT_TRUE(contains(cuda,
                       "f64 w = __longlong_as_double((i64)atomicExch((u64*)&d[0], "
                       "(u64)__double_as_longlong(1.5)));"));
  EXPECT_TRUE(contains(cuda, "atomicAdd(&e[3], 0.5f);"));
}

TEST(CudaEmitter, SharedArraysAreZeroedBeforeTheBody) {
  const std::string cuda = cuda_of(
      "kernel fn k(out: f32*) -> void {\n"
      "  out[0i32] = 1.0f32;\n"
      "  shared s: f32[100];\n"
      "  out[thread_idx.x] = s[thread_idx.y];\n"
      "}\n");
  const std::size_t declaration = cuda.find("__shared__ f32 s[100];");
  const std::size_t zeroing =
      cuda.find("augur_i < 100u; augur_i += augur_threads) s[augur_i] = 0.0f;");
  const std::size_t sync = cuda.find("__syncthreads();");
  const std::size_t body = cuda.find("out[0] = 1.0f;");
  ASSERT_NE(declaration, std::string::npos) << cuda;
  EXPECT_LT(declaration, zeroing);
  EXPECT_LT(zeroing, sync);
  EXPECT_LT(sync, body);
  EXPECT_TRUE(contains(cuda, "out[(i32)threadIdx.x] = s[(i32)threadIdx.y];"));
}

TEST(CudaEmitter, NamesThatAreNotCppAreAdjusted) {
  ir::FunctionBuilder b("float", Type::void_(), true);
  const ir::VarId p = b.param("int", Type::pointer_to(ir::Scalar::I32));
  const ir::VarId x = b.declare("x.1", Type::i32(), ir::constant(std::int32_t{1}));
  const ir::VarId y = b.declare("x_1", Type::i32(), b.read(x));
  const ir::VarId z = b.declare("add_i32", Type::i32(), b.read(y));
  const ir::VarId w = b.declare("augur_i", Type::i32(), b.read(z));
  b.store(b.read(p), b.read(w), b.read(w));
  ir::Module m;
  m.functions.push_back(std::move(b).finish());
  const CudaSource source = emit_cuda(m);
  EXPECT_EQ(source.cuda_name("float"), "float_");
  EXPECT_TRUE(contains(source.text, "__global__ void float_(i32* int_) {"));
  EXPECT_TRUE(contains(source.text, "i32 x_1 = 1;"));
  EXPECT_TRUE(contains(source.text, "i32 x_1_2 = x_1;"));
  EXPECT_TRUE(contains(source.text, "i32 add_i32_ = x_1_2;"));
  EXPECT_TRUE(contains(source.text, "i32 v_augur_i = add_i32_;"));
}

TEST(CudaEmitter, HostCallsAreRejectedWithTheirPlace) {
  const ir::Module m = ir::parse_module(
      "extern fn hypot(f64, f64) -> f64 pure;\n"
      "kernel fn k(p: f64*) -> void {\n"
      "  if (p != null(f64*)) {\n"
      "    p[0i32] = @hypot(p[0i32], 1.0f64);\n"
      "  }\n"
      "}\n");
  try {
    emit_cuda(m);
    FAIL() << "expected a compile_error";
  } catch (const jit::compile_error& e) {
    EXPECT_EQ(e.where().function, "k");
    EXPECT_EQ(e.where().path, "body[0].body[0]");
    EXPECT_TRUE(contains(e.message(), "'hypot'")) << e.message();
  }
}

}  // namespace
}  // namespace augur::gpu::testing
