// The first stage's smart constructors (runtime/stage/expr_pool.h): each
// fold and identity, the ones that must not apply, and a differential test of
// random constant-heavy expressions, folded by the pool, against the same
// trees built unfolded, both run by the interpreter.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "jit/error.h"
#include "jit/jit.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/printer.h"
#include "runtime/stage/expr_pool.h"
#include "support.h"

namespace augur::stage::testing {
namespace {

using ir::BinaryOp;
using ir::ExprKind;
using ir::ExprPtr;
using ir::MathOp;
using ir::Type;
using ir::UnaryOp;

class Construction : public ::testing::Test {
 protected:
  template <class T>
  ExprPtr c(T v) {
    return pool.constant(ir::type_of<T>(), ir::Value::of(v).bits);
  }
  ExprPtr var(std::uint32_t id, Type t) { return pool.read(ir::VarId{id}, t); }
  ExprPtr bin(BinaryOp op, const ExprPtr& a, const ExprPtr& b) { return pool.binary(op, a, b); }

  // The constant e is, as T; fails the test if e is no constant.
  template <class T>
  T value(const ExprPtr& e) {
    EXPECT_EQ(e->kind, ExprKind::Const);
    return ir::Value{e->bits}.as<T>();
  }

  ExprPool pool;
  const ExprPtr x = var(0, Type::i32());
  const ExprPtr f = var(1, Type::f64());
  const ExprPtr b = var(2, Type::bool_());
  const ExprPtr p = var(3, Type::pointer_to(ir::Scalar::I32));
};

TEST_F(Construction, FoldsConstantsWithTheIRsSemantics) {
  EXPECT_EQ(
      value<std::int32_t>(bin(BinaryOp::Add, c(std::numeric_limits<std::int32_t>::max()), c(1))),
      std::numeric_limits<std::int32_t>::min());                        // wraps
  EXPECT_EQ(value<std::int32_t>(bin(BinaryOp::Shl, c(1), c(33))), 2);   // count modulo 32
  EXPECT_EQ(value<std::int32_t>(bin(BinaryOp::Shr, c(-8), c(1))), -4);  // arithmetic
  EXPECT_EQ(value<std::uint32_t>(bin(BinaryOp::Shr, c(0x80000000u), c(31u))), 1u);
  EXPECT_EQ(value<std::int32_t>(bin(BinaryOp::Div, c(-7), c(2))), -3);
  EXPECT_EQ(value<std::int32_t>(bin(BinaryOp::Rem, c(-7), c(2))), -1);
  EXPECT_TRUE(value<bool>(bin(BinaryOp::Lt, c(-1), c(0))));
  EXPECT_FALSE(value<bool>(bin(BinaryOp::Lt, c(0xffffffffu), c(0u))));  // unsigned
  EXPECT_EQ(value<std::int8_t>(pool.unary(UnaryOp::Neg, c(std::int8_t{-128}))), -128);
  EXPECT_EQ(value<std::int32_t>(pool.unary(UnaryOp::BitNot, c(0))), -1);
  EXPECT_FALSE(value<bool>(pool.unary(UnaryOp::Not, c(true))));
  EXPECT_EQ(value<double>(bin(BinaryOp::Mul, c(1.5), c(-2.0))), -3.0);
  EXPECT_TRUE(std::signbit(value<double>(pool.unary(UnaryOp::Neg, c(0.0)))));
  // Float to integer saturates; NaN is 0.
  EXPECT_EQ(value<std::int32_t>(pool.cast(Type::i32(), c(1e20))),
            std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(value<std::int32_t>(pool.cast(Type::i32(), c(std::nan("")))), 0);
  EXPECT_EQ(value<std::uint8_t>(pool.cast(Type::u8(), c(300))), 44);
  EXPECT_EQ(value<double>(pool.cast(Type::f64(), c(std::int8_t{-3}))), -3.0);
  EXPECT_EQ(value<std::int32_t>(pool.select(c(false), c(1), c(2))), 2);
  const ExprPtr sqrt_args[] = {c(2.25)};
  EXPECT_EQ(value<double>(pool.math(MathOp::Sqrt, sqrt_args)), 1.5);
  const ExprPtr fma_args[] = {c(2.0), c(3.0), c(1.0)};
  EXPECT_EQ(value<double>(pool.math(MathOp::Fma, fma_args)), 7.0);
  const ExprPtr min_args[] = {c(-4), c(3)};
  EXPECT_EQ(value<std::int32_t>(pool.math(MathOp::Min, min_args)), -4);
  EXPECT_GT(pool.saved(), 0u);
}

TEST_F(Construction, LeavesWhatTrapsOrDependsOnTheLibm) {
  EXPECT_EQ(bin(BinaryOp::Div, c(1), c(0))->kind, ExprKind::Binary);
  EXPECT_EQ(bin(BinaryOp::Rem, c(1), c(0))->kind, ExprKind::Binary);
  EXPECT_EQ(bin(BinaryOp::Div, c(std::numeric_limits<std::int32_t>::min()), c(-1))->kind,
            ExprKind::Binary);
  for (MathOp op : {MathOp::Exp, MathOp::Log}) {
    const ExprPtr args[] = {c(2.0)};
    EXPECT_EQ(pool.math(op, args)->kind, ExprKind::Math);
  }
  const ExprPtr pow_args[] = {c(2.0), c(0.5)};
  EXPECT_EQ(pool.math(MathOp::Pow, pow_args)->kind, ExprKind::Math);
  // min(+0, -0): implementations pick either zero.
  const ExprPtr zeros[] = {c(0.0), c(-0.0)};
  EXPECT_EQ(pool.math(MathOp::Min, zeros)->kind, ExprKind::Math);
}

TEST_F(Construction, AppliesExactIntegerIdentities) {
  EXPECT_EQ(bin(BinaryOp::Add, x, c(0)), x);
  EXPECT_EQ(bin(BinaryOp::Add, c(0), x), x);
  EXPECT_EQ(bin(BinaryOp::Sub, x, c(0)), x);
  EXPECT_EQ(bin(BinaryOp::Mul, x, c(1)), x);
  EXPECT_EQ(bin(BinaryOp::Mul, c(1), x), x);
  EXPECT_EQ(value<std::int32_t>(bin(BinaryOp::Sub, x, x)), 0);
  EXPECT_EQ(value<std::int32_t>(bin(BinaryOp::BitXor, x, x)), 0);
  EXPECT_EQ(bin(BinaryOp::BitAnd, x, x), x);
  EXPECT_EQ(bin(BinaryOp::BitOr, b, b), b);
  EXPECT_EQ(pool.unary(UnaryOp::Neg, pool.unary(UnaryOp::Neg, x)), x);
  EXPECT_EQ(pool.unary(UnaryOp::BitNot, pool.unary(UnaryOp::BitNot, x)), x);
  EXPECT_EQ(pool.unary(UnaryOp::Not, pool.unary(UnaryOp::Not, b)), b);
  EXPECT_EQ(pool.cast(Type::i32(), x), x);
  EXPECT_EQ(pool.select(c(true), x, c(7)), x);
  EXPECT_EQ(bin(BinaryOp::And, c(true), b), b);
  EXPECT_FALSE(value<bool>(bin(BinaryOp::And, c(false), b)));
  EXPECT_TRUE(value<bool>(bin(BinaryOp::Or, c(true), b)));
  EXPECT_EQ(bin(BinaryOp::Or, c(false), b), b);
  // x - 0 on a pointer, x * 0, x && true: not in the list.
  EXPECT_EQ(bin(BinaryOp::Mul, x, c(0))->kind, ExprKind::Binary);
  EXPECT_EQ(bin(BinaryOp::And, b, c(true))->kind, ExprKind::Binary);
}

TEST_F(Construction, AppliesOnlyTheFloatIdentitiesIEEEMakesExact) {
  EXPECT_EQ(bin(BinaryOp::Mul, f, c(1.0)), f);
  EXPECT_EQ(bin(BinaryOp::Mul, c(1.0), f), f);
  EXPECT_EQ(bin(BinaryOp::Add, f, c(-0.0)), f);
  EXPECT_EQ(bin(BinaryOp::Sub, f, c(0.0)), f);
  EXPECT_EQ(pool.unary(UnaryOp::Neg, pool.unary(UnaryOp::Neg, f)), f);
  // -0.0 + 0.0 is +0.0, NaN - NaN is NaN: none of these is x or 0.
  EXPECT_EQ(bin(BinaryOp::Add, f, c(0.0))->kind, ExprKind::Binary);
  EXPECT_EQ(bin(BinaryOp::Add, c(0.0), f)->kind, ExprKind::Binary);
  EXPECT_EQ(bin(BinaryOp::Sub, f, c(-0.0))->kind, ExprKind::Binary);
  EXPECT_EQ(bin(BinaryOp::Sub, f, f)->kind, ExprKind::Binary);
  EXPECT_EQ(bin(BinaryOp::Mul, f, c(0.0))->kind, ExprKind::Binary);
}

TEST_F(Construction, KeepsWhatCanTrapOrAct) {
  // p[0] - p[0] traps when p is null: it stays.
  const ExprPtr loaded = pool.load(p, c(0));
  EXPECT_EQ(bin(BinaryOp::Sub, loaded, loaded)->kind, ExprKind::Binary);
  const ExprPtr quotient = bin(BinaryOp::Div, x, var(4, Type::i32()));
  EXPECT_EQ(bin(BinaryOp::BitXor, quotient, quotient)->kind, ExprKind::Binary);
  // ... but x & x evaluates it once either way.
  EXPECT_EQ(bin(BinaryOp::BitAnd, loaded, loaded), loaded);
}

TEST_F(Construction, SharesPureNodesButNotEffects) {
  EXPECT_EQ(bin(BinaryOp::Mul, x, x), bin(BinaryOp::Mul, x, x));
  const auto pure = std::make_shared<const ir::ExternFn>(
      ir::ExternFn{"halve", Type::i32(), {Type::i32()}, ir::Effect::Pure});
  const auto effectful = std::make_shared<const ir::ExternFn>(
      ir::ExternFn{"bump", Type::i32(), {Type::i32()}, ir::Effect::Effectful});
  const ExprPtr args[] = {x};
  EXPECT_EQ(pool.call(pure, args), pool.call(pure, args));
  EXPECT_NE(pool.call(effectful, args), pool.call(effectful, args));
  const ExprPtr atomic_args[] = {p, c(0), c(1)};
  EXPECT_NE(pool.atomic(ir::AtomicOp::Add, atomic_args),
            pool.atomic(ir::AtomicOp::Add, atomic_args));
  // x - x over an effectful call keeps both calls.
  const ExprPtr call = pool.call(effectful, args);
  EXPECT_EQ(bin(BinaryOp::Sub, call, call)->kind, ExprKind::Binary);
  EXPECT_EQ(bin(BinaryOp::BitOr, call, call)->kind, ExprKind::Binary);
}

// The pool's table grows many times over 200,000 nodes (its slots keep 32
// hash bits and an index): every node is still found, none twice.
TEST_F(Construction, FindsEveryNodeAfterTheTableGrows) {
  constexpr int kCount = 100'000;
  const std::size_t before = pool.size();
  std::vector<ExprPtr> sums;
  for (int i = 0; i < kCount; ++i) sums.push_back(bin(BinaryOp::Add, x, c(i + 1)));
  EXPECT_EQ(pool.size() - before, 2u * kCount);  // a constant and a sum each
  for (int i = kCount - 1; i >= 0; --i) {
    ASSERT_EQ(bin(BinaryOp::Add, x, c(i + 1)), sums[static_cast<std::size_t>(i)]) << i;
  }
  EXPECT_EQ(pool.size() - before, 2u * kCount);
  EXPECT_NE(bin(BinaryOp::Sub, x, c(1)), sums[0]);
}

// A run following recorded code tells the pool which nodes it will build
// (ExprPool::expect); a lookup answers from them what the table would: a
// node equal to the key but not of this pool is never handed out.
TEST_F(Construction, ExpectedNodesAnswerAsTheTableDoes) {
  const ExprPtr five = c(5);
  const ExprPtr sum = bin(BinaryOp::Add, x, five);
  const ExprPtr square = bin(BinaryOp::Mul, x, x);
  const ExprPtr foreign = ir::binary(BinaryOp::Add, x, five);  // equal to sum, not pooled
  ASSERT_NE(foreign, sum);
  const std::size_t size = pool.size();
  const ir::Expr* hints[] = {foreign.get(), sum.get()};
  pool.expect(hints);
  EXPECT_EQ(c(5), five);
  EXPECT_EQ(bin(BinaryOp::Add, x, five), sum);
  EXPECT_EQ(bin(BinaryOp::Mul, x, x), square);  // not expected: from the table
  const ExprPtr other = bin(BinaryOp::Sub, x, five);
  EXPECT_EQ(other->kind, ExprKind::Binary);
  EXPECT_EQ(pool.size(), size + 1);
  const ir::Expr* only_foreign[] = {foreign.get()};
  pool.expect(only_foreign);
  EXPECT_EQ(bin(BinaryOp::Add, x, five), sum);
  pool.expect({});
  EXPECT_EQ(bin(BinaryOp::Sub, x, five), other);
  EXPECT_EQ(pool.size(), size + 1);
}

TEST_F(Construction, CountsEachReplacedNodeOnce) {
  const std::uint64_t before = pool.saved();
  for (int run = 0; run < 3; ++run) {  // a replay builds the same nodes again
    EXPECT_EQ(bin(BinaryOp::Add, x, c(0)), x);
    EXPECT_EQ(value<std::int32_t>(bin(BinaryOp::Mul, c(6), c(7))), 42);
  }
  EXPECT_EQ(pool.saved() - before, 2u);
}

TEST_F(Construction, IllTypedOperandsStillThrow) {
  EXPECT_THROW(bin(BinaryOp::Add, c(1), c(std::int64_t{1})), jit::verify_error);
  EXPECT_THROW(pool.select(c(1), x, x), jit::verify_error);
}

TEST(ConstructionSwitch, OffBuildsEveryNode) {
  set_simplify_at_construction(false);
  ExprPool pool;
  set_simplify_at_construction(true);
  const ExprPtr one = pool.constant(Type::i32(), 1), two = pool.constant(Type::i32(), 2);
  EXPECT_EQ(pool.binary(BinaryOp::Add, one, two)->kind, ExprKind::Binary);
  EXPECT_EQ(pool.saved(), 0u);
}

// What the staged power function gives: x * 1.0 folds away at the start.
jit::dyn<double> power_from_one(jit::dyn<double> x, int n) {
  jit::dyn_expr<double> r = x * 1.0;
  for (int i = 1; i < n; ++i) r = r * x;
  return r;
}

TEST(ConstructionStaged, TheReportCountsWhatWasSaved) {
  const jit::extraction e = jit::extract(power_from_one, 3);
  EXPECT_EQ(e.report().simplified_nodes, 1u);
  EXPECT_EQ(e.ir().find("1.0"), std::string::npos) << e.ir();
  EXPECT_EQ(run<double>(interpreter(e), 3.0), 27.0);
}

// ---------------------------------------------------------------- differential

// Random expressions over a few parameters and many constants (the special
// values included), built twice: through the pool (folded) and with the
// plain builder (the tree as written). The interpreter runs both.
class RandomExpressions {
 public:
  static constexpr Type kTypes[] = {Type::i32(), Type::u8(),  Type::i64(),
                                    Type::f32(), Type::f64(), Type::bool_()};

  explicit RandomExpressions(std::uint64_t seed) : rng_(seed) {}

  struct Pair {
    ExprPtr folded;
    ExprPtr plain;
  };

  Pair make(Type t, int depth) {
    if (depth == 0 || pick(4) == 0) return leaf(t);
    if (t.is_bool()) return make_bool(depth);
    const unsigned choice = pick(10);
    if (choice == 0) {
      const Type from = kTypes[pick(std::size(kTypes))];
      const Pair a = make(from, depth - 1);
      return {pool_.cast(t, a.folded), ir::cast(t, a.plain)};
    }
    if (choice == 1) {
      const Pair cond = make(Type::bool_(), depth - 1), a = make(t, depth - 1),
                 b = make(t, depth - 1);
      return {pool_.select(cond.folded, a.folded, b.folded),
              ir::select(cond.plain, a.plain, b.plain)};
    }
    if (choice == 2) {
      const UnaryOp op = t.is_float() || pick(2) == 0 ? UnaryOp::Neg : UnaryOp::BitNot;
      const Pair a = make(t, depth - 1);
      return {pool_.unary(op, a.folded), ir::unary(op, a.plain)};
    }
    if (choice == 3) return math(t, depth);
    static constexpr BinaryOp kInt[] = {
        BinaryOp::Add,    BinaryOp::Sub,   BinaryOp::Mul,    BinaryOp::Div, BinaryOp::Rem,
        BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor, BinaryOp::Shl, BinaryOp::Shr};
    static constexpr BinaryOp kFloat[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul,
                                          BinaryOp::Div};
    const BinaryOp op =
        t.is_float() ? kFloat[pick(std::size(kFloat))] : kInt[pick(std::size(kInt))];
    const Pair a = make(t, depth - 1);
    // Sometimes the same operand twice (x - x, x ^ x, x & x).
    const Pair b = pick(5) == 0 ? a : make(t, depth - 1);
    return {pool_.binary(op, a.folded, b.folded), ir::binary(op, a.plain, b.plain)};
  }

  // fn(i32, u8, i64, f32, f64, bool) -> t returning `e`.
  static ir::Function function(const std::string& name, Type t, const ExprPtr& e) {
    ir::FunctionBuilder b(name, t);
    for (std::size_t i = 0; i < std::size(kTypes); ++i) b.param("p" + std::to_string(i), kTypes[i]);
    b.return_(e);
    return std::move(b).finish();
  }

  std::vector<ir::Value> inputs() {
    std::vector<ir::Value> out;
    for (Type t : kTypes) out.push_back({constant_bits(t)});
    return out;
  }

  unsigned pick(unsigned n) { return static_cast<unsigned>(rng_() % n); }

 private:
  Pair leaf(Type t) {
    if (pick(3) == 0) {
      for (std::uint32_t i = 0; i < std::size(kTypes); ++i) {
        if (kTypes[i] == t) return {pool_.read(ir::VarId{i}, t), ir::read(ir::VarId{i}, t)};
      }
    }
    const std::uint64_t bits = constant_bits(t);
    return {pool_.constant(t, bits), ir::constant(t, bits)};
  }

  Pair make_bool(int depth) {
    const unsigned choice = pick(4);
    if (choice == 0) {
      const Pair a = make(Type::bool_(), depth - 1);
      return {pool_.unary(UnaryOp::Not, a.folded), ir::unary(UnaryOp::Not, a.plain)};
    }
    if (choice == 1) {
      const BinaryOp op = pick(2) == 0 ? BinaryOp::And : BinaryOp::Or;
      const Pair a = make(Type::bool_(), depth - 1), b = make(Type::bool_(), depth - 1);
      return {pool_.binary(op, a.folded, b.folded), ir::binary(op, a.plain, b.plain)};
    }
    static constexpr BinaryOp kCompare[] = {BinaryOp::Eq, BinaryOp::Ne, BinaryOp::Lt,
                                            BinaryOp::Le, BinaryOp::Gt, BinaryOp::Ge};
    const Type t = kTypes[pick(std::size(kTypes) - 1)];
    const BinaryOp op = kCompare[pick(std::size(kCompare))];
    const Pair a = make(t, depth - 1), b = make(t, depth - 1);
    return {pool_.binary(op, a.folded, b.folded), ir::binary(op, a.plain, b.plain)};
  }

  Pair math(Type t, int depth) {
    static constexpr MathOp kFloat[] = {MathOp::Sqrt, MathOp::Fabs, MathOp::Floor, MathOp::Exp,
                                        MathOp::Min,  MathOp::Max,  MathOp::Fma};
    const MathOp op =
        t.is_float() ? kFloat[pick(std::size(kFloat))] : (pick(2) == 0 ? MathOp::Min : MathOp::Max);
    std::vector<ExprPtr> folded, plain;
    for (unsigned i = 0; i < ir::arity(op); ++i) {
      const Pair a = make(t, depth - 1);
      folded.push_back(a.folded);
      plain.push_back(a.plain);
    }
    return {pool_.math(op, folded), ir::math(op, plain)};
  }

  std::uint64_t constant_bits(Type t) {
    if (t.is_bool()) return pick(2);
    if (t.is_float()) {
      static constexpr double kSpecial[] = {0.0, -0.0,  -0.0,    1.0, -1.0, 0.5,
                                            2.5, 1e300, -1e-300, 3e9, -7.0};
      double v = kSpecial[pick(std::size(kSpecial))];
      if (pick(8) == 0) v = std::numeric_limits<double>::infinity();
      if (pick(8) == 0) v = std::nan("");
      return t == Type::f32() ? std::bit_cast<std::uint32_t>(static_cast<float>(v))
                              : std::bit_cast<std::uint64_t>(v);
    }
    static constexpr std::int64_t kSpecial[] = {
        0, 1, -1, 2, 7, -128, 255, 1 << 30, std::numeric_limits<std::int64_t>::min()};
    const std::int64_t v =
        pick(3) == 0 ? static_cast<std::int64_t>(rng_()) : kSpecial[pick(std::size(kSpecial))];
    return ir::canonical_bits(t, static_cast<std::uint64_t>(v));
  }

  std::mt19937_64 rng_;
  ExprPool pool_;
};

// The result bits, or nullopt for a trap. NaNs compare as one value: the IR
// leaves their sign and payload open.
std::optional<std::uint64_t> evaluate(const ir::Function& fn, Type t,
                                      const std::vector<ir::Value>& inputs) {
  ir::Module m;
  m.functions.push_back(fn);
  try {
    const std::uint64_t bits = ir::Interpreter(m, fn.name).run(inputs).bits;
    if (t == Type::f64() && std::isnan(std::bit_cast<double>(bits))) return 1;
    if (t == Type::f32() && std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(bits))))
      return 1;
    return bits;
  } catch (const jit::trap_error&) {
    return std::nullopt;
  }
}

TEST(ConstructionDifferential, FoldedExpressionsComputeWhatTheirTreesDo) {
  RandomExpressions gen(20261125);
  int folded_somewhere = 0;
  for (int i = 0; i < 6000; ++i) {
    const Type t = RandomExpressions::kTypes[gen.pick(std::size(RandomExpressions::kTypes))];
    const RandomExpressions::Pair e = gen.make(t, 1 + static_cast<int>(gen.pick(4)));
    const ir::Function folded = RandomExpressions::function("folded", t, e.folded);
    const ir::Function plain = RandomExpressions::function("plain", t, e.plain);
    folded_somewhere += ir::same_expr(e.folded, e.plain) ? 0 : 1;
    for (int k = 0; k < 4; ++k) {
      const std::vector<ir::Value> inputs = gen.inputs();
      ASSERT_EQ(evaluate(folded, t, inputs), evaluate(plain, t, inputs))
          << ir::print(plain) << "\nfolded:\n"
          << ir::print(folded);
    }
  }
  EXPECT_GT(folded_somewhere, 2000);
}

}  // namespace
}  // namespace augur::stage::testing
