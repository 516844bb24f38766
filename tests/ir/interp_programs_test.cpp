// Whole programs run by the interpreter against the same computation in C++.
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <random>
#include <thread>

#include "jit/error.h"
#include "tests/ir/interp_test_support.h"

namespace augur::ir {
namespace {

using namespace augur::ir::testing;

Function factorial_u64() {
  FunctionBuilder b("factorial", Type::u64());
  E n = b.read(b.param("n", Type::u64()));
  VarId r = b.declare("r", Type::u64(), lit<std::uint64_t>(1));
  VarId i = b.new_local("i", Type::u64());
  b.for_([&] { b.emit(Stmt::decl(i, lit<std::uint64_t>(1))); }, E(b.read(i)) <= n,
         [&] { b.assign(i, E(b.read(i)) + 1); }, [&] { b.assign(r, E(b.read(r)) * E(b.read(i))); });
  b.return_(b.read(r));
  return std::move(b).finish();
}

TEST(InterpPrograms, FactorialWrapsLikeUnsignedCpp) {
  Interpreter f = interpreter(factorial_u64());
  for (std::uint64_t n = 0; n <= 40; ++n) {
    std::uint64_t expected = 1;
    for (std::uint64_t i = 1; i <= n; ++i) expected *= i;
    EXPECT_EQ(f.call<std::uint64_t>(n), expected) << "n = " << n;
  }
}

TEST(InterpPrograms, RecursiveStyleFactorialOnI32Wraps) {
  // while (n > 1) { r = r * n; n = n - 1; } on i32, which overflows past 12!.
  FunctionBuilder b("fact32", Type::i32());
  VarId n = b.param("n", Type::i32());
  VarId r = b.declare("r", Type::i32(), lit<std::int32_t>(1));
  b.while_(E(b.read(n)) > 1, [&] {
    b.assign(r, E(b.read(r)) * E(b.read(n)));
    b.assign(n, E(b.read(n)) - 1);
  });
  b.return_(b.read(r));
  Interpreter f = interpreter(std::move(b).finish());
  for (std::int32_t n = -3; n <= 34; ++n) {
    std::uint32_t expected = 1;
    for (std::int32_t k = n; k > 1; --k) expected *= static_cast<std::uint32_t>(k);
    EXPECT_EQ(f.call<std::int32_t>(n), static_cast<std::int32_t>(expected)) << "n = " << n;
  }
}

Function gcd_i64() {
  FunctionBuilder b("gcd", Type::i64());
  VarId a = b.param("a", Type::i64());
  VarId c = b.param("b", Type::i64());
  b.while_(E(b.read(c)) != 0, [&] {
    VarId t = b.declare("t", Type::i64(), E(b.read(a)) % E(b.read(c)));
    b.assign(a, b.read(c));
    b.assign(c, b.read(t));
  });
  b.return_(b.read(a));
  return std::move(b).finish();
}

std::int64_t gcd_cpp(std::int64_t a, std::int64_t b) {
  while (b != 0) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

TEST(InterpPrograms, GcdMatchesCpp) {
  Interpreter gcd = interpreter(gcd_i64());
  const std::vector<std::int64_t> values = sample<std::int64_t>(60, 7);
  for (std::int64_t a : values) {
    for (std::int64_t b : values) {
      constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
      if ((a == kMin && b == -1) || (a == -1 && b == kMin)) continue;  // INT_MIN % -1 traps
      EXPECT_EQ(gcd.call<std::int64_t>(a, b), gcd_cpp(a, b)) << a << ", " << b;
    }
  }
}

Function prefix_sums() {
  // fn prefix(a: i32*, out: i64*, n: i32) -> void
  FunctionBuilder b("prefix", Type::void_());
  E a = b.read(b.param("a", Type::pointer_to(Scalar::I32)));
  E out = b.read(b.param("out", Type::pointer_to(Scalar::I64)));
  E n = b.read(b.param("n", Type::i32()));
  VarId s = b.declare("s", Type::i64());
  VarId i = b.new_local("i", Type::i32());
  b.for_([&] { b.emit(Stmt::decl(i, lit<std::int32_t>(0))); }, E(b.read(i)) < n,
         [&] { b.assign(i, E(b.read(i)) + 1); },
         [&] {
           b.assign(s, E(b.read(s)) + to(Type::i64(), at(a, E(b.read(i)))));
           b.store(out, b.read(i), b.read(s));
         });
  return std::move(b).finish();
}

TEST(InterpPrograms, PrefixSumsMatchCpp) {
  std::mt19937 rng(3);
  for (bool checked : {false, true}) {
    for (int trial = 0; trial < 40; ++trial) {
      const int n = static_cast<int>(rng() % 200);
      std::vector<std::int32_t> a(static_cast<std::size_t>(n));
      for (auto& v : a) v = static_cast<std::int32_t>(rng());
      std::vector<std::int64_t> out(a.size(), -7), expected(a.size());
      std::inclusive_scan(a.begin(), a.end(), expected.begin(), std::plus<std::int64_t>(),
                          std::int64_t{0});
      InterpOptions options;
      options.bounds_check = checked;
      options.buffers = {{a.data(), a.size() * sizeof(a[0]), "a"},
                         {out.data(), out.size() * sizeof(out[0]), "out"}};
      Interpreter prefix = interpreter(prefix_sums(), options);
      prefix.call<void>(a.data(), out.data(), n);
      EXPECT_EQ(out, expected) << "n = " << n << (checked ? " (checked)" : "");
    }
  }
}

Function matmul() {
  // c[i*m + j] = sum_k a[i*k + l] * b[l*m + j]
  FunctionBuilder b("matmul", Type::void_());
  const Type f64p = Type::pointer_to(Scalar::F64);
  E a = b.read(b.param("a", f64p));
  E bm = b.read(b.param("b", f64p));
  E c = b.read(b.param("c", f64p));
  E n = b.read(b.param("n", Type::i32()));
  E m = b.read(b.param("m", Type::i32()));
  E k = b.read(b.param("k", Type::i32()));
  VarId i = b.declare("i", Type::i32());
  b.while_(E(b.read(i)) < n, [&] {
    VarId j = b.declare("j", Type::i32());
    b.while_(E(b.read(j)) < m, [&] {
      VarId acc = b.declare("acc", Type::f64());
      VarId l = b.declare("l", Type::i32());
      b.while_(E(b.read(l)) < k, [&] {
        E lhs = at(a, E(b.read(i)) * k + E(b.read(l)));
        E rhs = at(bm, E(b.read(l)) * m + E(b.read(j)));
        b.assign(acc, E(b.read(acc)) + lhs * rhs);
        b.assign(l, E(b.read(l)) + 1);
      });
      b.store(c, E(b.read(i)) * m + E(b.read(j)), b.read(acc));
      b.assign(j, E(b.read(j)) + 1);
    });
    b.assign(i, E(b.read(i)) + 1);
  });
  return std::move(b).finish();
}

TEST(InterpPrograms, MatmulMatchesCppBitForBit) {
  Interpreter mm = interpreter(matmul());
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> dist(-10.0, 10.0);
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 9), m = 1 + static_cast<int>(rng() % 9),
              k = 1 + static_cast<int>(rng() % 9);
    std::vector<double> a(static_cast<std::size_t>(n * k)), b(static_cast<std::size_t>(k * m));
    for (double& v : a) v = dist(rng);
    for (double& v : b) v = dist(rng);
    std::vector<double> c(static_cast<std::size_t>(n * m), -1.0), expected(c.size());
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < m; ++j) {
        double acc = 0.0;
        for (int l = 0; l < k; ++l) acc = acc + a[i * k + l] * b[l * m + j];
        expected[i * m + j] = acc;
      }
    }
    mm.call<void>(a.data(), b.data(), c.data(), n, m, k);
    EXPECT_EQ(c, expected) << n << "x" << k << " * " << k << "x" << m;
  }
}

TEST(InterpPrograms, ForContinueRunsTheStep) {
  // for (i = 0; i < n; i = i + 1) { if (i % 3 == 0) continue; if (i > limit) break; s = s + i; }
  FunctionBuilder b("skips", Type::i32());
  E n = b.read(b.param("n", Type::i32()));
  E limit = b.read(b.param("limit", Type::i32()));
  VarId s = b.declare("s", Type::i32());
  VarId i = b.new_local("i", Type::i32());
  b.for_([&] { b.emit(Stmt::decl(i, lit<std::int32_t>(0))); }, E(b.read(i)) < n,
         [&] { b.assign(i, E(b.read(i)) + 1); },
         [&] {
           b.if_(E(b.read(i)) % 3 == 0, [&] { b.continue_(); });
           b.if_(E(b.read(i)) > limit, [&] { b.break_(); });
           b.assign(s, E(b.read(s)) + E(b.read(i)));
         });
  b.return_(b.read(s));
  InterpOptions options;
  options.step_limit = 100000;  // a continue that skipped the step would loop forever
  Interpreter f = interpreter(std::move(b).finish(), options);
  for (int n = 0; n < 40; n += 3) {
    for (int limit : {-1, 5, 17, 100}) {
      int expected = 0;
      for (int i = 0; i < n; ++i) {
        if (i % 3 == 0) continue;
        if (i > limit) break;
        expected += i;
      }
      EXPECT_EQ(f.call<std::int32_t>(n, limit), expected) << n << ", " << limit;
    }
  }
}

TEST(InterpPrograms, DeclarationsInLoopsAreReinitialized) {
  // while (i < n) { var t: i32; t = t + i; var u: i32 = 5; u = u * 2; s = s + t + u; i = i + 1; }
  FunctionBuilder b("reinit", Type::i32());
  E n = b.read(b.param("n", Type::i32()));
  VarId s = b.declare("s", Type::i32());
  VarId i = b.declare("i", Type::i32());
  b.while_(E(b.read(i)) < n, [&] {
    VarId t = b.declare("t", Type::i32());
    b.assign(t, E(b.read(t)) + E(b.read(i)));
    VarId u = b.declare("u", Type::i32(), lit<std::int32_t>(5));
    b.assign(u, E(b.read(u)) * 2);
    b.assign(s, E(b.read(s)) + E(b.read(t)) + E(b.read(u)));
    b.assign(i, E(b.read(i)) + 1);
  });
  b.return_(b.read(s));
  Interpreter f = interpreter(std::move(b).finish());
  for (int n = 0; n < 30; ++n) {
    int expected = 0;
    for (int i = 0; i < n; ++i) expected += i + 10;
    EXPECT_EQ(f.call<std::int32_t>(n), expected);
  }
}

TEST(InterpPrograms, NestedLoopsBreakOnlyTheInnermostAndReturnFromInside) {
  // Finds the first (i, j) with i * j == target, returning i * 100 + j, or -1.
  FunctionBuilder b("find", Type::i32());
  E target = b.read(b.param("target", Type::i32()));
  VarId i = b.declare("i", Type::i32(), lit<std::int32_t>(1));
  VarId hits = b.declare("hits", Type::i32());
  b.while_(lit(true), [&] {
    b.if_(E(b.read(i)) > 9, [&] { b.break_(); });
    VarId j = b.declare("j", Type::i32(), lit<std::int32_t>(1));
    b.while_(lit(true), [&] {
      b.if_(E(b.read(j)) > E(b.read(i)), [&] { b.break_(); });
      b.if_(E(b.read(i)) * E(b.read(j)) == target,
            [&] { b.return_(E(b.read(i)) * 100 + E(b.read(j))); });
      b.assign(j, E(b.read(j)) + 1);
    });
    b.assign(hits, E(b.read(hits)) + 1);
    b.assign(i, E(b.read(i)) + 1);
  });
  b.return_(-E(b.read(hits)));
  Interpreter f = interpreter(std::move(b).finish());
  for (int target = 0; target < 90; ++target) {
    int expected = -9;
    for (int i = 1; i <= 9 && expected == -9; ++i) {
      for (int j = 1; j <= i; ++j) {
        if (i * j == target) {
          expected = i * 100 + j;
          break;
        }
      }
    }
    EXPECT_EQ(f.call<std::int32_t>(target), expected) << target;
  }
}

// ---------------------------------------------------------------- short circuit

TEST(InterpPrograms, AndGuardsANullLoad) {
  // p != null && p[0] > 0, bounds-checked with no buffer but `x`: a load through
  // null would trap.
  FunctionBuilder b("guarded", Type::bool_());
  const Type ip = Type::pointer_to(Scalar::I32);
  E p = b.read(b.param("p", ip));
  b.return_(p != null_of(ip) && at(p, 0) > 0);
  std::int32_t x = 5;
  InterpOptions options;
  options.bounds_check = true;
  options.buffers = {{&x, sizeof x, "x"}};
  Interpreter f = interpreter(std::move(b).finish(), options);
  EXPECT_FALSE(f.call<bool>(static_cast<std::int32_t*>(nullptr)));
  EXPECT_TRUE(f.call<bool>(&x));
  x = -5;
  EXPECT_FALSE(f.call<bool>(&x));
}

TEST(InterpPrograms, OrAndSelectGuardDivisionByZero) {
  // r1 = b == 0 || a / b > 1; r2 = b != 0 ? a % b : -1; return (r1 ? 1000 : 0) + r2
  FunctionBuilder b("guards", Type::i32());
  E x = b.read(b.param("a", Type::i32()));
  E y = b.read(b.param("b", Type::i32()));
  VarId r1 = b.declare("r1", Type::bool_(), y == 0 || x / y > 1);
  VarId r2 = b.declare("r2", Type::i32(), sel(y != 0, x % y, lit<std::int32_t>(-1)));
  b.return_(sel(b.read(r1), lit<std::int32_t>(1000), lit<std::int32_t>(0)) + E(b.read(r2)));
  Interpreter f = interpreter(std::move(b).finish());
  for (std::int32_t a : {-9, -1, 0, 1, 2, 7, 100}) {
    for (std::int32_t d : {-3, -1, 0, 1, 2, 5}) {
      const bool r1 = d == 0 || a / d > 1;
      const std::int32_t r2 = d != 0 ? a % d : -1;
      EXPECT_EQ(f.call<std::int32_t>(a, d), (r1 ? 1000 : 0) + r2) << a << ", " << d;
    }
  }
}

std::atomic<int> probe_calls{0};
bool probe(bool v) {
  ++probe_calls;
  return v;
}

TEST(InterpPrograms, RightOperandsAndUnchosenBranchesAreNotEvaluated) {
  ExternTable externs;
  ExternRef p = externs.add("probe", &probe, Effect::Effectful);
  // Each of these evaluates @probe(v) exactly once, whatever the operands.
  const auto call = [&](E v) { return E(ir::call(p, {v})); };
  const auto build = [&](int which) {
    FunctionBuilder b("lazy", Type::bool_());
    E x = b.read(b.param("x", Type::bool_()));
    E y = b.read(b.param("y", Type::bool_()));
    switch (which) {
      case 0:  // call(x) || call(y), as a value
        b.return_(call(x) || (!call(x) && call(y)));
        break;
      case 1:  // x ? call(y) : call(!y)
        b.return_(sel(x, call(y), call(!y)));
        break;
      default:  // in a condition: if (call(x) && call(y)) return true; return false;
        b.if_(call(x) && call(y), [&] { b.return_(lit(true)); });
        b.return_(lit(false));
        break;
    }
    return interpreter(std::move(b).finish(), calling(externs), {p});
  };
  for (int which = 0; which < 3; ++which) {
    Interpreter f = build(which);
    for (bool x : {false, true}) {
      for (bool y : {false, true}) {
        probe_calls = 0;
        const bool result = f.call<bool>(x, y);
        int expected_calls = 0;
        bool expected = false;
        if (which == 0) {
          expected = x || y;
          expected_calls = x ? 1 : 3;
        } else if (which == 1) {
          expected = x ? y : !y;
          expected_calls = 1;
        } else {
          expected = x && y;
          expected_calls = x ? 2 : 1;
        }
        EXPECT_EQ(result, expected) << which << ": " << x << ", " << y;
        EXPECT_EQ(probe_calls.load(), expected_calls) << which << ": " << x << ", " << y;
      }
    }
  }
}

std::int32_t evaluation_order[8];
int evaluations = 0;
std::int32_t record(std::int32_t v) {
  evaluation_order[evaluations++] = v;
  return v;
}

TEST(InterpPrograms, OperandsAreEvaluatedLeftToRight) {
  ExternTable externs;
  ExternRef r = externs.add("record", &record, Effect::Effectful);
  const auto rec = [&](std::int32_t v) { return E(ir::call(r, {lit(v)})); };
  // @record(1) * @record(2) + @record(3), @record(1) + @record(2) * @record(3),
  // @record(1) - @record(2) / @record(3)
  for (int shape = 0; shape < 3; ++shape) {
    FunctionBuilder b("order", Type::i32());
    if (shape == 0) b.return_(rec(1) * rec(2) + rec(3));
    if (shape == 1) b.return_(rec(1) + rec(2) * rec(3));
    if (shape == 2) b.return_(rec(1) - rec(2) / rec(3));
    Interpreter f = interpreter(std::move(b).finish(), calling(externs), {r});
    evaluations = 0;
    const std::int32_t expected[] = {1 * 2 + 3, 1 + 2 * 3, 1 - 2 / 3};
    EXPECT_EQ(f.call<std::int32_t>(), expected[shape]);
    ASSERT_EQ(evaluations, 3);
    EXPECT_EQ(evaluation_order[0], 1);
    EXPECT_EQ(evaluation_order[1], 2);
    EXPECT_EQ(evaluation_order[2], 3);
  }
}

TEST(InterpPrograms, AssignmentsMayReadTheVariableTheyAssign) {
  // f = !f && f;  n = n > 0 ? n * 2 : -n + f(n);  m = (m < 3 || m > 10) ? m : m + 1
  FunctionBuilder b("self", Type::i32());
  VarId f = b.param("f", Type::bool_());
  VarId n = b.param("n", Type::i32());
  b.assign(f, !E(b.read(f)) && E(b.read(f)));
  b.assign(n, sel(E(b.read(n)) > 0, E(b.read(n)) * 2, -E(b.read(n)) + to(Type::i32(), b.read(f))));
  b.assign(n, sel(E(b.read(n)) < 3 || E(b.read(n)) > 10, b.read(n), E(b.read(n)) + 1));
  b.return_(E(b.read(n)) + to(Type::i32(), b.read(f)) * 1000);
  Interpreter fn = interpreter(std::move(b).finish());
  for (bool fv : {false, true}) {
    for (std::int32_t nv = -20; nv <= 20; ++nv) {
      bool ff = fv;
      std::int32_t nn = nv;
      ff = !ff && ff;
      nn = nn > 0 ? nn * 2 : -nn + static_cast<std::int32_t>(ff);
      nn = (nn < 3 || nn > 10) ? nn : nn + 1;
      EXPECT_EQ(fn.call<std::int32_t>(fv, nv), nn + static_cast<std::int32_t>(ff) * 1000);
    }
  }
}

// ---------------------------------------------------------------- externs

std::atomic<int> logged{0};
double last_logged = 0;
void log_value(double v) {
  ++logged;
  last_logged = v;
}
double twice(double v) {
  return 2 * v;
}
std::int64_t sum_array(const std::int32_t* p, std::int32_t n) {
  return std::accumulate(p, p + n, std::int64_t{0});
}

TEST(InterpPrograms, CallsExternsOfEachEffect) {
  ExternTable externs;
  ExternRef log = externs.add("log_value", &log_value, Effect::Effectful);
  ExternRef pure = externs.add("twice", &twice, Effect::Pure);
  ExternRef reads = externs.add("sum_array", &sum_array, Effect::ReadOnly);
  // power(x, n) from docs/ir.md, logging every partial result, then
  // twice(r) + sum_array(data, len).
  FunctionBuilder b("power", Type::f64());
  VarId x = b.param("x", Type::f64());
  VarId n = b.param("n", Type::i32());
  E data = b.read(b.param("data", Type::pointer_to(Scalar::I32)));
  E len = b.read(b.param("len", Type::i32()));
  VarId r = b.declare("r", Type::f64(), lit(1.0));
  b.while_(E(b.read(n)) > 0, [&] {
    b.if_((E(b.read(n)) & 1) == 1, [&] { b.assign(r, E(b.read(r)) * E(b.read(x))); });
    b.eval(ir::call(log, {b.read(r)}));
    b.assign(x, E(b.read(x)) * E(b.read(x)));
    b.assign(n, E(b.read(n)) >> 1);
  });
  b.return_(E(ir::call(pure, {b.read(r)})) + to(Type::f64(), ir::call(reads, {data, len})));
  Interpreter f = interpreter(std::move(b).finish(), calling(externs), {log, pure, reads});
  const std::vector<std::int32_t> values = {4, -9, 100, 7};
  for (double base : {0.5, 1.5, -2.0}) {
    for (int e = 0; e < 20; ++e) {
      logged = 0;
      double expected = 1.0, xx = base;
      int iterations = 0;
      for (int k = e; k > 0; k >>= 1, ++iterations) {
        if ((k & 1) == 1) expected *= xx;
        xx *= xx;
      }
      const double result = f.call<double>(base, e, values.data(), 3);
      EXPECT_EQ(result, 2 * expected + (4 - 9 + 100));
      EXPECT_EQ(logged.load(), iterations);
      if (iterations > 0) {
        EXPECT_EQ(last_logged, expected);
      }
    }
  }
}

TEST(InterpPrograms, ConcurrentRunsOnOneInterpreter) {
  const Interpreter gcd = interpreter(gcd_i64());
  const Interpreter prefix = interpreter(prefix_sums());
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      std::vector<std::int32_t> a(64);
      std::vector<std::int64_t> out(64), expected(64);
      for (int i = 0; i < 300; ++i) {
        const std::int64_t x = static_cast<std::int64_t>(rng() % 1000000) - 500000;
        const std::int64_t y = static_cast<std::int64_t>(rng() % 1000) + 1;
        if (gcd.call<std::int64_t>(x, y) != gcd_cpp(x, y)) ++mismatches;
        for (auto& v : a) v = static_cast<std::int32_t>(rng() % 1000);
        std::inclusive_scan(a.begin(), a.end(), expected.begin(), std::plus<std::int64_t>(),
                            std::int64_t{0});
        prefix.call<void>(a.data(), out.data(), 64);
        if (out != expected) ++mismatches;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(InterpPrograms, TypedCallChecksTheSignature) {
  Interpreter gcd = interpreter(gcd_i64());
  EXPECT_EQ(gcd.call<std::int64_t>(std::int64_t{12}, std::int64_t{18}), 6);
  EXPECT_THROW(gcd.call<std::int64_t>(12, 18), jit::error);  // int is i32
  EXPECT_THROW(gcd.call<double>(std::int64_t{12}, std::int64_t{18}), jit::error);
  EXPECT_THROW(gcd.call<std::int64_t>(std::int64_t{12}), jit::error);
  const Value args[] = {Value::of(std::int64_t{12})};
  EXPECT_THROW(gcd.run(args), jit::error);
  EXPECT_EQ(gcd.name(), "gcd");
  EXPECT_FALSE(gcd.is_kernel());
  EXPECT_EQ(gcd.return_type(), Type::i64());
  ASSERT_EQ(gcd.param_types().size(), 2u);
}

TEST(InterpPrograms, ArgumentsAreTruncatedToTheirParameterWidth) {
  FunctionBuilder b("id8", Type::i32());
  b.return_(to(Type::i32(), b.read(b.param("x", Type::i8()))));
  Interpreter f = interpreter(std::move(b).finish());
  const Value args[] = {Value{0x1ff}};  // not canonical for i8: low byte 0xff is -1
  EXPECT_EQ(f.run(args).as<std::int32_t>(), -1);
}

}  // namespace
}  // namespace augur::ir
