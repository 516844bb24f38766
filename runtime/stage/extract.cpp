#include "runtime/stage/extract.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string_view>
#include <utility>

#include "jit/error.h"
#include "runtime/dump_request.h"
#include "runtime/ir/printer.h"
#include "runtime/ir/verifier.h"
#include "runtime/ir/visit.h"
#include "runtime/stage/explorer.h"
#include "runtime/stage/finalize.h"
#include "runtime/stage/let_insertion.h"
#include "runtime/stage/structure.h"
#include "runtime/stage/tidy.h"
#include "runtime/stage/types.h"

namespace augur::stage {

namespace {}  // namespace

Extracted extract(const jit::detail::generator& gen, const jit::extract_options& options) {
  const auto start = std::chrono::steady_clock::now();
  Explorer explorer(gen, options);
  explorer.explore();

  StructureOptions structure_options;
  structure_options.name = options.name;
  structure_options.result = to_ir(gen.result);
  structure_options.max_statements = options.max_ir_statements;
  structure_options.kernel = options.kernel;
  structure_options.max_split_nodes = options.max_split_nodes;
  ReducibleStats reducible;
  ir::Function fn = structure(explorer.graph(), structure_options, reducible);
  tidy(fn);
  // Before finalize: it names the new locals, and its walks then see trees.
  insert_lets(fn);
  finalize(fn, options.param_names);

  Extracted out;
  for (const ir::ExternRef& callee : callees(fn)) out.module.declare_extern(*callee);
  out.report.ir_statements = count_statements(fn.body);
  out.report.ir_expression_nodes = ir::node_count(fn.body) - out.report.ir_statements;
  out.module.functions.push_back(std::move(fn));
#ifdef AUGUR_CHECKED
  ir::verify(out.module);
#endif

  const ExploreStats& stats = explorer.stats();
  out.report.control_flow_runs = stats.control_flow_runs;
  out.report.prophecy_runs = stats.prophecy_runs;
  out.report.events = stats.events;
  out.report.tags = stats.tags;
  out.report.tags_used = stats.tags_used;
  out.report.irreducible_split = reducible.split;
  out.report.irreducible_dispatched = reducible.dispatched;
  out.report.split_copies = reducible.copied;
  out.report.nodes = explorer.graph().size();
  out.report.simplified_nodes = stats.simplified_nodes;
  out.report.first_stage_time = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now() - start);

  if (dump_requested("stage")) {
    const std::string text =
        "augur stage: " + options.name + ": " + out.report.str() + "\n" + ir::print(out.module);
    std::fwrite(text.data(), 1, text.size(), stderr);
  }
  return out;
}

}  // namespace augur::stage

namespace jit {

std::string stage_report::str() const {
  char time[64];
  std::snprintf(time, sizeof time, "%.3f ms", static_cast<double>(first_stage_time.count()) / 1e6);
  return "control-flow runs " + std::to_string(control_flow_runs) + ", prophecy runs " +
         std::to_string(prophecy_runs) + ", first stage " + time + ", IR statements " +
         std::to_string(ir_statements) + ", IR expression nodes " +
         std::to_string(ir_expression_nodes) + ", simplified nodes " +
         std::to_string(simplified_nodes) + ", graph nodes " + std::to_string(nodes) + ", events " +
         std::to_string(events) + ", tags " + std::to_string(tags) +
         (tags_used == tag_source::frame_pointers ? " (frame pointers)" : " (backtrace)") +
         (irreducible_split + irreducible_dispatched == 0
              ? std::string()
              : ", irreducible loops split " + std::to_string(irreducible_split) + " (" +
                    std::to_string(split_copies) + " nodes copied), dispatched " +
                    std::to_string(irreducible_dispatched));
}

extraction::extraction(std::shared_ptr<const detail::extraction_result> result)
    : result_(std::move(result)) {}

std::string extraction::ir() const {
  return augur::ir::print(result_->extracted.module);
}

const stage_report& extraction::report() const {
  return result_->extracted.report;
}

const std::string& extraction::name() const {
  return result_->extracted.module.functions.front().name;
}

namespace detail {

extraction extract_generator(const generator& gen, const extract_options& options) {
  auto result = std::make_shared<extraction_result>();
  result->extracted = augur::stage::extract(gen, options);
  return extraction(std::move(result));
}

}  // namespace detail
}  // namespace jit
