// Control flow: loops with break/continue, early returns, scoping of
// declarations, and the laziness of &&, || and ?:, against C++ references.
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

using namespace ir;

ExprPtr i32(std::int32_t v) {
  return constant(v);
}
ExprPtr bin(BinaryOp op, ExprPtr a, ExprPtr b) {
  return binary(op, std::move(a), std::move(b));
}

Function factorial() {
  FunctionBuilder b("factorial", Type::u64());
  VarId n = b.param("n", Type::u64());
  VarId r = b.declare("r", Type::u64(), constant<std::uint64_t>(1));
  b.while_(bin(BinaryOp::Gt, b.read(n), constant<std::uint64_t>(1)), [&] {
    b.assign(r, bin(BinaryOp::Mul, b.read(r), b.read(n)));
    b.assign(n, bin(BinaryOp::Sub, b.read(n), constant<std::uint64_t>(1)));
  });
  b.return_(b.read(r));
  return std::move(b).finish();
}

Function gcd() {
  FunctionBuilder b("gcd", Type::u32());
  VarId x = b.param("x", Type::u32());
  VarId y = b.param("y", Type::u32());
  b.while_(bin(BinaryOp::Ne, b.read(y), constant<std::uint32_t>(0)), [&] {
    VarId t = b.declare("t", Type::u32(), bin(BinaryOp::Rem, b.read(x), b.read(y)));
    b.assign(x, b.read(y));
    b.assign(y, b.read(t));
  });
  b.return_(b.read(x));
  return std::move(b).finish();
}

// for (i = 0; i < n; i = i + 1) { if (i % 3 == 0) continue; s = s + i; if (s > limit) break; }
Function skip_and_stop() {
  FunctionBuilder b("skip_and_stop", Type::i32());
  VarId n = b.param("n", Type::i32());
  VarId limit = b.param("limit", Type::i32());
  VarId s = b.declare("s", Type::i32());
  VarId steps = b.declare("steps", Type::i32());
  VarId i = b.new_local("i", Type::i32());
  b.for_([&] { b.emit(Stmt::decl(i, i32(0))); }, bin(BinaryOp::Lt, b.read(i), b.read(n)),
         [&] { b.assign(i, bin(BinaryOp::Add, b.read(i), i32(1))); },
         [&] {
           b.assign(steps, bin(BinaryOp::Add, b.read(steps), i32(1)));
           b.if_(bin(BinaryOp::Eq, bin(BinaryOp::Rem, b.read(i), i32(3)), i32(0)),
                 [&] { b.continue_(); });
           b.assign(s, bin(BinaryOp::Add, b.read(s), b.read(i)));
           b.if_(bin(BinaryOp::Gt, b.read(s), b.read(limit)), [&] { b.break_(); });
         });
  b.return_(bin(BinaryOp::Add, bin(BinaryOp::Mul, b.read(s), i32(1000)), b.read(steps)));
  return std::move(b).finish();
}

std::int32_t skip_and_stop_reference(std::int32_t n, std::int32_t limit) {
  std::int32_t s = 0, steps = 0;
  for (std::int32_t i = 0; i < n; i = i + 1) {
    steps = steps + 1;
    if (i % 3 == 0) continue;
    s = s + i;
    if (s > limit) break;
  }
  return s * 1000 + steps;
}

// Counts pairs i < j < n with (i * j) % 7 == 3, leaving the inner loop early
// once j * i > bound; a nested `var` restarts at zero each time.
Function nested_pairs() {
  FunctionBuilder b("nested_pairs", Type::i32());
  VarId n = b.param("n", Type::i32());
  VarId bound = b.param("bound", Type::i32());
  VarId count = b.declare("count", Type::i32());
  VarId i = b.declare("i", Type::i32());
  b.while_(bin(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
    VarId j = b.declare("j", Type::i32(), bin(BinaryOp::Add, b.read(i), i32(1)));
    VarId local = b.declare("local", Type::i32());
    b.while_(constant(true), [&] {
      b.if_(bin(BinaryOp::Ge, b.read(j), b.read(n)), [&] { b.break_(); });
      b.if_(bin(BinaryOp::Gt, bin(BinaryOp::Mul, b.read(j), b.read(i)), b.read(bound)),
            [&] { b.break_(); });
      b.if_(bin(BinaryOp::Eq, bin(BinaryOp::Rem, bin(BinaryOp::Mul, b.read(i), b.read(j)), i32(7)),
                i32(3)),
            [&] { b.assign(local, bin(BinaryOp::Add, b.read(local), i32(1))); });
      b.assign(j, bin(BinaryOp::Add, b.read(j), i32(1)));
    });
    b.assign(count, bin(BinaryOp::Add, b.read(count), b.read(local)));
    b.assign(i, bin(BinaryOp::Add, b.read(i), i32(1)));
  });
  b.return_(b.read(count));
  return std::move(b).finish();
}

std::int32_t nested_pairs_reference(std::int32_t n, std::int32_t bound) {
  std::int32_t count = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    std::int32_t local = 0;
    for (std::int32_t j = i + 1; j < n && j * i <= bound; ++j) {
      if ((i * j) % 7 == 3) ++local;
    }
    count += local;
  }
  return count;
}

// Returns from inside a loop; the statements after each return are dead.
Function find_first() {
  FunctionBuilder b("find_first", Type::i64());
  VarId p = b.param("p", Type::pointer_to(Scalar::I16));
  VarId n = b.param("n", Type::i64());
  VarId x = b.param("x", Type::i16());
  VarId i = b.declare("i", Type::i64());
  b.while_(bin(BinaryOp::Lt, b.read(i), b.read(n)), [&] {
    b.if_(bin(BinaryOp::Eq, load(b.read(p), b.read(i)), b.read(x)), [&] {
      b.return_(b.read(i));
      b.assign(i, constant<std::int64_t>(-7));
    });
    b.assign(i, bin(BinaryOp::Add, b.read(i), constant<std::int64_t>(1)));
  });
  b.return_(constant<std::int64_t>(-1));
  b.return_(constant<std::int64_t>(-2));
  return std::move(b).finish();
}

// if/else where both branches return, so the code after the `if` is dead.
Function sign() {
  FunctionBuilder b("sign", Type::i8());
  VarId x = b.param("x", Type::f64());
  b.if_(
      bin(BinaryOp::Lt, b.read(x), constant(0.0)), [&] { b.return_(constant<std::int8_t>(-1)); },
      [&] {
        b.if_(
            bin(BinaryOp::Gt, b.read(x), constant(0.0)),
            [&] { b.return_(constant<std::int8_t>(1)); },
            [&] { b.return_(constant<std::int8_t>(0)); });
      });
  b.assign(x, constant(1.0));
  return std::move(b).finish();
}

TEST_P(AtOptLevel, LoopsBranchesAndReturns) {
  auto code = compile_at(opt(), module_of({factorial(), gcd(), skip_and_stop(), nested_pairs(),
                                           find_first(), sign()}));
  std::uint64_t f = 1;
  for (std::uint64_t n = 0; n < 30; ++n) {
    if (n > 1) f *= n;
    EXPECT_EQ(call_native<std::uint64_t>(*code, "factorial", n), f) << n;
  }
  std::mt19937 rng(5);
  for (int k = 0; k < 50; ++k) {
    const std::uint32_t a = rng() % 100000, c = rng() % 1000;
    EXPECT_EQ(call_native<std::uint32_t>(*code, "gcd", a, c), std::gcd(a, c)) << a << " " << c;
  }
  for (std::int32_t n : {0, 1, 5, 20, 100}) {
    for (std::int32_t limit : {-1, 0, 10, 50, 100000}) {
      EXPECT_EQ(call_native<std::int32_t>(*code, "skip_and_stop", n, limit),
                skip_and_stop_reference(n, limit));
      EXPECT_EQ(call_native<std::int32_t>(*code, "nested_pairs", n, limit),
                nested_pairs_reference(n, limit));
    }
  }
  std::vector<std::int16_t> data = {5, -3, 8, 8, 0, 12};
  for (std::int16_t x : {5, 8, 12, 0, 99}) {
    const auto it = std::find(data.begin(), data.end(), x);
    const std::int64_t expected = it == data.end() ? -1 : it - data.begin();
    EXPECT_EQ(call_native<std::int64_t>(*code, "find_first", data.data(),
                                        static_cast<std::int64_t>(data.size()), x),
              expected);
  }
  for (double x : {-2.5, -0.0, 0.0, 3.0}) {
    EXPECT_EQ(call_native<std::int8_t>(*code, "sign", x), (x > 0) - (x < 0)) << x;
  }
}

// Externs that log their calls, to observe evaluation order and laziness.
std::vector<std::int32_t> call_log;
std::int32_t logged(std::int32_t v) {
  call_log.push_back(v);
  return v;
}

TEST_P(AtOptLevel, LogicalOperatorsAndSelectAreLazy) {
  ExternTable externs;
  ExternRef log = externs.add("logged", &logged, Effect::Effectful);
  const Type ptr = Type::pointer_to(Scalar::I32);
  // p != null && p[0] > 0
  FunctionBuilder guarded_load("guarded_load", Type::bool_());
  VarId p = guarded_load.param("p", ptr);
  guarded_load.return_(bin(BinaryOp::And,
                           bin(BinaryOp::Ne, guarded_load.read(p), null_pointer(ptr)),
                           bin(BinaryOp::Gt, load(guarded_load.read(p), i32(0)), i32(0))));
  // d == 0 || x / d > 1
  FunctionBuilder guarded_div("guarded_div", Type::bool_());
  VarId x = guarded_div.param("x", Type::i32());
  VarId d = guarded_div.param("d", Type::i32());
  guarded_div.return_(
      bin(BinaryOp::Or, bin(BinaryOp::Eq, guarded_div.read(d), i32(0)),
          bin(BinaryOp::Gt, bin(BinaryOp::Div, guarded_div.read(x), guarded_div.read(d)), i32(1))));
  // c ? @logged(1) : @logged(2) + @logged(3)
  FunctionBuilder chosen("chosen", Type::i32());
  VarId c = chosen.param("c", Type::bool_());
  chosen.return_(select(chosen.read(c), call(log, {i32(1)}),
                        bin(BinaryOp::Add, call(log, {i32(2)}), call(log, {i32(3)}))));
  // a ? x : y with plain operands: a select, still right
  FunctionBuilder plain("plain", Type::f32());
  VarId a = plain.param("a", Type::bool_());
  VarId fx = plain.param("x", Type::f32());
  VarId fy = plain.param("y", Type::f32());
  plain.return_(select(plain.read(a), plain.read(fx), plain.read(fy)));

  auto code =
      compile_at(opt(),
                 module_of({std::move(guarded_load).finish(), std::move(guarded_div).finish(),
                            std::move(chosen).finish(), std::move(plain).finish()},
                           {log}),
                 externs);
  std::int32_t positive = 4, negative = -4;
  EXPECT_FALSE(call_native<bool>(*code, "guarded_load", static_cast<std::int32_t*>(nullptr)));
  EXPECT_TRUE(call_native<bool>(*code, "guarded_load", &positive));
  EXPECT_FALSE(call_native<bool>(*code, "guarded_load", &negative));
  EXPECT_TRUE(call_native<bool>(*code, "guarded_div", 5, 0));
  EXPECT_TRUE(call_native<bool>(*code, "guarded_div", 5, 2));
  EXPECT_FALSE(call_native<bool>(*code, "guarded_div", 5, 5));

  call_log.clear();
  EXPECT_EQ(call_native<std::int32_t>(*code, "chosen", true), 1);
  EXPECT_EQ(call_log, (std::vector<std::int32_t>{1}));
  call_log.clear();
  EXPECT_EQ(call_native<std::int32_t>(*code, "chosen", false), 5);
  EXPECT_EQ(call_log, (std::vector<std::int32_t>{2, 3}));  // left to right

  EXPECT_EQ(call_native<float>(*code, "plain", true, 1.5f, 2.5f), 1.5f);
  EXPECT_EQ(call_native<float>(*code, "plain", false, 1.5f, 2.5f), 2.5f);
}

INSTANTIATE_TEST_SUITE_P(Jit, AtOptLevel, ::testing::Values(0, 2));

}  // namespace
}  // namespace augur::cpu::test
