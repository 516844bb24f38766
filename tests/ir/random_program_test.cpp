#include "tests/support/random_program.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "runtime/ir/hash.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "tests/support/random_inputs.h"
#include "tests/support/test_externs.h"

namespace augur::testing {
namespace {

using ir::Expr;
using ir::ExprKind;
using ir::Stmt;
using ir::StmtKind;

RandomProgramOptions with_seed(std::uint64_t seed, RandomFeatures features = {},
                               std::size_t target_nodes = 0) {
  RandomProgramOptions options;
  options.seed = seed;
  options.features = features;
  options.target_nodes = target_nodes;
  return options;
}

// What a function contains: statement kinds, expression kinds, operators, types.
struct Census {
  std::set<StmtKind> stmts;
  std::set<ExprKind> exprs;
  std::set<ir::BinaryOp> binary_ops;
  std::set<ir::MathOp> math_ops;
  std::set<ir::Effect> call_effects;
  std::set<std::string> types;  // of every expression
  bool constant_true_loop = false;
  bool pointer_arithmetic = false;
  std::set<std::uint32_t> break_levels;  // how many loops each break and continue leaves

  void add(const ir::ExprPtr& e) {
    if (!e) return;
    exprs.insert(e->kind);
    types.insert(e->type.name());
    if (e->kind == ExprKind::Binary) {
      binary_ops.insert(e->binary_op());
      if (e->type.is_pointer()) pointer_arithmetic = true;
    }
    if (e->kind == ExprKind::Math) math_ops.insert(e->math_op());
    if (e->kind == ExprKind::Call) call_effects.insert(e->callee->effect);
    for (const ir::ExprPtr& a : e->args) add(a);
  }
  void add(const ir::Block& block) {
    for (const Stmt& s : block) {
      stmts.insert(s.kind);
      if (s.kind == StmtKind::While && s.expr->kind == ExprKind::Const) constant_true_loop = true;
      if (s.kind == StmtKind::Break || s.kind == StmtKind::Continue) break_levels.insert(s.levels);
      add(s.expr);
      add(s.ptr);
      add(s.index);
      add(s.body);
      add(s.orelse);
      add(s.init);
      add(s.step);
    }
  }
};

TEST(RandomProgram, ThousandSeedsVerifyWithReasonableSizes) {
  std::vector<std::size_t> sizes;
  for (std::uint64_t seed = 0; seed < 1000; ++seed) {
    const RandomProgram p = random_program(with_seed(seed));
    const std::vector<jit::verify_error> errors = ir::check(p.module);
    ASSERT_TRUE(errors.empty()) << "seed " << seed << ": " << errors.front().what();
    ASSERT_EQ(p.module.functions.size(), 1u);
    EXPECT_EQ(p.module.functions[0].name, p.entry);
    EXPECT_EQ(p.nodes, count_nodes(p.module.functions[0]));
    EXPECT_FALSE(p.inexact_math) << "exp/log/pow are off by default";
    sizes.push_back(p.nodes);
  }
  std::sort(sizes.begin(), sizes.end());
  EXPECT_GE(sizes.front(), 10u);
  EXPECT_GE(sizes[100], 30u);
  EXPECT_LE(sizes[500], 200u);
  EXPECT_GE(sizes[500], 60u);
  EXPECT_LE(sizes[900], 300u);
  EXPECT_LE(sizes.back(), 600u);
}

TEST(RandomProgram, SeedsTogetherUseEveryFeature) {
  Census all;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    all.add(random_program(with_seed(seed)).module.functions[0].body);
  }
  for (StmtKind k :
       {StmtKind::Decl, StmtKind::Assign, StmtKind::Store, StmtKind::Eval, StmtKind::If,
        StmtKind::While, StmtKind::For, StmtKind::Break, StmtKind::Continue, StmtKind::Return}) {
    EXPECT_TRUE(all.stmts.contains(k)) << ir::name_of(k);
  }
  for (ExprKind k :
       {ExprKind::Const, ExprKind::Var, ExprKind::Unary, ExprKind::Binary, ExprKind::Select,
        ExprKind::Cast, ExprKind::Load, ExprKind::Call, ExprKind::Math}) {
    EXPECT_TRUE(all.exprs.contains(k)) << static_cast<int>(k);
  }
  for (int op = 0; op <= static_cast<int>(ir::BinaryOp::Or); ++op) {
    EXPECT_TRUE(all.binary_ops.contains(static_cast<ir::BinaryOp>(op)))
        << ir::name_of(static_cast<ir::BinaryOp>(op));
  }
  EXPECT_THAT(all.call_effects, ::testing::ElementsAre(ir::Effect::Pure, ir::Effect::ReadOnly,
                                                       ir::Effect::Effectful));
  EXPECT_THAT(all.types, ::testing::IsSupersetOf({"bool", "i8", "i16", "i32", "i64", "u8", "u16",
                                                  "u32", "u64", "f32", "f64", "void"}));
  EXPECT_TRUE(all.constant_true_loop);
  EXPECT_TRUE(all.pointer_arithmetic);
  EXPECT_THAT(all.break_levels, ::testing::IsSupersetOf({1u, 2u, 3u}));
  EXPECT_EQ(all.math_ops,
            (std::set<ir::MathOp>{ir::MathOp::Sqrt, ir::MathOp::Fabs, ir::MathOp::Floor,
                                  ir::MathOp::Min, ir::MathOp::Max, ir::MathOp::Fma}));
}

TEST(RandomProgram, SameSeedSameProgram) {
  for (std::uint64_t seed : {0u, 7u, 12345u}) {
    const RandomProgram a = random_program(with_seed(seed));
    const RandomProgram b = random_program(with_seed(seed));
    EXPECT_TRUE(a.module == b.module);
    EXPECT_EQ(ir::content_hash(a.module), ir::content_hash(b.module));
  }
  std::set<ir::Hash128> hashes;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    hashes.insert(ir::content_hash(random_program(with_seed(seed)).module));
  }
  EXPECT_EQ(hashes.size(), 200u);
}

TEST(RandomProgram, SurvivesTheTextFormWithItsHash) {
  RandomFeatures all;
  all.inexact_math = true;
  all.atomics = true;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const RandomProgram p = random_program(with_seed(seed, all));
    const ir::Module back = ir::parse_module(ir::print(p.module));
    ASSERT_TRUE(back == p.module) << "seed " << seed;
    EXPECT_EQ(ir::content_hash(back), ir::content_hash(p.module));
  }
}

// Runs `p` on `inputs` in the interpreter, bounds-checked against the input
// arrays, with a step limit so that a loop that does not end fails the test.
ir::Value interpret(const RandomProgram& p, const RandomInputs& inputs) {
  ir::InterpOptions options;
  options.externs = &p.externs;
  options.bounds_check = true;
  options.buffers = inputs.buffers();
  options.step_limit = 20'000'000;
  return ir::Interpreter(p.module, p.entry, options).run(inputs.args());
}

// The generator's promises, checked by execution: no traps (division, bounds)
// on any input, termination, and deterministic results, memory and effects.
void expect_clean_runs(const RandomProgram& p, std::uint64_t seed, int runs) {
  for (int i = 0; i < runs; ++i) {
    SCOPED_TRACE("inputs " + std::to_string(i));
    RandomInputs first(p.params, seed * 1000 + static_cast<std::uint64_t>(i));
    RandomInputs second = first;
    reset_effect_log();
    ir::Value a, b;
    ASSERT_NO_THROW(a = interpret(p, first));
    const std::vector<std::uint64_t> effects = effect_log();
    reset_effect_log();
    ASSERT_NO_THROW(b = interpret(p, second));
    EXPECT_EQ(a, b);
    EXPECT_EQ(first.memory(), second.memory());
    EXPECT_EQ(effects, effect_log());
  }
}

TEST(RandomProgram, RunsInTheInterpreterWithoutTraps) {
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomFeatures features;
    features.atomics = seed % 2 == 1;
    features.inexact_math = seed % 3 == 0;
    expect_clean_runs(random_program(with_seed(seed, features)), seed, 3);
  }
}

TEST(RandomProgram, LargeProgramsRunInTheInterpreterWithoutTraps) {
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    expect_clean_runs(random_program(with_seed(seed, {}, 10000)), seed, 2);
  }
}

TEST(RandomProgram, DisabledFeaturesStayOut) {
  RandomFeatures plain;
  plain.floats = false;
  plain.arrays = false;
  plain.loops = false;
  plain.for_loops = false;
  plain.pure_calls = plain.readonly_calls = plain.effectful_calls = false;
  plain.all_int_widths = false;
  plain.select = false;
  plain.math = false;
  Census all;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const RandomProgram p = random_program(with_seed(seed, plain));
    ASSERT_TRUE(ir::check(p.module).empty()) << "seed " << seed;
    for (const ParamDesc& param : p.params) EXPECT_FALSE(param.type.is_pointer());
    all.add(p.module.functions[0].body);
  }
  for (StmtKind k : {StmtKind::While, StmtKind::For, StmtKind::Store, StmtKind::Eval,
                     StmtKind::Break, StmtKind::Continue}) {
    EXPECT_FALSE(all.stmts.contains(k)) << ir::name_of(k);
  }
  for (ExprKind k : {ExprKind::Load, ExprKind::Call, ExprKind::Math}) {
    EXPECT_FALSE(all.exprs.contains(k)) << static_cast<int>(k);
  }
  EXPECT_THAT(all.types, ::testing::IsSubsetOf({"bool", "i32", "i64"}));
  EXPECT_TRUE(all.stmts.contains(StmtKind::If));
}

TEST(RandomProgram, OptionalFeaturesAppearWhenEnabled) {
  RandomFeatures extra;
  extra.inexact_math = true;
  extra.atomics = true;
  Census all;
  int inexact = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const RandomProgram p = random_program(with_seed(seed, extra));
    ASSERT_TRUE(ir::check(p.module).empty()) << "seed " << seed;
    Census one;
    one.add(p.module.functions[0].body);
    const bool uses_inexact = one.math_ops.contains(ir::MathOp::Exp) ||
                              one.math_ops.contains(ir::MathOp::Log) ||
                              one.math_ops.contains(ir::MathOp::Pow);
    EXPECT_EQ(p.inexact_math, uses_inexact) << "seed " << seed;
    inexact += uses_inexact;
    all.add(p.module.functions[0].body);
  }
  EXPECT_GT(inexact, 10);
  EXPECT_TRUE(all.exprs.contains(ExprKind::Atomic));
}

TEST(RandomProgram, SizeKnobMakesLargePrograms) {
  for (std::size_t target : {1000u, 10000u}) {
    const RandomProgram p = random_program(with_seed(3, {}, target));
    EXPECT_TRUE(ir::check(p.module).empty());
    EXPECT_GE(p.nodes, target);
    EXPECT_LE(p.nodes, target + target / 10 + 200);
  }
}

TEST(RandomInputs, DeterministicDeepCopiesWithValidBools) {
  RandomProgramOptions options;
  options.max_array_params = 4;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    options.seed = seed;
    const RandomProgram p = random_program(options);
    const RandomInputs a(p.params, seed);
    const RandomInputs b(p.params, seed);
    ASSERT_EQ(a.args().size(), p.params.size());
    EXPECT_EQ(a.memory(), b.memory());
    RandomInputs copy = a;
    EXPECT_EQ(copy.memory(), a.memory());
    const std::vector<ir::Buffer> buffers = copy.buffers();
    std::size_t array = 0;
    for (std::size_t i = 0; i < p.params.size(); ++i) {
      const ParamDesc& param = p.params[i];
      if (!param.type.is_pointer()) {
        EXPECT_EQ(copy.args()[i], a.args()[i]);
        EXPECT_EQ(a.args()[i], b.args()[i]);
        continue;
      }
      // Each copy's pointers lead to its own storage, which the buffers describe.
      EXPECT_NE(copy.args()[i], a.args()[i]);
      ASSERT_LT(array, buffers.size());
      EXPECT_EQ(buffers[array].base, copy.args()[i].as<const void*>());
      EXPECT_EQ(buffers[array].bytes, param.length * param.type.pointee().size());
      EXPECT_EQ(buffers[array].name, param.name);
      if (param.type.pointee().is_bool()) {
        const std::vector<std::vector<std::uint8_t>> memory = a.memory();
        for (std::uint8_t byte : memory[array]) EXPECT_LE(byte, 1u);
      }
      auto* first = copy.args()[i].as<std::uint8_t*>();
      *first = static_cast<std::uint8_t>(*first ^ 1);
      EXPECT_NE(copy.memory()[array], a.memory()[array]);
      ++array;
    }
  }
}

TEST(TestExterns, EffectfulCallsAppendToTheLog) {
  const ir::ExternTable table = test_externs();
  reset_effect_log();
  const ir::ExternBinding& log = *table.find("t_log");
  const ir::ExternBinding& tick = *table.find("t_tick");
  const ir::Value seven[] = {ir::Value::of<std::int64_t>(7)};
  log.invoke(log.address, std::span<const ir::Value>(seven));
  const ir::Value first = tick.invoke(tick.address, std::span<const ir::Value>(seven));
  const ir::Value second = tick.invoke(tick.address, std::span<const ir::Value>(seven));
  EXPECT_NE(first, second) << "t_tick depends on the calls before it";
  EXPECT_THAT(effect_log(), ::testing::ElementsAre(7u, 7u, 7u));

  std::uint8_t bytes[4] = {};
  const ir::ExternBinding& poke = *table.find("t_poke");
  const ir::Value args[] = {ir::Value::of(&bytes[0]), ir::Value::of<std::uint64_t>(4),
                            ir::Value::of<std::uint64_t>(0xab06)};
  poke.invoke(poke.address, std::span<const ir::Value>(args));
  EXPECT_EQ(bytes[2], 0xab);
  EXPECT_THAT(effect_log(), ::testing::ElementsAre(7u, 7u, 7u, 2u, 0xabu));
  reset_effect_log();
  EXPECT_TRUE(effect_log().empty());
  EXPECT_EQ(table.find("t_hash_bytes")->decl->effect, ir::Effect::ReadOnly);
  EXPECT_EQ(table.find("t_mix_i32")->decl->effect, ir::Effect::Pure);
}

}  // namespace
}  // namespace augur::testing
