#include "runtime/peg/regions.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "runtime/ir/builder.h"
#include "runtime/ir/range_switch.h"
#include "runtime/ir/visit.h"
#include "runtime/peg/optimize_function.h"

namespace augur::peg {

namespace {

struct StmtFacts {
  std::size_t nodes = 0;    // up to the cap + 1
  bool regionable = false;  // may be part of a region (see regions.h)
  bool loops = false;       // has a loop (a regionable statement only)
};

// What a region needs to know of one statement, walking at most `cap` + 1
// of its nodes (a shared subexpression counts once per use, so a small DAG
// may stand for a huge tree: the count stops at the cap first).
StmtFacts facts_of(const ir::Function& f, const ir::Stmt& stmt, std::size_t cap) {
  const std::size_t nodes = ir::node_count(std::span<const ir::Stmt>(&stmt, 1), cap);
  if (nodes > cap) return StmtFacts{nodes, false};
  StmtFacts facts{nodes, true};
  std::vector<const ir::Expr*> exprs;
  const auto note = [&](const ir::Stmt& s, ir::StmtDepth depth) {
    ir::for_each_expr(s, exprs, [&](const ir::Expr& e) {
      if (e.kind == ir::ExprKind::Var && f.var(e.var).kind == ir::VarKind::Shared)
        facts.regionable = false;
    });
    switch (s.kind) {
      case ir::StmtKind::Return:
      case ir::StmtKind::Barrier:
        facts.regionable = false;
        break;
      case ir::StmtKind::Break:
      case ir::StmtKind::Continue:
        // Only to a loop inside the region.
        if (s.levels > depth.loops) facts.regionable = false;
        break;
      case ir::StmtKind::Decl:
        if (f.var(s.var).kind == ir::VarKind::Shared) facts.regionable = false;
        break;
      default:
        break;
    }
    if (depth.nesting >= kMaxRegionNesting) facts.regionable = false;
    facts.loops = facts.loops || s.kind == ir::StmtKind::While || s.kind == ir::StmtKind::For;
  };
  ir::for_each_stmt_at(std::span<const ir::Stmt>(&stmt, 1), note);
  return facts;
}

class RegionSplitter {
 public:
  RegionSplitter(const ir::Module& module, const ir::Function& original, const PegOptions& options,
                 PegFunctionReport& report, bool dump)
      : module_(module), out_(original), options_(options), report_(report), dump_(dump) {
    for (const ir::Variable& v : out_.vars) names_.insert(v.name);
  }

  // Plans the regions block by block, optimizes them (on the TBB pool
  // unless dumping: regions are independent), then splices them back in
  // plan order, so the result does not depend on the thread count.
  ir::Function run() {
    std::vector<ir::Block*> todo{&out_.body};
    while (!todo.empty()) {
      ir::Block* block = todo.back();
      todo.pop_back();
      for (ir::Block* nested : split(*block)) todo.push_back(nested);
    }
    // parallel_for hands the regions to its workers, and they hand them
    // back, inside libtbb, which ThreadSanitizer cannot see: a release
    // before and an acquire in each region show it the way there,
    // `finished` the way back.
    std::atomic<bool> published{false};
    std::atomic<std::size_t> finished{0};
    const auto optimize_one = [&](std::size_t i) {
      static_cast<void>(published.load(std::memory_order_acquire));
      Region& r = regions_[i];
      r.optimized = optimize_function(module_, r.function, options_, r.report, dump_, r.outputs);
      finished.fetch_add(1, std::memory_order_release);
    };
    if (dump_) {
      for (std::size_t i = 0; i < regions_.size(); ++i) optimize_one(i);
    } else {
      // Isolated: a worker waiting here must not pick up a task that waits
      // on what this thread holds (a compile of the same key).
      published.store(true, std::memory_order_release);
      tbb::this_task_arena::isolate(
          [&] { tbb::parallel_for(std::size_t{0}, regions_.size(), optimize_one); });
    }
    static_cast<void>(finished.load(std::memory_order_acquire));
    for (Region& r : regions_) {
      add_to_report(r.report);
      if (!r.report.optimized && options_.on_kept_region)
        options_.on_kept_region(r.function, r.outputs, r.report);
    }
    // A block's regions are consecutive in plan order, and a block is
    // planned before the blocks inside it: splicing the last block first
    // never moves a block still to splice.
    for (std::size_t end = regions_.size(); end > 0;) {
      std::size_t begin = end - 1;
      while (begin > 0 && regions_[begin - 1].block == regions_[end - 1].block) --begin;
      splice(std::span<Region>(regions_).subspan(begin, end - begin));
      end = begin;
    }
    drop_undeclared_vars();
    return std::move(out_);
  }

 private:
  // The locals of optimized regions are gone from the code (reversion makes
  // its own): the variable table keeps only what is declared. The last
  // variables fill the holes, so only they are renamed.
  void drop_undeclared_vars() {
    std::vector<bool> keep(out_.vars.size(), false);
    for (std::uint32_t i = 0; i < out_.num_params; ++i) keep[i] = true;
    ir::for_each_stmt(out_.body, [&](const ir::Stmt& s) {
      if (s.kind == ir::StmtKind::Decl) keep[s.var.index] = true;
    });
    std::vector<std::uint32_t> renamed(out_.vars.size());
    std::iota(renamed.begin(), renamed.end(), 0u);
    bool moved = false;
    std::size_t size = out_.vars.size();
    for (std::size_t hole = 0; hole < size; ++hole) {
      if (keep[hole]) continue;
      while (size > hole + 1 && !keep[size - 1]) --size;
      if (size == hole + 1) {
        size = hole;
        break;
      }
      out_.vars[hole] = std::move(out_.vars[--size]);
      renamed[size] = static_cast<std::uint32_t>(hole);
      moved = true;
    }
    out_.vars.erase(out_.vars.begin() + static_cast<std::ptrdiff_t>(size), out_.vars.end());
    if (moved) {
      ir::VarRenamer().block(out_.body, [&](ir::VarId v) { return ir::VarId{renamed[v.index]}; });
    }
  }

  // A run of statements to optimize as one region: where it goes back, the
  // function made of it, and what became of it.
  struct Region {
    ir::Block* block = nullptr;  // it stands for the statement at `position`
    std::size_t position = 0;
    ir::Block run;
    std::vector<std::uint32_t> hoisted;  // declarations at its top
    ir::Function function;
    std::vector<ir::VarId> outputs;
    std::vector<std::uint32_t> to_outer;  // the function's parameters, as the outer variables
    PegFunctionReport report;
    std::optional<ir::Function> optimized;
  };

  // Moves the regions of `block` out, each leaving one placeholder statement
  // behind; returns the blocks left to split further. The block is rebuilt
  // in place: what stays moves at most once, towards the front (a run
  // leaves at most one statement, so the write position never passes the
  // read position).
  std::vector<ir::Block*> split(ir::Block& block) {
    std::size_t kept = 0;  // block[0, kept) is the rebuilt block so far
    std::size_t run_begin = 0, run_nodes = 0;
    bool run_loops = false;
    std::vector<std::size_t> descend, switches, placeholders;
    const auto keep = [&](std::size_t from, std::size_t to) {
      for (std::size_t i = from; i < to; ++i, ++kept)
        if (kept != i) block[kept] = std::move(block[i]);
    };
    // The run is block[run_begin, end).
    const auto flush = [&](std::size_t end) {
      const std::size_t begin = std::exchange(run_begin, end);
      const bool loops = std::exchange(run_loops, false);
      run_nodes = 0;
      if (begin == end) return;
      if (!options_.straight_line_regions && !loops) {
        ++report_.regions;
        if (report_.fallback.empty()) report_.fallback = "a region without loops (left to LLVM)";
        keep(begin, end);
        return;
      }
      const auto first = block.begin() + static_cast<std::ptrdiff_t>(begin);
      plan(ir::Block(std::make_move_iterator(first),
                     std::make_move_iterator(block.begin() + static_cast<std::ptrdiff_t>(end))));
      placeholders.push_back(kept);
      block[kept++] = ir::Stmt::eval(nullptr);
    };
    for (std::size_t i = 0; i < block.size(); ++i) {
      const ir::Stmt& s = block[i];
      if (is_switch(s)) {
        flush(i);
        switches.push_back(kept);
        keep(i, i + 1);
        run_begin = i + 1;
        continue;
      }
      const StmtFacts facts = facts_of(out_, s, options_.region_nodes);
      if (facts.regionable) {
        if (run_nodes + facts.nodes > options_.region_nodes) flush(i);
        run_nodes += facts.nodes;
        run_loops = run_loops || facts.loops;
        continue;
      }
      flush(i);
      if (!s.body.empty() || !s.orelse.empty()) descend.push_back(kept);
      keep(i, i + 1);
      run_begin = i + 1;
    }
    flush(block.size());
    block.erase(block.begin() + static_cast<std::ptrdiff_t>(kept), block.end());
    const std::size_t first = regions_.size() - placeholders.size();
    for (std::size_t k = 0; k < placeholders.size(); ++k) {
      regions_[first + k].block = &block;
      regions_[first + k].position = placeholders[k];
    }
    std::vector<ir::Block*> nested;
    for (std::size_t i : descend)
      for (ir::Block* b : {&block[i].body, &block[i].orelse})
        if (!b->empty()) nested.push_back(b);
    for (std::size_t i : switches) switch_leaves(block[i], nested);
    return nested;
  }

  // Whether `s` is the root of a tree of ifs that code generation makes one
  // switch (ir/range_switch.h). Such a tree is never part of a region, only
  // its leaves are: reversion would rebuild it as ifs on temporaries, which
  // no longer match, and each level would cost an unpredictable branch (a
  // staged 64-state automaton ran 6-9x slower so). The inner ifs of a tree
  // that does not qualify are not tried again as roots.
  bool is_switch(const ir::Stmt& s) {
    if (s.kind != ir::StmtKind::If || not_switch_roots_.contains(&s)) return false;
    ir::RangeSwitchMatch tree = ir::match_range_switch(s, [](const ir::Stmt&) { return false; });
    if (tree.found) return true;
    not_switch_roots_.insert(tree.inner.begin(), tree.inner.end());
    return false;
  }

  // Appends the reachable leaves of the switch tree rooted at `root`.
  void switch_leaves(ir::Stmt& root, std::vector<ir::Block*>& out) {
    const ir::RangeSwitchMatch tree =
        ir::match_range_switch(root, [](const ir::Stmt&) { return false; });
    std::unordered_set<const ir::Block*> leaves;
    for (const ir::RangeLeaf& leaf : tree.found->leaves) leaves.insert(leaf.block);
    std::vector<ir::Stmt*> inner{&root};
    while (!inner.empty()) {
      ir::Stmt* s = inner.back();
      inner.pop_back();
      for (ir::Block* b : {&s->body, &s->orelse}) {
        if (leaves.contains(b)) {
          if (!b->empty()) out.push_back(b);
        } else if (b->size() == 1 && b->front().kind == ir::StmtKind::If) {
          inner.push_back(&b->front());
        }
      }
    }
  }

  // The run as a function of its own (Region::function), to optimize later.
  void plan(ir::Block run) {
    // Variables: declared at the run's top (hoisted), declared inside it,
    // assigned, read.
    std::vector<std::uint32_t> hoisted;
    for (const ir::Stmt& s : run)
      if (s.kind == ir::StmtKind::Decl) hoisted.push_back(s.var.index);
    const std::unordered_set<std::uint32_t> hoisted_set(hoisted.begin(), hoisted.end());
    std::unordered_set<std::uint32_t> inside, assigned(hoisted.begin(), hoisted.end()), used;
    std::vector<const ir::Expr*> exprs;
    ir::for_each_stmt(run, [&](const ir::Stmt& s) {
      if (s.kind == ir::StmtKind::Decl && !hoisted_set.contains(s.var.index))
        inside.insert(s.var.index);
      if (s.kind == ir::StmtKind::Assign) assigned.insert(s.var.index);
      ir::for_each_expr(s, exprs, [&](const ir::Expr& e) {
        if (e.kind == ir::ExprKind::Var) used.insert(e.var.index);
      });
    });
    std::vector<std::uint32_t> params, locals(inside.begin(), inside.end());
    for (const std::unordered_set<std::uint32_t>* set : {&used, &assigned})
      for (std::uint32_t v : *set)
        if (!inside.contains(v)) params.push_back(v);
    std::sort(params.begin(), params.end());
    params.erase(std::unique(params.begin(), params.end()), params.end());
    std::sort(locals.begin(), locals.end());

    // The region as a function of its own: parameters, then its locals.
    Region& planned = regions_.emplace_back();
    ir::Function& region = planned.function;
    region.name = out_.name;
    region.ret = ir::Type::void_();
    region.kernel = out_.kernel;
    region.num_params = static_cast<std::uint32_t>(params.size());
    std::unordered_map<std::uint32_t, std::uint32_t> to_region;
    std::vector<std::uint32_t>& to_outer = planned.to_outer;
    std::vector<ir::VarId>& outputs = planned.outputs;
    for (const std::vector<std::uint32_t>* list : {&params, &locals}) {
      for (std::uint32_t v : *list) {
        const auto index = static_cast<std::uint32_t>(region.vars.size());
        ir::Variable var = out_.vars[v];
        var.kind = list == &params ? ir::VarKind::Param : ir::VarKind::Local;
        region.vars.push_back(std::move(var));
        to_region.emplace(v, index);
        to_outer.push_back(v);
        if (list == &params && assigned.contains(v)) outputs.push_back(ir::VarId{index});
      }
    }
    region.body = run;
    for (ir::Stmt& s : region.body) {
      if (s.kind != ir::StmtKind::Decl) continue;
      const ir::Type t = out_.vars[s.var.index].type;
      s = ir::Stmt::assign(s.var, s.expr ? s.expr : ir::constant(t, 0));
    }
    ir::VarRenamer().block(region.body,
                           [&](ir::VarId v) { return ir::VarId{to_region.at(v.index)}; });
    to_outer.resize(params.size());
    planned.hoisted = std::move(hoisted);
    planned.run = std::move(run);
  }

  // Puts the regions' code (optimized, or the runs as they were) in their
  // places, all of one block, in one pass over it.
  void splice(std::span<Region> regions) {
    ir::Block& block = *regions.front().block;
    std::vector<ir::Block> codes;
    codes.reserve(regions.size());
    std::size_t size = block.size() - regions.size();
    for (Region& r : regions) {
      codes.push_back(r.optimized ? optimized_code(r) : std::move(r.run));
      size += codes.back().size();
    }
    ir::Block rebuilt;
    rebuilt.reserve(size);
    std::size_t next = 0;
    for (std::size_t i = 0; i < block.size(); ++i) {
      if (next < regions.size() && regions[next].position == i) {
        ir::Block& code = codes[next++];
        rebuilt.insert(rebuilt.end(), std::make_move_iterator(code.begin()),
                       std::make_move_iterator(code.end()));
      } else {
        rebuilt.push_back(std::move(block[i]));
      }
    }
    block = std::move(rebuilt);
  }

  // Back into the function: the optimized region's own variables (none of
  // the input's locals survive as such) join it, renamed where their names
  // are taken.
  ir::Block optimized_code(Region& r) {
    std::optional<ir::Function>& optimized = r.optimized;
    std::vector<std::uint32_t>& to_outer = r.to_outer;
    for (std::size_t i = optimized->num_params; i < optimized->vars.size(); ++i) {
      ir::Variable var = std::move(optimized->vars[i]);
      var.name = unique_name(std::move(var.name));
      to_outer.push_back(static_cast<std::uint32_t>(out_.vars.size()));
      out_.vars.push_back(std::move(var));
    }
    ir::Block code;
    for (std::uint32_t v : r.hoisted) code.push_back(ir::Stmt::decl(ir::VarId{v}));
    ir::VarRenamer().block(optimized->body,
                           [&](ir::VarId v) { return ir::VarId{to_outer.at(v.index)}; });
    code.insert(code.end(), std::make_move_iterator(optimized->body.begin()),
                std::make_move_iterator(optimized->body.end()));
    return code;
  }

  std::string unique_name(std::string name) {
    if (names_.insert(name).second) return name;
    for (std::size_t k = names_.size();; ++k) {
      std::string candidate = name + "_" + std::to_string(k);
      if (names_.insert(candidate).second) return candidate;
    }
  }

  void add_to_report(const PegFunctionReport& r) {
    ++report_.regions;
    report_.peg_nodes += r.peg_nodes;
    report_.egraph_nodes += r.egraph_nodes;
    report_.egraph_classes += r.egraph_classes;
    report_.iterations = std::max(report_.iterations, r.iterations);
    report_.extractions += r.extractions;
    report_.extract_work += r.extract_work;
    report_.to_peg += r.to_peg;
    report_.saturate += r.saturate;
    report_.extract += r.extract;
    report_.revert += r.revert;
    report_.validate += r.validate;
    report_.time_nets += r.time_nets;
    if (r.validated) report_.validated = report_.validated.value_or(true) && *r.validated;
    if (r.optimized) {
      ++report_.regions_optimized;
      if (r.unchanged) ++report_.regions_unchanged;
      report_.optimized_nodes += r.ir_nodes;
      if (report_.stop.empty()) report_.stop = r.stop;
    } else if (report_.fallback.empty()) {
      report_.fallback = r.fallback;
    }
  }

  const ir::Module& module_;
  ir::Function out_;
  const PegOptions& options_;
  PegFunctionReport& report_;
  bool dump_;
  std::unordered_set<std::string> names_;
  std::vector<Region> regions_;  // in plan order
  std::unordered_set<const ir::Stmt*> not_switch_roots_;
};

}  // namespace

bool fits_one_region(const ir::Function& function, const PegOptions& options) {
  return ir::node_count(function.body, options.region_nodes) <= options.region_nodes;
}

ir::Function optimize_regions(const ir::Module& module, const ir::Function& function,
                              const PegOptions& options, PegFunctionReport& report, bool dump) {
  report.function = function.name;
  report.ir_nodes = ir::node_count(function.body);
  ir::Function out = RegionSplitter(module, function, options, report, dump).run();
  report.optimized = report.regions_optimized > 0;
  if (report.optimized && report.regions_optimized == report.regions) report.fallback.clear();
  return out;
}

}  // namespace augur::peg
