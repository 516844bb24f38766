// Calls to host functions: the C ABI of small integers and bools, effects,
// memory ordering around calls, binding errors, exceptions.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "jit/error.h"
#include "tests/jit/jit_test_util.h"

namespace augur::cpu::test {
namespace {

using namespace ir;

ExprPtr bin(BinaryOp op, ExprPtr a, ExprPtr b) {
  return binary(op, std::move(a), std::move(b));
}

bool is_odd(std::int8_t x) {
  return x % 2 != 0;
}
std::int8_t negate8(std::int8_t x) {
  return static_cast<std::int8_t>(-x);
}
std::uint16_t swap16(std::uint16_t x) {
  return static_cast<std::uint16_t>((x << 8) | (x >> 8));
}
bool exclusive(bool a, bool b) {
  return a != b;
}
// More arguments than registers, mixed classes: some go on the stack.
double mixed(std::int8_t a, double b, std::uint8_t c, float d, std::int16_t e, bool f,
             std::int64_t g, double h, std::uint32_t i, std::int32_t j, float k) {
  return a + b + c + d + e + (f ? 100 : 0) + static_cast<double>(g) + h + i + j + k;
}

TEST_P(AtOptLevel, ExternsFollowTheCAbiForSmallTypesAndBool) {
  ExternTable externs;
  ExternRef odd = externs.add("is_odd", &is_odd, Effect::Pure);
  ExternRef neg = externs.add("negate8", &negate8, Effect::Pure);
  ExternRef swap = externs.add("swap16", &swap16, Effect::Pure);
  ExternRef xr = externs.add("exclusive", &exclusive, Effect::Pure);
  ExternRef mix = externs.add("mixed", &mixed, Effect::Pure);

  // f(x: i8, y: u16, b: bool) -> i16: exercises every small-type path both ways.
  FunctionBuilder f("f", Type::i16());
  VarId x = f.param("x", Type::i8());
  VarId y = f.param("y", Type::u16());
  VarId flag = f.param("flag", Type::bool_());
  VarId odd_x = f.declare("odd_x", Type::bool_(), call(odd, {f.read(x)}));
  VarId differs = f.declare("differs", Type::bool_(), call(xr, {f.read(odd_x), f.read(flag)}));
  ExprPtr negated = cast(Type::i16(), call(neg, {f.read(x)}));
  ExprPtr swapped = cast(Type::i16(), call(swap, {f.read(y)}));
  f.return_(select(f.read(differs), bin(BinaryOp::Add, negated, swapped),
                   bin(BinaryOp::Sub, negated, swapped)));

  FunctionBuilder g("g", Type::f64());
  std::vector<ExprPtr> args;
  const Type types[] = {Type::i8(),  Type::f64(),   Type::u8(),  Type::f32(),
                        Type::i16(), Type::bool_(), Type::i64(), Type::f64(),
                        Type::u32(), Type::i32(),   Type::f32()};
  int n = 0;
  for (Type t : types) args.push_back(g.read(g.param("a" + std::to_string(n++), t)));
  g.return_(call(mix, std::move(args)));

  auto code = compile_at(
      opt(), module_of({std::move(f).finish(), std::move(g).finish()}, {odd, neg, swap, xr, mix}),
      externs);
  for (std::int8_t xv : {-128, -3, -2, 0, 1, 127}) {
    for (std::uint16_t yv : {0, 1, 0x1234, 0xff00, 0xffff}) {
      for (bool bv : {false, true}) {
        const auto ns = static_cast<std::int16_t>(static_cast<std::int8_t>(-xv));
        const auto ss = static_cast<std::int16_t>(swap16(yv));
        const auto expected =
            static_cast<std::int16_t>(exclusive(is_odd(xv), bv) ? ns + ss : ns - ss);
        EXPECT_EQ(call_native<std::int16_t>(*code, "f", xv, yv, bv), expected);
        EXPECT_EQ(invoke_as<std::int16_t>(*code, "f", xv, yv, bv), expected);
      }
    }
  }
  const double expected =
      mixed(-5, 0.25, 250, 1.5f, -300, true, -7000000000, 2.75, 4000000000u, -12, 0.125f);
  EXPECT_EQ(call_native<double>(*code, "g", std::int8_t{-5}, 0.25, std::uint8_t{250}, 1.5f,
                                std::int16_t{-300}, true, std::int64_t{-7000000000}, 2.75,
                                4000000000u, -12, 0.125f),
            expected);
}

int effect_count = 0;
void bump() {
  ++effect_count;
}
std::int32_t peek(const std::int32_t* p) {
  return p[0];
}
void poke(std::int32_t* p, std::int32_t v) {
  p[0] = v;
}
std::int32_t square(std::int32_t x) {
  return x * x;
}

TEST_P(AtOptLevel, EffectsAndMemoryOrderAroundCalls) {
  ExternTable externs;
  ExternRef bump_ref = externs.add("bump", &bump, Effect::Effectful);
  ExternRef peek_ref = externs.add("peek", &peek, Effect::ReadOnly);
  ExternRef poke_ref = externs.add("poke", &poke, Effect::Effectful);
  ExternRef square_ref = externs.add("square", &square, Effect::Pure);
  const Type ptr = Type::pointer_to(Scalar::I32);

  // Calls bump n times, even though its result is void and nothing reads it.
  FunctionBuilder repeat("repeat", Type::void_());
  VarId n = repeat.param("n", Type::i32());
  repeat.while_(bin(BinaryOp::Gt, repeat.read(n), constant<std::int32_t>(0)), [&] {
    repeat.eval(call(bump_ref, {}));
    repeat.assign(n, bin(BinaryOp::Sub, repeat.read(n), constant<std::int32_t>(1)));
  });
  // p[0] = x; return peek(p) + square(x): the readonly call sees the store.
  FunctionBuilder store_then_peek("store_then_peek", Type::i32());
  VarId p = store_then_peek.param("p", ptr);
  VarId x = store_then_peek.param("x", Type::i32());
  store_then_peek.store(store_then_peek.read(p), constant<std::int32_t>(0),
                        store_then_peek.read(x));
  store_then_peek.return_(bin(BinaryOp::Add, call(peek_ref, {store_then_peek.read(p)}),
                              call(square_ref, {store_then_peek.read(x)})));
  // a = q[0]; poke(q, v); return a * 1000 + q[0]: the load after the call is not forwarded.
  FunctionBuilder poke_then_load("poke_then_load", Type::i32());
  VarId q = poke_then_load.param("q", ptr);
  VarId v = poke_then_load.param("v", Type::i32());
  VarId a = poke_then_load.declare("a", Type::i32(),
                                   load(poke_then_load.read(q), constant<std::int32_t>(0)));
  poke_then_load.eval(call(poke_ref, {poke_then_load.read(q), poke_then_load.read(v)}));
  poke_then_load.return_(
      bin(BinaryOp::Add, bin(BinaryOp::Mul, poke_then_load.read(a), constant<std::int32_t>(1000)),
          load(poke_then_load.read(q), constant<std::int32_t>(0))));

  auto code = compile_at(opt(),
                         module_of({std::move(repeat).finish(), std::move(store_then_peek).finish(),
                                    std::move(poke_then_load).finish()},
                                   {bump_ref, peek_ref, poke_ref, square_ref}),
                         externs);
  effect_count = 0;
  call_native<void>(*code, "repeat", 17);
  EXPECT_EQ(effect_count, 17);
  std::int32_t cell = 0;
  EXPECT_EQ(call_native<std::int32_t>(*code, "store_then_peek", &cell, 9), 9 + 81);
  EXPECT_EQ(cell, 9);
  cell = 4;
  EXPECT_EQ(call_native<std::int32_t>(*code, "poke_then_load", &cell, 7), 4007);
}

std::int32_t thrower(std::int32_t x) {
  if (x < 0) throw std::invalid_argument("negative");
  return x;
}

TEST_P(AtOptLevel, ExceptionsFromExternsPropagateThroughCompiledCode) {
  ExternTable externs;
  ExternRef t = externs.add("thrower", &thrower, Effect::Effectful);
  FunctionBuilder f("f", Type::i32());
  VarId x = f.param("x", Type::i32());
  f.return_(bin(BinaryOp::Add, call(t, {f.read(x)}), constant<std::int32_t>(1)));
  auto code = compile_at(opt(), module_of({std::move(f).finish()}, {t}), externs);
  EXPECT_EQ(call_native<std::int32_t>(*code, "f", 4), 5);
  EXPECT_THROW(call_native<std::int32_t>(*code, "f", -4), std::invalid_argument);
}

TEST(Externs, UnboundOrMismatchedExternsAreErrors) {
  ExternTable bound;
  bound.add("square", &square, Effect::Pure);
  auto call_in_function = [](ExternRef callee) {
    FunctionBuilder f("f", callee->ret);
    std::vector<ExprPtr> args;
    for (Type t : callee->params) args.push_back(constant(t, 1));
    f.return_(call(callee, std::move(args)));
    return module_of({std::move(f).finish()}, {callee});
  };
  auto missing =
      std::make_shared<const ExternFn>(ExternFn{"missing", Type::i32(), {}, Effect::Pure});
  auto wrong = std::make_shared<const ExternFn>(
      ExternFn{"square", Type::i64(), {Type::i64()}, Effect::Pure});
  try {
    compile(call_in_function(missing), bound);
    FAIL() << "expected an error";
  } catch (const jit::error& e) {
    EXPECT_NE(std::string(e.what()).find("'missing'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(compile(call_in_function(wrong), bound), jit::error);
  EXPECT_THROW(
      load_object(compile_object(call_in_function(missing)), call_in_function(missing), bound),
      jit::error);
}

INSTANTIATE_TEST_SUITE_P(Jit, AtOptLevel, ::testing::Values(0, 2));

}  // namespace
}  // namespace augur::cpu::test
