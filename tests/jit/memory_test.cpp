// Loads, stores and pointer arithmetic through real host memory.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

using namespace ir;

ExprPtr bin(BinaryOp op, ExprPtr a, ExprPtr b) {
  return binary(op, std::move(a), std::move(b));
}

// for (i = 0; i < n; ++i) out[i] = in[n - 1 - i] * 2 (reversal and doubling).
template <class T>
Function reverse_double(const std::string& name) {
  const Type t = type_of<T>();
  FunctionBuilder b(name, Type::void_());
  VarId in = b.param("in", Type::pointer_to(t.scalar()));
  VarId out = b.param("out", Type::pointer_to(t.scalar()));
  VarId n = b.param("n", Type::u32());
  VarId i = b.declare("i", Type::u32());
  b.while_(bin(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
    ExprPtr back =
        bin(BinaryOp::Sub, bin(BinaryOp::Sub, b.read(n), constant<std::uint32_t>(1)), b.read(i));
    b.store(b.read(out), b.read(i), bin(BinaryOp::Mul, load(b.read(in), back), constant(T(2))));
    b.assign(i, bin(BinaryOp::Add, b.read(i), constant<std::uint32_t>(1)));
  });
  return std::move(b).finish();
}

template <class T>
void check_reverse_double(const CompiledCode& code, const std::string& name) {
  std::mt19937_64 rng(sizeof(T));
  std::vector<T> in(37), out(37, T(0)), expected(37);
  for (T& v : in) v = static_cast<T>(rng() % 1000);
  for (std::size_t i = 0; i < in.size(); ++i) {
    expected[i] = static_cast<T>(in[in.size() - 1 - i] * T(2));
  }
  call_native<void>(code, name, in.data(), out.data(), static_cast<std::uint32_t>(in.size()));
  EXPECT_EQ(out, expected) << name;
}

TEST_P(AtOptLevel, LoadsAndStoresEveryElementType) {
  auto code = compile_at(
      opt(), module_of({reverse_double<std::int8_t>("i8"), reverse_double<std::uint16_t>("u16"),
                        reverse_double<std::int32_t>("i32"), reverse_double<std::uint64_t>("u64"),
                        reverse_double<float>("f32"), reverse_double<double>("f64")}));
  check_reverse_double<std::int8_t>(*code, "i8");
  check_reverse_double<std::uint16_t>(*code, "u16");
  check_reverse_double<std::int32_t>(*code, "i32");
  check_reverse_double<std::uint64_t>(*code, "u64");
  check_reverse_double<float>(*code, "f32");
  check_reverse_double<double>(*code, "f64");
}

TEST_P(AtOptLevel, BoolsAreBytesHoldingZeroOrOne) {
  // flags[i] = values[i] > 0; returns the number of set flags, read back as bools.
  FunctionBuilder b("positive", Type::i32());
  VarId values = b.param("values", Type::pointer_to(Scalar::F64));
  VarId flags = b.param("flags", Type::pointer_to(Scalar::Bool));
  VarId n = b.param("n", Type::i32());
  VarId count = b.declare("count", Type::i32());
  VarId i = b.declare("i", Type::i32());
  b.while_(bin(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
    b.store(b.read(flags), b.read(i),
            bin(BinaryOp::Gt, load(b.read(values), b.read(i)), constant(0.0)));
    b.assign(i, bin(BinaryOp::Add, b.read(i), constant<std::int32_t>(1)));
  });
  b.assign(i, constant<std::int32_t>(0));
  b.while_(bin(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
    b.if_(load(b.read(flags), b.read(i)),
          [&] { b.assign(count, bin(BinaryOp::Add, b.read(count), constant<std::int32_t>(1))); });
    b.assign(i, bin(BinaryOp::Add, b.read(i), constant<std::int32_t>(1)));
  });
  b.return_(b.read(count));
  auto code = compile_at(opt(), module_of({std::move(b).finish()}));

  const std::vector<double> inputs = {1.0, -2.0, 0.0, 3.5, -0.0, 7.0, -1e-300};
  std::vector<unsigned char> bytes(inputs.size(), 0xaa);
  const std::int32_t positives = call_native<std::int32_t>(
      *code, "positive", inputs.data(), reinterpret_cast<bool*>(bytes.data()),
      static_cast<std::int32_t>(inputs.size()));
  EXPECT_EQ(positives, 3);
  for (std::size_t k = 0; k < inputs.size(); ++k) EXPECT_EQ(bytes[k], inputs[k] > 0 ? 1 : 0) << k;
}

TEST_P(AtOptLevel, IndicesAndOffsetsExtendByTheirSignedness) {
  const Type f64p = Type::pointer_to(Scalar::F64);
  // p[i] with a signed index: p[-1] is the element before p.
  FunctionBuilder before("before", Type::f64());
  VarId p = before.param("p", f64p);
  VarId i = before.param("i", Type::i8());
  before.return_(load(before.read(p), before.read(i)));
  // (p - i) and (p + j) as addresses, with unsigned counts.
  FunctionBuilder back("back", Type::u64());
  VarId q = back.param("q", f64p);
  VarId k = back.param("k", Type::u32());
  back.return_(cast(Type::u64(), bin(BinaryOp::Sub, back.read(q), back.read(k))));
  FunctionBuilder ahead("ahead", Type::u64());
  VarId r = ahead.param("r", f64p);
  VarId j = ahead.param("j", Type::u32());
  ahead.return_(cast(Type::u64(), bin(BinaryOp::Add, ahead.read(r), ahead.read(j))));
  // Pointer comparisons are unsigned address comparisons.
  FunctionBuilder below("below", Type::bool_());
  VarId x = below.param("x", f64p);
  VarId y = below.param("y", f64p);
  below.return_(bin(BinaryOp::Lt, below.read(x), below.read(y)));
  auto code = compile_at(opt(), module_of({std::move(before).finish(), std::move(back).finish(),
                                           std::move(ahead).finish(), std::move(below).finish()}));

  double data[4] = {1.5, 2.5, 3.5, 4.5};
  EXPECT_EQ(call_native<double>(*code, "before", &data[2], std::int8_t{-1}), 2.5);
  EXPECT_EQ(call_native<double>(*code, "before", &data[0], std::int8_t{3}), 4.5);
  const auto base = reinterpret_cast<std::uint64_t>(&data[2]);
  EXPECT_EQ(call_native<std::uint64_t>(*code, "back", &data[2], 2u), base - 16);
  // 0xffffffff is a large unsigned count, not -1.
  EXPECT_EQ(call_native<std::uint64_t>(*code, "back", &data[2], 0xffffffffu),
            base - 0xffffffffull * 8);
  EXPECT_EQ(call_native<std::uint64_t>(*code, "ahead", &data[2], 0xffffffffu),
            base + 0xffffffffull * 8);
  EXPECT_TRUE(call_native<bool>(*code, "below", &data[0], &data[1]));
  EXPECT_FALSE(call_native<bool>(*code, "below", &data[1], &data[1]));
}

// c[i][j] = sum_k a[i][k] * b[k][j], row-major n×n, through a for loop nest.
Function matmul() {
  const Type f32p = Type::pointer_to(Scalar::F32);
  FunctionBuilder b("matmul", Type::void_());
  VarId a = b.param("a", f32p);
  VarId m = b.param("b", f32p);
  VarId c = b.param("c", f32p);
  VarId n = b.param("n", Type::i32());
  auto loop = [&](const std::string& name, const std::function<void(VarId)>& body) {
    VarId v = b.new_local(name, Type::i32());
    b.for_([&] { b.emit(Stmt::decl(v, constant<std::int32_t>(0))); },
           bin(BinaryOp::Lt, b.read(v), b.read(n)),
           [&] { b.assign(v, bin(BinaryOp::Add, b.read(v), constant<std::int32_t>(1))); },
           [&] { body(v); });
  };
  loop("i", [&](VarId i) {
    loop("j", [&](VarId j) {
      VarId sum = b.declare("sum", Type::f32());
      loop("k", [&](VarId k) {
        ExprPtr aik = load(b.read(a),
                           bin(BinaryOp::Add, bin(BinaryOp::Mul, b.read(i), b.read(n)), b.read(k)));
        ExprPtr bkj = load(b.read(m),
                           bin(BinaryOp::Add, bin(BinaryOp::Mul, b.read(k), b.read(n)), b.read(j)));
        b.assign(sum, bin(BinaryOp::Add, b.read(sum), bin(BinaryOp::Mul, aik, bkj)));
      });
      b.store(b.read(c), bin(BinaryOp::Add, bin(BinaryOp::Mul, b.read(i), b.read(n)), b.read(j)),
              b.read(sum));
    });
  });
  return std::move(b).finish();
}

TEST_P(AtOptLevel, MatrixMultiply) {
  auto code = compile_at(opt(), module_of({matmul()}));
  constexpr int n = 13;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(n * n), b(n * n), c(n * n), expected(n * n);
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < n; ++k) sum = sum + a[i * n + k] * b[k * n + j];
      expected[i * n + j] = sum;
    }
  }
  call_native<void>(*code, "matmul", a.data(), b.data(), c.data(), n);
  // Bit-exact: the same additions in the same order, with no reassociation.
  EXPECT_EQ(std::memcmp(c.data(), expected.data(), sizeof(float) * c.size()), 0);
}

INSTANTIATE_TEST_SUITE_P(Jit, AtOptLevel, ::testing::Values(0, 2));

}  // namespace
}  // namespace augur::cpu::test
