// Large functions split for code generation (jit/cpu/split_plan.h): the
// split compile gives the interpreter's results and those of the whole
// function compiled at O0, on random programs cut into tiny parts (every
// kind of exit from a part: break, continue, return) and on large BF-like
// programs; a split version unloads as a unit, goes through the disk
// cache's object route, and compiles from several threads at once. The plan
// keeps loop nests within their cost whole and straight-line arithmetic
// (not compares) whole, cuts where few variables are live, and knows the constants that
// flow into and out of its parts.
#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "jit/cpu/split_plan.h"
#include "jit/cpu/statistics.h"
#include "jit/error.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "tests/jit/jit_test_util.h"
#include "tests/jit/outcome.h"
#include "tests/support/bf_like_program.h"

namespace augur::cpu::test {
namespace {

using testing::RandomInputs;
using testing::RandomProgram;

Options split_options(int opt_level, std::size_t split_nodes) {
  Options options;
  options.opt_level = opt_level;
  options.split_nodes = split_nodes;
  options.verify = true;
  return options;
}

RandomProgram bf_like(std::uint64_t seed, std::size_t statements) {
  testing::BfLikeOptions options;
  options.seed = seed;
  options.statements = statements;
  return testing::bf_like_program(options);
}

// Each compiled version against the interpreter, on `inputs` random inputs.
void expect_interpreter_results(const RandomProgram& program,
                                const std::vector<const CompiledCode*>& versions,
                                std::uint64_t seed, int inputs) {
  ir::InterpOptions interp_options;
  interp_options.externs = &program.externs;
  const ir::Interpreter interpreter(program.module, program.entry, interp_options);
  for (int i = 0; i < inputs; ++i) {
    const RandomInputs args(program.params, seed * 100 + static_cast<std::uint64_t>(i));
    const Outcome expected =
        observe(args, [&](std::span<const ir::Value> values) { return interpreter.run(values); });
    for (std::size_t v = 0; v < versions.size(); ++v) {
      const Outcome actual = observe(args, [&](std::span<const ir::Value> values) {
        return invoke(*versions[v], program.entry, values);
      });
      const std::string diff = difference(program, expected, actual);
      EXPECT_TRUE(diff.empty()) << "version " << v << ", inputs " << i << ": " << diff;
    }
  }
}

// The generator's promise, which the benchmark relies on at every size.
TEST(BfLikeProgram, TerminatesQuicklyAtEverySize) {
  for (const std::size_t statements : {1'000u, 10'000u, 50'000u, 100'000u}) {
    const RandomProgram program = bf_like(13, statements);
    EXPECT_GE(program.nodes, statements);
    const RandomInputs args(program.params, statements);
    ir::InterpOptions options;
    options.step_limit = 200 * statements;
    options.bounds_check = true;
    options.buffers = args.buffers();
    const ir::Interpreter interpreter(program.module, program.entry, options);
    try {
      interpreter.run(args.args());
    } catch (const jit::trap_error& e) {
      ADD_FAILURE() << statements << " statements: " << e.what();
    }
  }
}

TEST(SplitPlan, SmallFunctionsAndKernelsStayWhole) {
  const RandomProgram program = bf_like(1, 200);
  const ir::Function& function = program.module.functions.front();
  EXPECT_FALSE(plan_split(function, 100'000).split());
  EXPECT_FALSE(plan_split(function, 0).split());
  ir::Function kernel = function;
  kernel.kernel = true;
  EXPECT_FALSE(plan_split(kernel, 10).split());
}

// BF-like loop nests are far smaller than the bound: every part is a run of
// whole top-level statements, and fits the bound but for a statement.
TEST(SplitPlan, PartsAreBoundedAndKeepLoopNestsWhole) {
  const RandomProgram program = bf_like(2, 5'000);
  const ir::Function& function = program.module.functions.front();
  const FunctionPlan plan = plan_split(function, 2'000);
  ASSERT_TRUE(plan.split());
  std::size_t covered = 0;
  for (const Part& part : plan.parts) {
    EXPECT_EQ(part.block, &function.body);
    EXPECT_LT(part.begin, part.end);
    EXPECT_LE(part.nodes, 2'000u + 200u);  // one statement past the bound at most
    EXPECT_EQ(plan.part_at(function.body[part.begin]), &part);
    EXPECT_EQ(part.returns, part.end == function.body.size());  // the final return
    covered += part.end - part.begin;
  }
  EXPECT_GT(covered, function.body.size() * 9 / 10);
}

RandomProgram parsed(const std::string& text, std::vector<testing::ParamDesc> params) {
  RandomProgram program;
  program.module = ir::parse_module(text, "split_test");
  program.entry = program.module.functions.front().name;
  program.params = std::move(params);
  program.nodes = testing::count_nodes(program.module.functions.front());
  return program;
}

// A tape program whose pointer `p` is static: groups of "bump the cell, step
// right", a step back every 8 groups, and a loop in the middle that moves the
// pointer and back each iteration and counts its iterations in `k`.
// p_before[i]: p's value before top-level statement i (-1: not declared).
struct TapeProgram {
  RandomProgram program;
  std::vector<int> p_before;
  std::size_t loop = 0;  // the loop's statement
};

TapeProgram tape_program(int groups) {
  TapeProgram result;
  std::string text = "fn tape(t: u8*) -> i32 {\n";
  int p = -1;
  auto line = [&](const std::string& statement) {
    result.p_before.push_back(p);
    text += "  " + statement + "\n";
  };
  line("var p: i32 = 0i32;");
  p = 0;
  line("var k: i32 = 0i32;");
  auto stretch = [&](int first) {
    for (int g = first; g < first + groups; ++g) {
      line("t[p] = u8(i32(t[p]) + " + std::to_string(g % 5 + 1) + "i32);");
      line("p = p + 1i32;");
      ++p;
      if (p == 8) {
        line("p = p - 8i32;");
        p = 0;
      }
    }
  };
  stretch(0);
  result.loop = result.p_before.size();
  line(
      "while (i32(t[p]) != 0i32) { t[p] = u8(i32(t[p]) - 1i32); k = k + 1i32; p = p + 1i32; "
      "t[p] = u8(i32(t[p]) + 2i32); p = p - 1i32; }");
  stretch(groups);
  line("return p * 1000i32 + k;");
  text += "}\n";
  result.program = parsed(text, {{"t", ir::Type(ir::Scalar::U8, true), 16}});
  return result;
}

bool shares(const Part& part, ir::VarId var) {
  for (const auto* vars : {&part.inputs, &part.inouts}) {
    if (std::find(vars->begin(), vars->end(), var) != vars->end()) return true;
  }
  return false;
}

TEST(SplitPlan, ConstantsFlowIntoAndOutOfParts) {
  const TapeProgram tape = tape_program(60);
  const ir::Function& function = tape.program.module.functions.front();
  const FunctionPlan plan = plan_split(function, 60);
  ASSERT_GE(plan.parts.size(), 4u);
  const ir::VarId p = function.find_var("p");
  const ir::VarId k = function.find_var("k");
  std::size_t checked = 0;
  for (const Part& part : plan.parts) {
    ASSERT_EQ(part.block, &function.body);
    if (part.begin < 2) continue;  // declares p and k
    // p is static everywhere, the loop included (it moves and comes back).
    const PartConstant* entry = find_constant(part.entry_constants, p);
    ASSERT_NE(entry, nullptr) << "part " << part.index;
    EXPECT_EQ(entry->bits, static_cast<std::uint64_t>(tape.p_before[part.begin]));
    const PartConstant* exit = find_constant(part.exit_constants, p);
    const int p_after =
        part.end < tape.p_before.size() ? tape.p_before[part.end] : tape.p_before.back();
    if (!part.returns) {
      ASSERT_NE(exit, nullptr) << "part " << part.index;
      EXPECT_EQ(exit->bits, static_cast<std::uint64_t>(p_after));
    }
    // k is 0 until the loop counts, unknown after it.
    const PartConstant* k_entry = find_constant(part.entry_constants, k);
    if (!shares(part, k)) {
      EXPECT_EQ(k_entry, nullptr);
    } else if (part.begin <= tape.loop) {
      ASSERT_NE(k_entry, nullptr) << "part " << part.index;
      EXPECT_EQ(k_entry->bits, 0u);
    } else {
      EXPECT_EQ(k_entry, nullptr) << "part " << part.index;
    }
    ++checked;
  }
  EXPECT_GE(checked, 3u);
}

// A part that reads a temporary computed in its caller from a constant
// (`q = p + 2`, as the PEG optimizer writes addresses) sees the constant, p
// appearing in no part.
TEST(SplitPlan, ConstantsReachPartsThroughTheVariablesThatFeedThem) {
  std::string body;
  for (int i = 0; i < 12; ++i) {
    body += "t[q + " + std::to_string(i % 6 + 1) + "i32] = u8(i32(t[q + " +
            std::to_string(i % 6 + 1) + "i32]) + " + std::to_string(i + 1) + "i32); ";
  }
  const std::string loop =
      "  while (i32(t[q]) != 0i32) { t[q] = u8(i32(t[q]) - 1i32); " + body + "}\n";
  const RandomProgram program =
      parsed("fn f(t: u8*) -> i32 {\n  var p: i32 = 3i32;\n  var q: i32 = p + 2i32;\n" + loop +
                 loop + "  return i32(t[q]);\n}\n",
             {{"t", ir::Type(ir::Scalar::U8, true), 16}});
  const ir::Function& function = program.module.functions.front();
  const ir::VarId p = function.find_var("p");
  const ir::VarId q = function.find_var("q");
  FunctionPlan plan = plan_split(function, 120);
  ASSERT_GE(plan.parts.size(), 2u);
  std::size_t reading_q = 0;
  for (const Part& part : plan.parts) {
    EXPECT_FALSE(shares(part, p)) << "part " << part.index;
    if (!shares(part, q)) continue;
    const PartConstant* entry = find_constant(part.entry_constants, q);
    ASSERT_NE(entry, nullptr) << "part " << part.index;
    EXPECT_EQ(entry->bits, 5u);
    ++reading_q;
  }
  EXPECT_GE(reading_q, 2u);
  const auto o2 = compile(program.module, {}, split_options(2, 120));
  expect_interpreter_results(program, {o2.get()}, 120, 4);
}

TEST(Split, PartsStartingFromConstantsMatchTheInterpreter) {
  const TapeProgram tape = tape_program(60);
  for (const std::size_t bound : {30u, 60u, 200u}) {
    SCOPED_TRACE("bound " + std::to_string(bound));
    const auto o0 = compile(tape.program.module, {}, split_options(0, bound));
    const auto o2 = compile(tape.program.module, {}, split_options(2, bound));
    expect_interpreter_results(tape.program, {o0.get(), o2.get()}, bound, 4);
  }
}

// A loop around `count` statements of the kind given: stores, or ifs holding one.
RandomProgram loop_around(int count, bool ifs) {
  std::string text = "fn nest(t: u8*, n: i32) -> i32 {\n  var i: i32 = 0i32;\n";
  text += "  while (i < (n & 15i32)) {\n";
  for (int s = 0; s < count; ++s) {
    const std::string store = "t[" + std::to_string(s % 16) + "i32] = u8(i32(t[" +
                              std::to_string((s + 1) % 16) + "i32]) + " +
                              std::to_string(s % 7 + 1) + "i32);";
    text += ifs ? "    if (i32(t[" + std::to_string(s % 16) + "i32]) > 100i32) { " + store + " }\n"
                : "    " + store + "\n";
  }
  text += "    i = i + 1i32;\n  }\n  return i;\n}\n";
  return parsed(text, {{"t", ir::Type(ir::Scalar::U8, true), 16}, {"n", ir::Type::i32(), 0}});
}

// A nest over the bound stays one part while its size times its control flow
// is small (stores only); with 150 ifs in it, its body is cut.
TEST(SplitPlan, LoopNestsStayWholeWithinTheirCost) {
  constexpr std::size_t kBound = 200;
  const RandomProgram stores = loop_around(150, false);
  const ir::Function& whole = stores.module.functions.front();
  ASSERT_GT(stores.nodes, 3 * kBound);
  const FunctionPlan plan = plan_split(whole, kBound);
  ASSERT_EQ(plan.parts.size(), 1u);
  EXPECT_EQ(plan.parts[0].block, &whole.body);
  EXPECT_EQ(whole.body[plan.parts[0].begin].kind, ir::StmtKind::While);

  const RandomProgram branches = loop_around(150, true);
  const ir::Function& branchy = branches.module.functions.front();
  const FunctionPlan cut = plan_split(branchy, kBound);
  const ir::Block* body = nullptr;
  for (const ir::Stmt& stmt : branchy.body) {
    if (stmt.kind == ir::StmtKind::While) body = &stmt.body;
  }
  ASSERT_NE(body, nullptr);
  std::size_t inside = 0;
  for (const Part& part : cut.parts) inside += part.block == body ? 1 : 0;
  EXPECT_GE(inside, 3u);
  for (const RandomProgram* program : {&stores, &branches}) {
    const auto o2 = compile(program->module, {}, split_options(2, kBound));
    expect_interpreter_results(*program, {o2.get()}, 7, 2);
  }
}

// Σ x_j^8 over `terms` bases, each power a chain of multiplies in its own variable.
RandomProgram power_sum(int terms) {
  std::string text = "fn powers(x: i64*) -> i64 {\n  var sum: i64 = 0i64;\n";
  for (int j = 0; j < terms; ++j) {
    const std::string v = "a" + std::to_string(j);
    text += "  var " + v + ": i64 = x[" + std::to_string(j % 8) + "u64];\n";
    for (int m = 0; m < 3; ++m) text += "  " + v + " = " + v + " * " + v + ";\n";
    text += "  sum = sum + " + v + ";\n";
  }
  text += "  return sum;\n}\n";
  return parsed(text, {{"x", ir::Type(ir::Scalar::I64, true), 8}});
}

// Arithmetic without stores or branches stays whole up to 16 times the
// bound; past it, it is cut between the terms, where only `sum` is live.
TEST(SplitPlan, StraightLineArithmeticStaysWholeAndIsCutWhereFewValuesLive) {
  constexpr std::size_t kBound = 100;
  const RandomProgram small = power_sum(40);
  ASSERT_GT(small.nodes, 4 * kBound);
  ASSERT_LT(small.nodes, 16 * kBound);
  EXPECT_FALSE(plan_split(small.module.functions.front(), kBound).split());

  const RandomProgram large = power_sum(200);
  const ir::Function& function = large.module.functions.front();
  const FunctionPlan plan = plan_split(function, kBound);
  ASSERT_GE(plan.parts.size(), 2u);
  const ir::VarId sum = function.find_var("sum");
  for (const Part& part : plan.parts) {
    ASSERT_EQ(part.inouts.size(), 1u) << "part " << part.index;
    EXPECT_EQ(part.inouts[0], sum);
    EXPECT_GE(part.locals.size(), 1u);
  }
  const auto o2 = compile(large.module, {}, split_options(2, kBound));
  expect_interpreter_results(large, {o2.get()}, 3, 2);
}

// e = x[j % 8] > j ? e : j, `levels` times: straight-line code of compares.
RandomProgram select_chain(int levels) {
  std::string text = "fn chain(x: i64*) -> i64 {\n  var e: i64 = x[0u64];\n";
  for (int j = 0; j < levels; ++j) {
    const std::string k = std::to_string(j) + "i64";
    text += "  e = x[" + std::to_string(j % 8) + "u64] > " + k + " ? e : " + k + ";\n";
  }
  text += "  return e;\n}\n";
  return parsed(text, {{"x", ir::Type(ir::Scalar::I64, true), 8}});
}

// Compares are not the arithmetic that stays whole past the bound (at O2 the
// SLP vectorizer tries a block's compares together, superlinearly): a chain
// of them is cut at the bound like code with branches.
TEST(SplitPlan, StraightLineCompareChainsAreCutAtTheBound) {
  constexpr std::size_t kBound = 100;
  const RandomProgram chain = select_chain(100);
  ASSERT_GT(chain.nodes, 4 * kBound);
  ASSERT_LT(chain.nodes, 16 * kBound);
  const FunctionPlan plan = plan_split(chain.module.functions.front(), kBound);
  EXPECT_GE(plan.parts.size(), 3u);
  for (const Part& part : plan.parts) EXPECT_LE(part.nodes, 2 * kBound) << "part " << part.index;
  const auto o2 = compile(chain.module, {}, split_options(2, kBound));
  expect_interpreter_results(chain, {o2.get()}, 5, 3);
}

TEST(Split, RandomProgramsCutIntoTinyPartsMatchTheInterpreter) {
  const std::uint64_t split_before = statistics().functions_split;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    testing::RandomProgramOptions options;
    options.seed = seed;
    const RandomProgram program = testing::random_program(options);
    const std::size_t bound = 4 + seed % 3 * 10;
    const auto o0 = compile(program.module, program.externs, split_options(0, bound));
    const auto o2 = compile(program.module, program.externs, split_options(2, bound));
    expect_interpreter_results(program, {o0.get(), o2.get()}, seed, 3);
  }
  EXPECT_GE(statistics().functions_split - split_before, 100u);
}

// Parts cut inside a loop nest whose inner loop leaves the outer one
// (`break 2`, `continue 2`): the part returns a status of its own for each,
// and its caller, inside the inner loop or not, takes the exit from there.
// The bound is tiny so that the nest, small as it is, is cut.
TEST(Split, ExitsOfSeveralLoopsLeaveTheirParts) {
  RandomProgram program;
  program.module = ir::parse_module(R"(
fn f(p: i32*, n: i32) -> i32 {
  var s: i32 = 0i32;
  for (var i: i32 = 0i32; i < (n & 15i32); i = i + 1i32) {
    for (var j: i32 = 0i32; j < 8i32; j = j + 1i32) {
      s = s + p[j] * i;
      if (p[j] == i) {
        continue 2;
      }
      s = s ^ j;
      if (s > 100000i32) {
        break 2;
      }
      s = s + 1i32;
    }
    s = s * 3i32;
  }
  return s;
}
)");
  program.entry = "f";
  program.params = {{"p", ir::Type::pointer_to(ir::Scalar::I32), 16}, {"n", ir::Type::i32(), 0}};
  const FunctionPlan plan = plan_split(program.module.functions.front(), 2);
  std::size_t far = 0;
  for (const Part& part : plan.parts) far += part.far_exits.size();
  EXPECT_EQ(far, 2u);
  const auto o0 = compile(program.module, {}, split_options(0, 2));
  const auto o2 = compile(program.module, {}, split_options(2, 2));
  expect_interpreter_results(program, {o0.get(), o2.get()}, 77, 40);
}

TEST(Split, LargeProgramsMatchTheInterpreterAndTheWholeO0Compile) {
  for (const std::size_t statements : {3'000u, 20'000u}) {
    SCOPED_TRACE(std::to_string(statements) + " statements");
    const RandomProgram program = bf_like(statements, statements);
    const Statistics before = statistics();
    const auto split = compile(program.module, {}, split_options(2, 4'000));
    EXPECT_EQ(statistics().functions_split - before.functions_split, 1u);
    EXPECT_GE(statistics().pieces_compiled - before.pieces_compiled, 3u);
    const auto whole = compile(program.module, {}, split_options(0, 0));
    expect_interpreter_results(program, {split.get(), whole.get()}, statements, 3);
  }
}

TEST(Split, SplitVersionUnloadsAsAUnit) {
  const RandomProgram program = bf_like(5, 3'000);
  auto code = compile(program.module, {}, split_options(1, 1'000));
  const std::string label = code->label();
  EXPECT_TRUE(is_loaded(label));
  expect_interpreter_results(program, {code.get()}, 5, 1);
  const std::uint64_t unloaded = statistics().versions_unloaded;
  code.reset();
  EXPECT_FALSE(is_loaded(label));
  EXPECT_EQ(statistics().versions_unloaded, unloaded + 1);
}

TEST(Split, ObjectRouteBundlesThePiecesAndLoadsThem) {
  const RandomProgram program = bf_like(6, 3'000);
  const Options options = split_options(2, 1'000);
  const std::vector<char> object = compile_object(program.module, options);
  ASSERT_GT(object.size(), 8u);
  EXPECT_EQ(std::memcmp(object.data(), "AUGOBJS1", 8), 0);
  const auto loaded = load_object(object, program.module, {});
  const auto compiled = compile(program.module, {}, options);
  expect_interpreter_results(program, {loaded.get(), compiled.get()}, 6, 2);

  const std::span<const char> truncated(object.data(), object.size() - 1);
  EXPECT_THROW(load_object(truncated, program.module, {}), jit::compile_error);
  std::vector<char> corrupt = object;
  corrupt[24] ^= 0x7f;  // the first object's ELF magic
  EXPECT_THROW(load_object(corrupt, program.module, {}), jit::compile_error);
}

// Threads compiling split programs at once, some of them in place
// (CompileOnThisThread, as the specialization cache does).
TEST(Split, ThreadsCompileSplitProgramsConcurrently) {
  constexpr int kThreads = 4;
  std::vector<RandomProgram> programs;
  for (int t = 0; t < kThreads; ++t) programs.push_back(bf_like(100 + t, 2'500));
  std::vector<std::shared_ptr<CompiledCode>> versions(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      if (t % 2 == 1) {
        CompileOnThisThread here;
        versions[t] = compile(programs[t].module, {}, split_options(2, 1'000));
      } else {
        versions[t] = compile(programs[t].module, {}, split_options(2, 1'000));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_NE(versions[t], nullptr);
    expect_interpreter_results(programs[t], {versions[t].get()}, 100 + t, 1);
  }
}

}  // namespace
}  // namespace augur::cpu::test
