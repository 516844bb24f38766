// The equality-saturation loop: search every rule, apply the matches, rebuild;
// repeat until nothing changes or a limit is hit (egg's Runner).
//
// Each iteration searches a clean e-graph, in parallel on TBB when threads >
// 1, for the rules that can match it (every operator of their patterns is in
// some class; the others would find nothing): every such rule's candidate
// classes are cut into fixed-size chunks, each chunk
// fills its own buffer, and the buffers are joined in chunk order. Matches are
// then applied one rule at a time in rule order, and the e-graph is rebuilt.
// So the e-graph after each iteration, and the report's counts, do not depend
// on the thread count. The time limit is CPU time of the thread that calls
// run() (TimeNet, time_net.h), so a busy machine, where the thread waits for
// a core, does not make it fire sooner; it can still stop a run at a
// different iteration on a slower machine. The other limits are exact.
//
// When a limit stops a run mid-iteration the e-graph is still rebuilt, so it is
// clean and every class still holds only equal terms: extraction gives a
// correct program, just a less optimized one.
//
// Incremental (semi-naive) search. A rule whose left-hand side is one
// pattern, and whose guards and right-hand side read only its match
// (Rewrite::incremental), searched at iteration k with every match applied
// at k (not banned, the run not stopped), needs at k + 1 only its new
// matches: EGraph::is_new e-nodes are those added, moved to another class
// or given other children at the last rebuild, and data_changed() the
// classes whose analysis data changed. A match at k + 1 that uses no new
// e-node and binds no such class was a match at k, the same classes
// binding the same variables: each e-node it uses was in the same class
// over the same children (so its root, subpatterns and variables are the
// same classes, and a repeated variable the same class), and its guards
// read the same data (a rule that reads the e-nodes of the classes it binds,
// Reads::Classes, counts a match binding a class EGraph::changed lists as
// new too). So it was found at k and applied, or (by induction)
// existed at the first search and was applied at some iteration, and
// applying it again adds nothing (a pattern instantiates the same e-nodes
// over the same classes, merged already; an incremental builder adds
// nothing new by contract). Every class such a match binds is at most the
// pattern's depth below its root, and a new e-node is in a class the last
// rebuild changed or has a child that merged (which changed), so only the
// candidates that far above a changed class are searched
// (changed_neighbourhood.h), and only the matches that use a new e-node or
// a data_changed class are kept (the matcher counts the new e-nodes on its
// path). A rule banned, or the first search of a run, looks at everything.
// The backoff counts what a search found (for an incremental search, its
// new matches), so the bans, and so the result, can differ from a
// non-incremental run's where some rule nears its match limit.
//
// A guarded rule that is not incremental (its guards read more than the
// match) finds again every match it applied; the search drops a match whose
// right-hand side pattern is in the matched class already
// (Rewrite::worth_applying) before asking the guards, which may walk the
// graph, and the backoff does not count it.
//
// A thread keeps its last run's match buffers, up to 1 MiB, for its next
// run: a client such as the PEG optimizer runs one small e-graph after
// another.
//
// The backoff scheduler (egg's BackoffScheduler) keeps explosive rules
// (associativity, commutativity) from starving the rest: a rule whose matches
// in one iteration exceed its limit is skipped for a few iterations, and both
// its limit and its ban grow each time. A run is saturated only when no rule
// is banned and an iteration changed nothing.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/eqsat/egraph.h"
#include "runtime/eqsat/rewrite.h"
#include "runtime/eqsat/rule_index.h"

namespace augur::eqsat {

enum class StopReason : std::uint8_t { Saturated, IterationLimit, NodeLimit, TimeLimit };
std::string_view to_string(StopReason reason);

struct Limits {
  std::size_t iterations = 30;
  std::size_t nodes = 10'000;  // live e-nodes (EGraph::node_count)
  // CPU time of the calling thread (TimeNet; with threads > 1, the pool's
  // own threads are not counted).
  std::chrono::nanoseconds time = std::chrono::seconds(5);

  // egg's Runner defaults: 30 iterations, 10,000 e-nodes, 5 s.
  static Limits egg() { return {}; }
  // The default for a JIT (docs/egraph.md says why): rewrite chains of up to
  // 8 steps and 6,000 e-nodes stop the run, so its result does not depend on
  // the machine's load; 100 ms of the thread's CPU time is only a safety net,
  // well above what those budgets take (a 500-node region of the corpus: at
  // most a few ms).
  static Limits jit() { return {8, 6'000, std::chrono::milliseconds(100)}; }
};

struct Backoff {
  bool enabled = true;
  std::size_t match_limit = 1'000;  // matches a rule may have in one iteration
  std::size_t ban_length = 5;       // iterations it is then skipped
};

struct RunOptions {
  Limits limits = Limits::jit();
  Backoff backoff;
  unsigned threads = 1;  // search-phase threads; the results do not depend on it
  // Incremental search (above). Off, every rule looks at every candidate at
  // every iteration and applies every match again (egg's schedule): the
  // classes and e-nodes after each iteration are the same unless a ban
  // differs; e-node ids may differ (a match applied again before the
  // rebuild can add an e-node the rebuild finds congruent).
  bool incremental = true;
};

struct RuleReport {
  // The rule's name, valid while the rules are (a copy per rule and run was
  // an allocation each for ~1,500 rules per region of the PEG optimizer).
  std::string_view name;
  std::size_t matches = 0;  // over all iterations, after guards
  std::size_t applied = 0;  // matches that merged two classes
  std::size_t bans = 0;
};

struct IterationReport {
  std::size_t nodes = 0;  // at the start of the iteration
  std::size_t classes = 0;
  std::size_t matches = 0;
  std::size_t applied = 0;
  std::size_t congruences = 0;  // merges rebuild() found
  std::chrono::nanoseconds search{0};
  std::chrono::nanoseconds apply{0};
  std::chrono::nanoseconds rebuild{0};
};

struct Report {
  StopReason stop = StopReason::Saturated;
  std::size_t iterations = 0;
  std::size_t nodes = 0;  // at the end
  std::size_t classes = 0;
  std::chrono::nanoseconds search{0};
  std::chrono::nanoseconds apply{0};
  std::chrono::nanoseconds rebuild{0};
  std::chrono::nanoseconds total{0};
  std::vector<IterationReport> per_iteration;
  std::vector<RuleReport> rules;

  // A short human-readable summary.
  std::string summary() const;
};

class Runner {
 public:
  explicit Runner(RunOptions options = {});
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  ~Runner();

  const RunOptions& options() const { return options_; }

  // Saturates `egraph` with `rules` (names should be distinct: the report and
  // explanations go by name).
  Report run(EGraph& egraph, std::span<const Rewrite> rules);
  // The same with a rule set indexed once (rule_index.h), for a client that
  // runs one rule set on many e-graphs.
  Report run(EGraph& egraph, const RuleIndex& rules);

 private:
  class Pool;
  RunOptions options_;
  std::unique_ptr<Pool> pool_;
};

}  // namespace augur::eqsat
