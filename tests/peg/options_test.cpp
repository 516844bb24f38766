// The optimizer's options and safety net: translation validation, the dump,
// and falling back to the input when extraction or reversion runs past its
// budget.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "runtime/eqsat/time_net.h"
#include "runtime/ir/parser.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/range_switch.h"
#include "runtime/ir/verifier.h"
#include "runtime/ir/visit.h"
#include "runtime/peg/optimize.h"
#include "runtime/peg/wellformed.h"
#include "tests/peg/peg_check.h"

namespace augur::peg::test {
namespace {

constexpr const char* kLoop = R"(
fn f(b: i32, c: i32, d: i32) -> i32 {
  var x: i32 = b;
  for (var i: i32 = 0i32; i < d; i = i + 1i32) {
    x = x + c * 4i32;
  }
  return x;
}
)";

PegOptions unhurried() {
  PegOptions options;
  options.limits.time = std::chrono::hours(1);
  options.dump = false;
  return options;
}

TEST(PegOptions, TranslationValidationProvesTheResult) {
  const ir::Module m = ir::parse_module(kLoop);
  PegOptions options = unhurried();
  options.validate = true;
  options.require_validation = true;
  const PegResult r = optimize(m, options);
  const PegFunctionReport& f = r.report.functions.front();
  ASSERT_TRUE(f.validated.has_value());
  EXPECT_TRUE(*f.validated) << r.report.summary();
  EXPECT_TRUE(f.optimized) << r.report.summary();
  EXPECT_NE(r.report.summary().find("validation proved"), std::string::npos);
}

TEST(PegOptions, DumpPrintsThePegAndTheResult) {
  const ir::Module m = ir::parse_module(kLoop);
  PegOptions options = unhurried();
  options.dump = true;
  ::testing::internal::CaptureStderr();
  const PegResult r = optimize(m, options);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("== PEG of f"), std::string::npos) << err;
  EXPECT_NE(err.find("theta"), std::string::npos) << err;
  EXPECT_NE(err.find("== after the PEG optimizer"), std::string::npos) << err;
  EXPECT_NE(err.find(ir::print(r.module)), std::string::npos) << err;
}

// 24 ifs in a row, each reading the last: reverting the chain of φs costs
// a lot of work.
std::string bit_reversal_chain() {
  std::string text = "fn f(x: u32) -> u32 {\n  var r: u32 = 0u32;\n";
  for (int i = 0; i < 24; ++i)
    text += "  if ((x >> " + std::to_string(i) + "u32 & 1u32) == 1u32) { r = r | " +
            std::to_string(1u << (31 - i)) + "u32; }\n";
  text += "  return r;\n}\n";
  return text;
}

// Past the budget, the function is kept as it was.
TEST(PegOptions, KeepsTheInputPastTheReversionBudget) {
  const ir::Module m = ir::parse_module(bit_reversal_chain());
  PegOptions options = unhurried();
  options.revert_work_base = 1000;
  options.revert_work_per_node = 0;
  const PegResult r = optimize(m, options);
  const PegFunctionReport& f = r.report.functions.front();
  EXPECT_FALSE(f.optimized);
  EXPECT_NE(f.fallback.find("work budget"), std::string::npos) << r.report.summary();
  EXPECT_EQ(ir::print(r.module), ir::print(m));
  EXPECT_NO_THROW(ir::verify(r.module));
}

// The same function with the default budget comes out right either way.
TEST(PegOptions, DefaultBudgetAgreesWithTheInterpreter) {
  const ir::Module m = ir::parse_module(bit_reversal_chain());
  const PegResult r = optimize(m, unhurried());
  ASSERT_NO_THROW(ir::verify(r.module));
  const ir::ExternTable none;
  EXPECT_EQ(compare_on_random_inputs(m, r.module, "f", params_of(m.functions.front()), none, 1, 32),
            "");
}

// Past its budget the DAG search stops with the best program found so far
// (here the greedy extractor's): the function is still optimized, and right.
TEST(PegOptions, ExtractionBudgetStopsTheSearchNotTheOptimizer) {
  const ir::Module m = ir::parse_module(kLoop);
  PegOptions options = unhurried();
  options.extract_work_base = 10;
  options.extract_work_per_node = 0;
  const PegResult r = optimize(m, options);
  const PegFunctionReport& f = r.report.functions.front();
  EXPECT_TRUE(f.optimized) << r.report.summary();
  ASSERT_NO_THROW(ir::verify(r.module));
  EXPECT_EQ(compare_on_random_inputs(m, r.module, "f", params_of(m.functions.front()), {}, 3, 16),
            "");
  const PegResult full = optimize(m, unhurried());
  EXPECT_LT(f.extract_work, full.report.functions.front().extract_work) << r.report.summary();
}

// The default budget leaves room: the same function is optimized, and the
// report counts the steps it took.
TEST(PegOptions, DefaultExtractionBudgetOptimizes) {
  const ir::Module m = ir::parse_module(kLoop);
  const PegOptions defaults;
  const PegResult r = optimize(m, unhurried());
  const PegFunctionReport& f = r.report.functions.front();
  EXPECT_TRUE(f.optimized) << r.report.summary();
  EXPECT_GT(f.extract_work, 0u);
  EXPECT_LT(f.extract_work, defaults.extract_work_base) << r.report.summary();
  EXPECT_NE(r.report.summary().find(std::to_string(f.extract_work) + " steps"), std::string::npos);
}

// An ill-formed extraction names the e-node to ban: here the outer θ reaches
// the inner θ through the + (not through an eval or pass of the inner loop).
TEST(PegOptions, WellFormednessBlamesTheOffendingENode) {
  const PegType i32(ir::Type::i32());
  PegGraph graph;
  const auto node = [&](Kind kind, std::vector<std::uint32_t> children, std::uint64_t payload) {
    const auto i = static_cast<std::uint32_t>(graph.nodes.size());
    graph.nodes.push_back(PegNode{label(kind, i32, payload), std::move(children),
                                  eqsat::make_id(100 + i), eqsat::make_id(200 + i)});
  };
  node(Kind::Theta, {1, 2}, 1);  // %0 = θ_1(0, %0 + %3)
  node(Kind::Const, {}, 0);
  node(Kind::Add, {0, 3}, 0);
  node(Kind::Theta, {1, 3}, 2);  // %3 = θ_2(0, %3)
  graph.result = 0;
  std::optional<eqsat::Id> blame;
  const std::string error = check_well_formed(graph, &blame);
  EXPECT_NE(error.find("reaches the inner θ"), std::string::npos) << error;
  ASSERT_TRUE(blame.has_value());
  EXPECT_EQ(*blame, eqsat::make_id(202));
}

// Four counted loops in a row, each starting from the last one's total.
std::string sibling_loops() {
  std::string text = "fn f(b: i32, c: i32, d: i32) -> i32 {\n  var x: i32 = b;\n";
  for (int k = 0; k < 4; ++k)
    text += "  for (var i" + std::to_string(k) + ": i32 = 0i32; i" + std::to_string(k) + " < d; i" +
            std::to_string(k) + " = i" + std::to_string(k) + " + 1i32) {\n    x = x + c * " +
            std::to_string(k + 2) + "i32 + i" + std::to_string(k) + " * 0i32;\n  }\n";
  text += "  return x;\n}\n";
  return text;
}

std::atomic<int> net_checks{0};

// A thread kept waiting for a core: at every 10th look at a safety net, up
// to the 100th, it sleeps past the nets' default of 100 ms.
void wait_for_a_core() {
  const int n = ++net_checks;
  if (n % 10 == 0 && n <= 100) std::this_thread::sleep_for(std::chrono::milliseconds(110));
}

// The safety nets count the thread's CPU time, which waiting does not spend:
// optimized while it waits, as on a loaded machine, a function comes out as
// with the nets lifted (the same program, iterations and e-nodes), whole and
// in regions on the TBB pool. With wall-clock nets the saturation of the
// whole function stops on time at its 10th look.
TEST(PegOptions, WaitingForACoreChangesNothing) {
  const ir::Module m = ir::parse_module(sibling_loops());
  for (const std::size_t region_nodes : {std::size_t{500}, std::size_t{30}}) {
    PegOptions lifted = unhurried();
    lifted.region_nodes = region_nodes;
    const PegResult expected = optimize(m, lifted);
    PegOptions defaults;
    defaults.dump = false;
    defaults.region_nodes = region_nodes;
    net_checks = 0;
    eqsat::testing::set_before_net_check(&wait_for_a_core);
    const PegResult loaded = optimize(m, defaults);
    eqsat::testing::set_before_net_check(nullptr);
    const PegFunctionReport& e = expected.report.functions.front();
    const PegFunctionReport& l = loaded.report.functions.front();
    EXPECT_GE(net_checks.load(), 20) << "the nets were looked at after waiting";
    EXPECT_TRUE(e.optimized) << expected.report.summary();
    EXPECT_EQ(region_nodes == 30, e.regions > 1) << expected.report.summary();
    EXPECT_EQ(l.time_nets, 0u) << loaded.report.summary();
    EXPECT_EQ(l.stop, e.stop);
    EXPECT_EQ(l.iterations, e.iterations);
    EXPECT_EQ(l.egraph_nodes, e.egraph_nodes);
    EXPECT_EQ(ir::print(loaded.module), ir::print(expected.module));
  }
}

// A net that is reached (here: at once) still gives a correct program, and
// the report says that the output depended on the clock.
TEST(PegOptions, TheReportSaysWhenATimeNetFired) {
  const ir::Module m = ir::parse_module(sibling_loops());
  PegOptions options = unhurried();
  options.limits.time = std::chrono::nanoseconds(0);
  const PegResult r = optimize(m, options);
  const PegFunctionReport& f = r.report.functions.front();
  EXPECT_EQ(f.stop, "time limit");
  EXPECT_GE(f.time_nets, 1u);
  EXPECT_NE(r.report.summary().find("time safety net reached"), std::string::npos)
      << r.report.summary();
  ASSERT_NO_THROW(ir::verify(r.module));
  EXPECT_EQ(compare_on_random_inputs(m, r.module, "f", params_of(m.functions.front()), {}, 3, 16),
            "");
}

ir::Module golden(const std::string& name) {
  std::ifstream stream(std::filesystem::path(AUGUR_TEST_DATA) / "../stage/golden" / (name + ".ir"));
  const std::string text((std::istreambuf_iterator<char>(stream)),
                         std::istreambuf_iterator<char>());
  return ir::parse_module(text, name);
}

std::size_t loops_in(const ir::Block& block) {
  std::size_t n = 0;
  for (const ir::Stmt& s : block)
    n += (s.kind == ir::StmtKind::While || s.kind == ir::StmtKind::For ? 1 : 0) + loops_in(s.body) +
         loops_in(s.orelse) + loops_in(s.init) + loops_in(s.step);
  return n;
}

// nested_loops: extraction first picks ill-formed PEGs, which are retried
// with the blamed e-node banned. Reversion computed the inner loop in three
// places (even without saturation: the break test's branch, the exit and
// the next outer iteration's φ, all on one condition), which would run it
// twice per outer iteration, so the function was kept. The later two read
// the value the first branch left: the function is optimized with its loops
// as many as the input's, and agrees with the interpreter.
TEST(PegOptions, NoLoopIsDuplicated) {
  const ir::Module m = golden("nested_loops");
  const ir::ExternTable none;
  for (const bool saturate : {false, true}) {
    PegOptions options = unhurried();
    options.saturate = saturate;
    const PegResult r = optimize(m, options);
    ASSERT_NO_THROW(ir::verify(r.module));
    EXPECT_TRUE(r.report.functions.front().optimized) << r.report.summary();
    EXPECT_EQ(loops_in(r.module.functions.front().body), loops_in(m.functions.front().body))
        << r.report.summary() << ir::print(r.module);
    EXPECT_EQ(compare_on_random_inputs(m, r.module, "nested_loops", params_of(m.functions.front()),
                                       none, 3, 16),
              "");
  }
}

// A region that saves a variable's entry value and then changes it (`v = a;
// a = ...`) gives back both: the optimized region reads `a` for `v` before it
// assigns `a` (seed 2001681 of the Regions differential test did not).
TEST(PegOptions, ARegionReadsAnOutputsEntryValueBeforeAssigningIt) {
  const ir::Module m = ir::parse_module(R"(
fn f(a: i32, n: i32) -> i32 {
  var v: i32 = a;
  a = a * 3i32 + 1i32;
  var s: i32 = 0i32;
  for (var i: i32 = 0i32; i < n; i = i + 1i32) {
    s = s + v * i + a;
  }
  return s + v - a;
}
)");
  PegOptions options = unhurried();
  options.region_nodes = 12;
  options.straight_line_regions = true;
  const PegResult r = optimize(m, options);
  ASSERT_NO_THROW(ir::verify(r.module));
  EXPECT_GT(r.report.functions.front().regions_optimized, 0u) << ir::print(r.module);
  const ir::ExternTable none;
  EXPECT_EQ(compare_on_random_inputs(m, r.module, "f", params_of(m.functions.front()), none, 1, 32),
            "")
      << ir::print(r.module);
}

// Loops whose bodies declare locals, each loop a region, and locals declared
// after them: optimized regions take their locals away, and the variables
// declared later move into the holes. The table keeps the parameters and
// each declared variable once, and the program computes the same.
TEST(PegOptions, RegionsLeaveOnlyDeclaredVariables) {
  std::string text = "fn f(n: i32, c: i32) -> i32 {\n  var x: i32 = c;\n";
  for (int k = 0; k < 4; ++k) {
    const std::string i = "i" + std::to_string(k), t = "t" + std::to_string(k);
    text += "  for (var " + i + ": i32 = 0i32; " + i + " < n; " + i + " = " + i +
            " + 1i32) {\n    var " + t + ": i32 = x * " + std::to_string(k + 3) + "i32 + " + i +
            ";\n    x = " + t + " - " + t + " / 2i32;\n  }\n";
  }
  for (int k = 0; k < 3; ++k)
    text += "  var late" + std::to_string(k) + ": i32 = x + " + std::to_string(k) +
            "i32;\n  x = x * late" + std::to_string(k) + ";\n";
  text += "  return x;\n}\n";
  const ir::Module m = ir::parse_module(text);
  PegOptions options = unhurried();
  options.region_nodes = 30;
  const PegResult r = optimize(m, options);
  ASSERT_NO_THROW(ir::verify(r.module)) << ir::print(r.module);
  const PegFunctionReport& report = r.report.functions.front();
  EXPECT_GT(report.regions_optimized, 1u) << r.report.summary();
  const ir::Function& f = r.module.functions.front();
  std::vector<int> declared(f.vars.size(), 0);
  ir::for_each_stmt(f.body, [&](const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Decl) ++declared.at(s.var.index);
  });
  for (std::size_t v = 0; v < f.vars.size(); ++v)
    EXPECT_EQ(declared[v], v < f.num_params ? 0 : 1) << f.vars[v].name << "\n"
                                                     << ir::print(r.module);
  const ir::ExternTable none;
  EXPECT_EQ(compare_on_random_inputs(m, r.module, "f", params_of(m.functions.front()), none, 3, 32),
            "")
      << ir::print(r.module);
}

// A binary search on one variable's ranges, the dispatch a first stage builds
// by narrowing a static range: `leaves` states, each leaf a little arithmetic
// on `acc` and the next state.
std::string dispatch_loop(int leaves) {
  const auto node = [&](auto&& self, int lo, int hi, const std::string& indent) -> std::string {
    if (hi - lo == 1)
      return indent + "acc = acc * " + std::to_string(lo + 2) + "i32 + x * x + " +
             std::to_string(lo) + "i32;\n" + indent +
             "s = " + std::to_string((lo * 7 + 3) % leaves) + "i32;\n";
    const int mid = (lo + hi) / 2;
    return indent + "if (s < " + std::to_string(mid) + "i32) {\n" +
           self(self, lo, mid, indent + "  ") + indent + "} else {\n" +
           self(self, mid, hi, indent + "  ") + indent + "}\n";
  };
  return "fn f(x: i32, n: i32) -> i32 {\n  var s: i32 = 0i32;\n  var acc: i32 = 1i32;\n"
         "  for (var i: i32 = 0i32; i < n; i = i + 1i32) {\n" +
         node(node, 0, leaves, "    ") + "    x = x + i;\n  }\n  return acc + s;\n}\n";
}

const ir::Stmt* first_if(const ir::Block& block) {
  std::vector<const ir::Block*> todo{&block};
  while (!todo.empty()) {
    const ir::Block* b = todo.back();
    todo.pop_back();
    for (const ir::Stmt& s : *b) {
      if (s.kind == ir::StmtKind::If) return &s;
      for (const ir::Block* nested : {&s.body, &s.orelse, &s.init, &s.step}) todo.push_back(nested);
    }
  }
  return nullptr;
}

// Regions never cut such a tree: its leaves are optimized, the tree stays
// whole, so code generation still makes it one switch (ir/range_switch.h).
// Cut into regions, each subtree came back as ifs on temporaries, an
// unpredictable branch per level (a staged 64-state automaton, 6-9x slower).
TEST(PegOptions, RegionsKeepARangeDispatchWhole) {
  const ir::Module m = ir::parse_module(dispatch_loop(32));
  const ir::Stmt* tree = first_if(m.functions.front().body);
  ASSERT_NE(tree, nullptr);
  ASSERT_TRUE(ir::match_range_switch(*tree, [](const ir::Stmt&) { return false; }).found);
  PegOptions options = unhurried();
  options.region_nodes = 60;
  options.straight_line_regions = true;
  const PegResult r = optimize(m, options);
  ASSERT_NO_THROW(ir::verify(r.module));
  const PegFunctionReport& report = r.report.functions.front();
  EXPECT_GE(report.regions_optimized, 32u) << r.report.summary();
  const ir::Stmt* kept = first_if(r.module.functions.front().body);
  ASSERT_NE(kept, nullptr);
  const ir::RangeSwitchMatch match =
      ir::match_range_switch(*kept, [](const ir::Stmt&) { return false; });
  ASSERT_TRUE(match.found) << ir::print(r.module);
  EXPECT_EQ(match.found->leaves.size(), 32u);
  const ir::ExternTable none;
  EXPECT_EQ(compare_on_random_inputs(m, r.module, "f", params_of(m.functions.front()), none, 1, 16),
            "")
      << ir::print(r.module);
}

// A byte tree of a staged automaton's state step: `n = n + 1` on some leaves
// (`bump` replaces the first of them).
std::string byte_tree(const std::string& bump = "n + 1i32") {
  return R"(fn f(c: i32, s: i32, m: i32) -> i32 {
  var state: i32 = s;
  var n: i32 = m;
  if (c < 100i32) {
    if (c < 50i32) {
      state = 7i32;
    } else {
      state = 3i32;
      n = )" +
         bump + R"(;
    }
  } else if (c < 200i32) {
    state = 9i32;
  } else {
    state = 1i32;
    n = n + 1i32;
  }
  return state + n;
}
)";
}

// Code without loops in which saturation finds nothing cheaper keeps its
// branches as written: reverted, the tree came back as `?:` chains and `if`s
// on temporaries (a staged DFA 1.27× slower).
TEST(PegOptions, BranchesSaturationCannotImproveAreKeptAsWritten) {
  const ir::Module m = ir::parse_module(byte_tree());
  const PegResult r = optimize(m, unhurried());
  const PegFunctionReport& f = r.report.functions.front();
  EXPECT_TRUE(f.optimized) << r.report.summary();
  EXPECT_TRUE(f.unchanged) << r.report.summary();
  EXPECT_NE(r.report.summary().find("kept as it came"), std::string::npos) << r.report.summary();
  EXPECT_EQ(r.module.functions.front(), m.functions.front()) << ir::print(r.module);
}

// Where saturation finds something cheaper (-(-x) is x), the branches are
// reverted as before.
TEST(PegOptions, BranchesSaturationImprovesAreReverted) {
  const ir::Module m = ir::parse_module(byte_tree("-(-n)"));
  const PegResult r = optimize(m, unhurried());
  const PegFunctionReport& f = r.report.functions.front();
  EXPECT_TRUE(f.optimized) << r.report.summary();
  EXPECT_FALSE(f.unchanged) << r.report.summary();
  std::size_t negations = 0;
  ir::for_each_stmt(r.module.functions.front().body, [&](const ir::Stmt& s) {
    ir::for_each_expr(s, [&](const ir::Expr& e) { negations += e.kind == ir::ExprKind::Unary; });
  });
  EXPECT_EQ(negations, 0u) << ir::print(r.module);
  const ir::ExternTable none;
  EXPECT_EQ(compare_on_random_inputs(m, r.module, "f", params_of(m.functions.front()), none, 1, 32),
            "")
      << ir::print(r.module);
}

// By default a large function's regions without loops are optimized too, and
// those kept as they came count as optimized: here every region of a run of
// byte trees.
TEST(PegOptions, RegionsWithoutLoopsAreOptimizedByDefault) {
  std::string text = "fn f(c: i32, s: i32, m: i32) -> i32 {\n  var state: i32 = s;\n";
  text += "  var n: i32 = m;\n";
  for (int k = 0; k < 24; ++k) {
    const std::string at = std::to_string(k * 7) + "i32";
    text += "  if (c < " + at + ") {\n    state = state + " + std::to_string(k + 1) +
            "i32;\n  } else {\n    n = n ^ state;\n  }\n";
  }
  text += "  return state + n;\n}\n";
  const ir::Module m = ir::parse_module(text);
  PegOptions options = unhurried();
  options.region_nodes = 40;
  const PegResult r = optimize(m, options);
  const PegFunctionReport& f = r.report.functions.front();
  ASSERT_GE(f.regions, 4u) << r.report.summary();
  EXPECT_EQ(f.regions_optimized, f.regions) << r.report.summary();
  EXPECT_EQ(f.regions_unchanged, f.regions) << r.report.summary();
  EXPECT_GE(f.optimized_nodes * 10, f.ir_nodes * 9) << r.report.summary();  // all but `return`
  EXPECT_EQ(r.module.functions.front(), m.functions.front()) << ir::print(r.module);
}

// The DAG search tries each alternative e-node of each class it reaches; a
// commuted operation (most alternatives after saturation) leaves the same
// classes in the program and cannot make it cheaper, and costs the search
// no evaluation of the program: its work stays linear in the function, where
// a whole evaluation per alternative was quadratic.
TEST(PegOptions, TheDagSearchSkipsAlternativesThatCannotBeCheaper) {
  std::string text = "fn f(x: i32, y: i32) -> i32 {\n  var s: i32 = x;\n";
  for (int k = 0; k < 150; ++k) text += "  s = (s * " + std::to_string(k + 3) + "i32 + y) ^ x;\n";
  text += "  return s;\n}\n";
  const ir::Module m = ir::parse_module(text);
  PegOptions options = unhurried();
  options.region_nodes = 100'000;  // one function, one search
  const PegResult r = optimize(m, options);
  const PegFunctionReport& f = r.report.functions.front();
  ASSERT_TRUE(f.optimized) << r.report.summary();
  EXPECT_LE(f.extract_work, 10 * f.ir_nodes) << r.report.summary();
  const ir::ExternTable none;
  EXPECT_EQ(compare_on_random_inputs(m, r.module, "f", params_of(m.functions.front()), none, 1, 32),
            "")
      << ir::print(r.module);
}

// Sibling loops over the same variables, `loops` of them, each summing into x.
std::string sibling_loops(int loops) {
  std::string text = "fn f(b: i32, c: i32, d: i32) -> i32 {\n  var x: i32 = b;\n";
  for (int k = 0; k < loops; ++k) {
    const std::string i = "k" + std::to_string(k);
    text += "  for (var " + i + ": i32 = 0i32; " + i + " < d; " + i + " = " + i +
            " + 1i32) {\n    x = x + c * " + std::to_string(k + 2) + "i32;\n  }\n";
  }
  return text + "  return x;\n}\n";
}

// A region kept (here: reversion given no budget) is reported, with the
// variables whose final values it must keep, so that tools can look at it
// alone (bench/peg_file --print-kept).
TEST(PegOptions, KeptRegionsAreReportedWithTheirOutputs) {
  const ir::Module m = ir::parse_module(sibling_loops(12));
  PegOptions options = unhurried();
  options.region_nodes = 40;
  options.revert_work_base = 0;
  options.revert_work_per_node = 0;
  std::vector<std::vector<std::string>> outputs;
  options.on_kept_region = [&](const ir::Function& region, std::span<const ir::VarId> out,
                               const PegFunctionReport& report) {
    EXPECT_FALSE(report.fallback.empty());
    EXPECT_GE(ir::loop_count(region.body), 1u) << ir::print(region);
    outputs.emplace_back();
    for (ir::VarId v : out) outputs.back().push_back(region.var(v).name);
  };
  const PegResult r = optimize(m, options);
  const PegFunctionReport& report = r.report.functions.front();
  ASSERT_GE(report.regions, 2u) << r.report.summary();
  EXPECT_EQ(report.regions_optimized, 0u) << r.report.summary();
  EXPECT_EQ(outputs.size(), report.regions) << r.report.summary();
  for (const std::vector<std::string>& names : outputs)
    EXPECT_NE(std::find(names.begin(), names.end(), "x"), names.end());
}

}  // namespace
}  // namespace augur::peg::test
