// Traps (reason, function, statement path), bounds-checked mode, the step
// limit, and the errors an interpreter reports before running anything.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

#include "jit/error.h"
#include "tests/ir/interp_test_support.h"

namespace augur::ir {
namespace {

using namespace augur::ir::testing;

// The trap `run` raises; fails the test if it raises none.
jit::trap_error trap_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const jit::trap_error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a trap";
  return jit::trap_error("no trap");
}

// The address `offset` bytes from `p`, as trap messages print it.
std::string hex(const void* p, std::ptrdiff_t offset = 0) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p) + offset));
  return text;
}

// fn f(a: T, b: T) -> T { var r: T; if (a > b) { while (r < 3) { r = r + 1; r = a OP b; } } return
// r; } The operation sits at body[1].then[0].body[1].
template <class T>
Function nested(BinaryOp op) {
  const Type t = type_of<T>();
  FunctionBuilder b("nested", t);
  E x = b.read(b.param("a", t));
  E y = b.read(b.param("b", t));
  VarId r = b.declare("r", t);
  b.if_(x > y, [&] {
    b.while_(E(b.read(r)) < 3, [&] {
      b.assign(r, E(b.read(r)) + 1);
      b.assign(r, binary(op, x, y));
    });
  });
  b.return_(b.read(r));
  return std::move(b).finish();
}

template <class T>
void expect_division_traps() {
  constexpr T kMin = std::numeric_limits<T>::min();
  for (BinaryOp op : {BinaryOp::Div, BinaryOp::Rem}) {
    Interpreter f = interpreter(nested<T>(op));
    const std::string what = op == BinaryOp::Div ? "division" : "remainder";
    jit::trap_error by_zero = trap_of([&] { f.call<T>(T(5), T(0)); });
    EXPECT_EQ(by_zero.message(), what + " by zero") << type_of<T>().name();
    EXPECT_EQ(by_zero.where().function, "nested");
    EXPECT_EQ(by_zero.where().path, "body[1].then[0].body[1]");
    EXPECT_EQ(std::string(by_zero.what()),
              "function 'nested' at body[1].then[0].body[1]: " + what + " by zero");
    if constexpr (std::is_signed_v<T>) {
      // min OP -1, in a straight-line function (nested() needs a > b).
      FunctionBuilder b("overflow", type_of<T>());
      E x = b.read(b.param("a", type_of<T>()));
      E y = b.read(b.param("b", type_of<T>()));
      b.return_(binary(op, x, y));
      Interpreter g = interpreter(std::move(b).finish());
      jit::trap_error overflow = trap_of([&] { g.call<T>(kMin, T(-1)); });
      EXPECT_EQ(overflow.message(), "signed overflow in " + what) << type_of<T>().name();
      EXPECT_EQ(overflow.where().path, "body[0]");
      EXPECT_EQ(g.call<T>(T(kMin + 1), T(-1)), op == BinaryOp::Div ? T(-(kMin + 1)) : T(0));
    }
  }
}

TEST(InterpTraps, DivisionAndRemainderByZeroAndSignedOverflow) {
  expect_division_traps<std::int8_t>();
  expect_division_traps<std::int16_t>();
  expect_division_traps<std::int32_t>();
  expect_division_traps<std::int64_t>();
  expect_division_traps<std::uint8_t>();
  expect_division_traps<std::uint16_t>();
  expect_division_traps<std::uint32_t>();
  expect_division_traps<std::uint64_t>();
}

TEST(InterpTraps, PathsNameInitStepElseAndLoopSegments) {
  // fn f(n: i32) -> i32 {
  //   var s: i32;
  //   for (var i: i32 = 10 / n; i < 3; i = i + 1 + 10 / (n - 10)) {
  //     if (i == 99) {} else { s = s + 100 / (n - 20); }
  //   }
  //   while (s / (n - 30) > 1000) {}
  //   return s; }
  FunctionBuilder b("segments", Type::i32());
  E n = b.read(b.param("n", Type::i32()));
  VarId s = b.declare("s", Type::i32());
  VarId i = b.new_local("i", Type::i32());
  b.for_([&] { b.emit(Stmt::decl(i, 10 / n)); }, E(b.read(i)) < 3,
         [&] { b.assign(i, E(b.read(i)) + 1 + 10 / (n - 10)); },
         [&] {
           b.if_(
               E(b.read(i)) == 99, [] {}, [&] { b.assign(s, E(b.read(s)) + 100 / (n - 20)); });
         });
  b.while_(E(b.read(s)) / (n - 30) > 1000, [] {});
  b.return_(b.read(s));
  Interpreter f = interpreter(std::move(b).finish());
  const auto reference = [](std::int32_t n) {
    std::int32_t s = 0;
    for (std::int32_t i = 10 / n; i < 3; i = i + 1 + 10 / (n - 10)) s = s + 100 / (n - 20);
    return s;
  };
  EXPECT_EQ(trap_of([&] { f.call<std::int32_t>(0); }).where().path, "body[1].init[0]");
  EXPECT_EQ(trap_of([&] { f.call<std::int32_t>(10); }).where().path, "body[1].step[0]");
  EXPECT_EQ(trap_of([&] { f.call<std::int32_t>(20); }).where().path, "body[1].body[0].else[0]");
  EXPECT_EQ(trap_of([&] { f.call<std::int32_t>(30); }).where().path, "body[2]");
  for (std::int32_t n : {-10, -3, 11, 15, 40})
    EXPECT_EQ(f.call<std::int32_t>(n), reference(n)) << n;
}

Function reader() {
  // fn get(a: i32*, i: i64) -> i32 { return a[i]; }
  FunctionBuilder b("get", Type::i32());
  E a = b.read(b.param("a", Type::pointer_to(Scalar::I32)));
  E i = b.read(b.param("i", Type::i64()));
  b.return_(at(a, i));
  return std::move(b).finish();
}

TEST(InterpTraps, BoundsCheckedLoadsNameTheAddressAndTheNearestBuffer) {
  // Two buffers in one array, far enough apart that the nearest one is clear.
  std::int32_t storage[64] = {};
  std::int32_t* const a = storage;
  std::int32_t* const other = storage + 40;
  a[3] = 42;
  InterpOptions options;
  options.bounds_check = true;
  options.buffers = {{a, 16 * sizeof(std::int32_t), "a"},
                     {other, 4 * sizeof(std::int32_t), "other"}};
  Interpreter get = interpreter(reader(), options);
  EXPECT_EQ(get.call<std::int32_t>(&a[0], std::int64_t{3}), 42);
  EXPECT_EQ(get.call<std::int32_t>(&a[0], std::int64_t{15}), 0);
  EXPECT_EQ(get.call<std::int32_t>(&other[0], std::int64_t{3}), 0);

  // a[16] of int a[16]: the whole element lies past the end.
  jit::trap_error past = trap_of([&] { get.call<std::int32_t>(&a[0], std::int64_t{16}); });
  EXPECT_EQ(past.message(), "load out of bounds: " + hex(a, 64) + " is 4 bytes past buffer 'a' [" +
                                hex(a) + ", +64)");
  EXPECT_EQ(past.where().path, "body[0]");
  // A misaligned pointer makes an access straddle the end.
  const auto* straddle =
      reinterpret_cast<const std::int32_t*>(reinterpret_cast<const char*>(&other[3]) + 2);
  jit::trap_error partial = trap_of([&] { get.call<std::int32_t>(straddle, std::int64_t{0}); });
  EXPECT_EQ(partial.message(), "load out of bounds: " + hex(straddle) +
                                   " is 2 bytes past buffer 'other' [" + hex(other) + ", +16)");
}

TEST(InterpTraps, BoundsCheckedStoresAndAtomicsBeforeABuffer) {
  // fn put(a: i32*, i: i32) -> i32 { a[i] = 1; return atomic_add(a, i + 1, 2); }
  FunctionBuilder b("put", Type::i32());
  E a = b.read(b.param("a", Type::pointer_to(Scalar::I32)));
  E i = b.read(b.param("i", Type::i32()));
  b.store(a, i, lit<std::int32_t>(1));
  b.return_(atomic(AtomicOp::Add, {a, i + 1, lit<std::int32_t>(2)}));
  std::int32_t data[8] = {};
  InterpOptions options;
  options.bounds_check = true;
  options.buffers = {{data, sizeof data, "data"}};
  Interpreter put = interpreter(std::move(b).finish(), options);
  EXPECT_EQ(put.call<std::int32_t>(&data[0], 2), 0);
  EXPECT_EQ(data[2], 1);
  EXPECT_EQ(data[3], 2);
  jit::trap_error store = trap_of([&] { put.call<std::int32_t>(&data[0], -3); });
  EXPECT_EQ(store.message(), "store out of bounds: " + hex(data, -12) +
                                 " is 12 bytes before buffer 'data' [" + hex(data) + ", +32)");
  EXPECT_EQ(store.where().path, "body[0]");
  jit::trap_error atomic_trap = trap_of([&] { put.call<std::int32_t>(&data[0], 7); });
  EXPECT_EQ(atomic_trap.message(), "atomic out of bounds: " + hex(data, 32) +
                                       " is 4 bytes past buffer 'data' [" + hex(data) + ", +32)");
  EXPECT_EQ(atomic_trap.where().path, "body[1]");
}

TEST(InterpTraps, BoundsCheckWithoutBuffersRejectsEveryAccess) {
  std::int32_t x = 0;
  InterpOptions options;
  options.bounds_check = true;
  Interpreter get = interpreter(reader(), options);
  EXPECT_EQ(trap_of([&] { get.call<std::int32_t>(&x, std::int64_t{0}); }).message(),
            "load out of bounds: " + hex(&x) + " is in no registered buffer");
}

TEST(InterpTraps, NullDereferenceTrapsEvenUnchecked) {
  Interpreter get = interpreter(reader());
  EXPECT_EQ(trap_of([&] {
              get.call<std::int32_t>(static_cast<const std::int32_t*>(nullptr), std::int64_t{2});
            }).message(),
            "load through a null pointer: 0x8");
}

TEST(InterpTraps, MisalignedAtomic) {
  // atomic_add(i32*(u8*(p) + 1i32), 0, 1)
  FunctionBuilder b("misaligned", Type::i32());
  E p = b.read(b.param("p", Type::pointer_to(Scalar::I32)));
  E bytes = to(Type::pointer_to(Scalar::U8), p) + lit<std::int32_t>(1);
  b.return_(atomic(AtomicOp::Add, {to(Type::pointer_to(Scalar::I32), bytes), lit<std::int32_t>(0),
                                   lit<std::int32_t>(1)}));
  alignas(8) std::int32_t data[2] = {};
  Interpreter f = interpreter(std::move(b).finish());
  EXPECT_EQ(trap_of([&] { f.call<std::int32_t>(&data[0]); }).message(),
            "misaligned atomic: " + hex(data, 1) + " is not a multiple of 4");
}

Function spin() {
  // fn spin(n: i32) -> i32 { var i: i32; while (i != n) { i = i + 2; } return i; }
  FunctionBuilder b("spin", Type::i32());
  E n = b.read(b.param("n", Type::i32()));
  VarId i = b.declare("i", Type::i32());
  b.while_(E(b.read(i)) != n, [&] { b.assign(i, E(b.read(i)) + 2); });
  b.return_(b.read(i));
  return std::move(b).finish();
}

TEST(InterpTraps, StepLimitStopsRunawayLoops) {
  InterpOptions options;
  options.step_limit = 1000;
  Interpreter limited = interpreter(spin(), options);
  EXPECT_EQ(limited.call<std::int32_t>(100), 100);                            // about 150 steps
  jit::trap_error runaway = trap_of([&] { limited.call<std::int32_t>(7); });  // never equal
  EXPECT_EQ(runaway.message(), "step limit of 1000 exceeded");
  EXPECT_EQ(runaway.where().function, "spin");
  // The limit is per run: a second run gets the full budget again.
  EXPECT_EQ(limited.call<std::int32_t>(100), 100);
  // A limit that is too small for a terminating run traps as well.
  options.step_limit = 50;
  Interpreter tight = interpreter(spin(), options);
  EXPECT_THROW(tight.call<std::int32_t>(100), jit::trap_error);
  EXPECT_EQ(tight.call<std::int32_t>(10), 10);
}

TEST(InterpTraps, FallingOffANonVoidFunctionTraps) {
  // Unverified IR: a function that returns only on one path.
  FunctionBuilder b("partial", Type::i32());
  E x = b.read(b.param("x", Type::i32()));
  b.if_(x > 0, [&] { b.return_(x); });
  Function partial = std::move(b).finish();
  EXPECT_THROW(interpreter(partial), jit::verify_error);  // the verifier catches it first
  InterpOptions unverified;
  unverified.verify = false;
  Interpreter f = interpreter(std::move(partial), unverified);
  EXPECT_EQ(f.call<std::int32_t>(4), 4);
  EXPECT_EQ(trap_of([&] { f.call<std::int32_t>(-4); }).message(),
            "reached the end of a non-void function without returning a value");
}

// ---------------------------------------------------------------- construction errors

TEST(InterpErrors, ReportsWhatCannotBeLowered) {
  Module empty;
  EXPECT_THROW(Interpreter(empty, "missing"), jit::verify_error);

  FunctionBuilder b("loose", Type::void_());
  b.break_();
  try {
    interpreter(std::move(b).finish());
    ADD_FAILURE() << "expected an error";
  } catch (const jit::verify_error& e) {
    EXPECT_EQ(e.message(), "break outside a loop");
    EXPECT_EQ(e.where().path, "body[0]");
  }

  FunctionBuilder host("host", Type::void_());
  host.barrier();
  EXPECT_THROW(interpreter(std::move(host).finish()), jit::verify_error);

  FunctionBuilder index("index", Type::i32());
  index.return_(thread_x());
  EXPECT_THROW(interpreter(std::move(index).finish()), jit::verify_error);
}

double unbound(double x) {
  return x;
}

TEST(InterpErrors, ExternsMustBeBoundWithTheirDeclaredSignature) {
  ExternTable bound;
  ExternRef decl = bound.add("unbound", &unbound, Effect::Pure);
  const auto build = [&] {
    FunctionBuilder b("calls", Type::f64());
    b.return_(ir::call(decl, {b.read(b.param("x", Type::f64()))}));
    return std::move(b).finish();
  };
  EXPECT_THROW(interpreter(build(), {}, {decl}), jit::error);
  ExternTable empty;
  EXPECT_THROW(interpreter(build(), calling(empty), {decl}), jit::error);
  ExternTable wrong;
  wrong.add(
      "unbound", +[](float x) { return x; }, Effect::Pure);
  EXPECT_THROW(interpreter(build(), calling(wrong), {decl}), jit::error);
  EXPECT_EQ(interpreter(build(), calling(bound), {decl}).call<double>(2.5), 2.5);
}

}  // namespace
}  // namespace augur::ir
