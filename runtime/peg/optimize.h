// The PEG optimizer's entry point: IR module in, optimized IR module out.
//
// Per function (or, above PegOptions::region_nodes, per region of it:
// regions.h): IR → PEG (to_peg.h), equality saturation with the built-in
// axioms and the registered user rules under a JIT budget, extraction by
// Tate's cost model, reversion to structured IR (revert.h). It never makes a
// program wrong: whenever a step cannot finish (an unsupported shape, an
// extraction or reversion past its work budget, a PEG that is ill-formed or
// cannot be reverted even after banning the e-nodes to blame, a reverted
// function with more loops than the input, a result the verifier rejects)
// the function is kept as it was, and the report says why. A saturation
// budget hit mid-way is fine. The output passes the verifier.
//
// AUGUR_DUMP=peg (or PegOptions::dump) prints each function's PEG, the
// saturation summary and the result to stderr.
//
// The CPU pipeline calls it at O2 and above:
//   augur::peg::PegResult r = augur::peg::optimize(module, augur::peg::PegOptions{});
//   compile r.module; r.report.summary() says what happened.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/eqsat/runner.h"
#include "runtime/ir/externs.h"
#include "runtime/ir/ir.h"

namespace augur::peg {

// Translation, extraction and reversion recurse once per level of expression
// depth, statement nesting and PEG depth (the longest chain of values, loops'
// back edges aside), on whatever thread compiles. A function deeper than this
// is kept as it is, and its report says why (docs/peg.md).
inline constexpr std::size_t kMaxPegDepth = 1000;

struct PegFunctionReport;

struct PegOptions {
  // Saturation budget (eqsat::Limits::jit(): 8 iterations, 6,000 e-nodes,
  // and 100 ms of the thread's CPU time as a safety net the other budgets
  // stop well before, so the output does not depend on the machine's load);
  // the time, scaled by the reversion work budget over a full region's, is
  // also each reversion attempt's safety net (its work budget stops it).
  eqsat::Limits limits = eqsat::Limits::jit();
  // Saturation also stops once the e-graph holds more than growth_base +
  // growth_per_node × the PEG's e-nodes: work in proportion to the program,
  // whatever the rules make of it.
  std::size_t growth_base = 500;
  std::size_t growth_per_node = 2;
  bool saturate = true;    // false: IR → PEG → IR only
  bool user_rules = true;  // apply the rules registered with jit::register_rule
  // Extractions tried, each banning the e-node the previous reversion blamed.
  unsigned extraction_attempts = 6;
  // Reversion's work budget: base + per_node × the function's IR nodes
  // (RevertInput::max_work); past it the function is kept.
  std::size_t revert_work_base = 20'000;
  std::size_t revert_work_per_node = 200;
  // The DAG search's work budget (dag_extract.h: node visits), shared by the
  // extraction attempts: base + per_node × the function's IR nodes. A search
  // that reaches its share keeps the best program it found by then.
  std::size_t extract_work_base = 20'000;
  std::size_t extract_work_per_node = 200;
  // Whether the DAG search passes over the alternatives it can tell cannot
  // make the program cheaper without evaluating it (dag_extract.h). Off, it
  // evaluates every one: the same program for more work (a check of the
  // bounds, not a setting to tune).
  bool extract_pruning = true;
  // A function of more IR nodes (statements and expression nodes) is
  // optimized region by region (regions.h), each region under the budgets
  // above scaled to its own size, so the work stays linear in the function.
  std::size_t region_nodes = 500;
  // Whether regions without loops are optimized too. One with branches in
  // which saturation finds nothing cheaper is kept as written (a staged
  // DFA's byte trees, reverted, ran 1.27× slower than LLVM's code for the
  // source); off, such regions are left to LLVM unread, which costs nothing
  // (docs/performance.md, "Straight-line regions on by default").
  bool straight_line_regions = true;
  // Translation validation: put the result back into the e-graph and check
  // that it lands in the original's e-classes (value and σ).
  bool validate = false;
  // Keep the input when validation cannot prove the result.
  bool require_validation = false;
  // Print the PEG and the result to stderr; defaults to AUGUR_DUMP containing "peg".
  std::optional<bool> dump;
  // Declarations of externs user rules may introduce (jit::compile passes
  // the registered ones); externs the module already calls need not be here.
  const ir::ExternTable* externs = nullptr;
  // Called after a large function's regions are optimized, in plan order,
  // with each region that was kept, the variables whose final values it
  // must keep, and its report (`fallback` says why): a look at what
  // extraction or reversion could not handle, for tools (bench/peg_file
  // --print-kept).
  std::function<void(const ir::Function& region, std::span<const ir::VarId> outputs,
                     const PegFunctionReport& report)>
      on_kept_region;
};

struct PegFunctionReport {
  std::string function;
  std::size_t ir_nodes = 0;      // statements and expressions of the input
  std::size_t peg_nodes = 0;     // e-nodes right after translation
  std::size_t egraph_nodes = 0;  // after saturation
  std::size_t egraph_classes = 0;
  std::size_t iterations = 0;
  std::string stop;              // why saturation stopped
  unsigned extractions = 0;      // extraction + reversion attempts
  std::size_t extract_work = 0;  // greedy and DAG search steps, all attempts
  // The output is the reverted PEG, or the input where `unchanged`: a
  // function or region without loops for which saturation found nothing
  // cheaper than the program translation made.
  bool optimized = false;
  bool unchanged = false;
  std::string fallback;              // why the input was kept (empty if optimized)
  std::vector<std::string> retries;  // why each extraction before the last was rejected
  std::optional<bool> validated;     // translation validation, when asked for
  // Phases a time safety net stopped (saturation, reversion attempts): 0
  // unless something ran away; the output then depends on the machine.
  std::size_t time_nets = 0;
  std::chrono::nanoseconds to_peg{0}, saturate{0}, extract{0}, revert{0}, validate{0};
  // A function above PegOptions::region_nodes: the regions it was cut into
  // (0: optimized whole), how many were optimized, and their IR nodes. The
  // other counts and times are the regions' sums (iterations: the most);
  // `optimized` means some region was, `fallback` is the first kept region's
  // reason.
  std::size_t regions = 0;
  std::size_t regions_optimized = 0;
  std::size_t regions_unchanged = 0;  // of those optimized
  std::size_t optimized_nodes = 0;
};

struct PegReport {
  std::vector<PegFunctionReport> functions;
  std::chrono::nanoseconds total{0};
  std::string summary() const;
};

struct PegResult {
  ir::Module module;
  PegReport report;
};

PegResult optimize(const ir::Module& module, const PegOptions& options = {});

// Builds the built-in rule set (tens of milliseconds, once per process), so
// that the first optimize() does not pay for it; call it at engine start.
void warm_up();

}  // namespace augur::peg
