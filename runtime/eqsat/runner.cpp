#include "runtime/eqsat/runner.h"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <sstream>
#include <tuple>

#include "runtime/eqsat/changed_neighbourhood.h"
#include "runtime/eqsat/time_net.h"

namespace augur::eqsat {

namespace {

// What a thread keeps of its last run's match buffers, at most.
constexpr std::size_t kKeptBufferBytes = std::size_t{1} << 20;

using Clock = std::chrono::steady_clock;

// Candidate classes per search task. Fixed, so that how matches are cut into
// buffers, and hence their order, never depends on the thread count.
constexpr std::size_t kChunk = 64;

struct RuleState {
  std::size_t banned_until = 0;
  std::size_t bans = 0;
};

struct Task {
  std::uint32_t rule;
  std::span<const Id> classes;
  bool only_new;  // searched incrementally: the matches the last rebuild made
};

// value × 2^doublings, saturating instead of overflowing.
std::size_t doubled(std::size_t value, std::size_t doublings) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max() / 2;
  for (std::size_t i = 0; i < doublings && value <= kMax; ++i) value *= 2;
  return value;
}

}  // namespace

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::Saturated:
      return "saturated";
    case StopReason::IterationLimit:
      return "iteration limit";
    case StopReason::NodeLimit:
      return "node limit";
    case StopReason::TimeLimit:
      return "time limit";
  }
  return "?";
}

std::string Report::summary() const {
  const auto ms = [](std::chrono::nanoseconds d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  std::ostringstream out;
  out << "stop: " << to_string(stop) << ", iterations: " << iterations << ", e-nodes: " << nodes
      << ", e-classes: " << classes << ", time: " << ms(total) << " ms (search " << ms(search)
      << ", apply " << ms(apply) << ", rebuild " << ms(rebuild) << ")";
  return out.str();
}

class Runner::Pool {
 public:
  explicit Pool(unsigned threads) : arena_(static_cast<int>(threads)) {}
  // parallel_for hands the e-graph to its workers and joins them inside
  // libtbb, which ThreadSanitizer cannot see: the release and acquire pairs
  // around each chunk show it both hand-offs.
  template <class F>
  void for_each(std::size_t n, const F& f) {
    std::atomic<bool> published{false};
    std::atomic<std::size_t> finished{0};
    published.store(true, std::memory_order_release);
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          static_cast<void>(published.load(std::memory_order_acquire));
                          for (std::size_t i = r.begin(); i != r.end(); ++i) f(i);
                          finished.fetch_add(1, std::memory_order_release);
                        });
    });
    static_cast<void>(finished.load(std::memory_order_acquire));
  }

 private:
  tbb::task_arena arena_;
};

Runner::Runner(RunOptions options) : options_(options) {
  if (options_.threads == 0) options_.threads = 1;
  if (options_.threads > 1) pool_ = std::make_unique<Pool>(options_.threads);
}

Runner::~Runner() = default;

Report Runner::run(EGraph& egraph, std::span<const Rewrite> rules) {
  return run(egraph, RuleIndex(rules));
}

Report Runner::run(EGraph& egraph, const RuleIndex& index) {
  const std::span<const Rewrite> rules = index.rules();
  const Clock::time_point start = Clock::now();
  const Limits& limits = options_.limits;
  const Backoff& backoff = options_.backoff;
  TimeNet net(limits.time);
  const auto out_of_time = [&] { return net.reached(); };

  Report report;
  std::vector<RuleState> state(rules.size());
  // Interned when the rule first applies: most rules never do, and an
  // e-graph interns a new name with an allocation.
  std::vector<std::optional<Reason>> reasons(rules.size());
  report.rules.reserve(rules.size());
  for (const Rewrite& r : rules) report.rules.push_back(RuleReport{r.name()});
  egraph.rebuild();

  std::optional<StopReason> stop;
  // Incremental search (runner.h): a rule whose every match at its last
  // search was applied needs only the matches new since; `everything[r]`
  // when it must look at every candidate (its first search, the first after
  // a ban, or a rule that is not incremental).
  std::vector<char> everything(rules.size(), 1);
  const auto incremental = [&](std::uint32_t r) {
    return options_.incremental && index.incremental(r) &&
           index.depth(r) <= ChangedNeighbourhood::kMaxReach;
  };
  std::uint32_t reach = 0;
  for (std::uint32_t r = 0; r < rules.size(); ++r)
    if (incremental(r)) reach = std::max(reach, index.depth(r));
  ChangedNeighbourhood near(reach);
  // EGraph::data_changed and changed, for the matcher.
  StampedSet data_changed, changed;
  // Per-iteration buffers, kept so that their memory is reused.
  std::vector<std::uint32_t> active;  // rules that may match, in order
  std::vector<char> only_new;         // by position in `active`
  std::vector<char> searched;         // by position in `active`: not banned
  std::vector<Id> near_candidates;    // of the rules searched incrementally
  // By position in `active`: its range of near_candidates. Rules with one
  // root operator and depth share one range, filtered once an iteration
  // (the PEG optimizer has dozens of rules per operator).
  struct NearRange {
    std::size_t begin = 0, end = 0;
  };
  std::vector<NearRange> near_range;
  // The ranges filtered this iteration: the unfiltered list (data), depth, range.
  std::vector<std::tuple<const Id*, std::uint32_t, NearRange>> near_shared;
  std::vector<std::size_t> threshold(rules.size(), 0);
  std::vector<Task> tasks;
  std::vector<std::size_t> first_task;  // by position in `active`, and one past the last
  // The match buffers, kept on the thread from one run to the next (a
  // client runs one small e-graph after another: an allocation per buffer
  // and growth otherwise), up to kKeptBufferBytes; taken, so that a run
  // nested on this thread makes its own.
  thread_local std::vector<Matches> kept_buffers;
  std::vector<Matches> found = std::move(kept_buffers);
  struct GiveBack {
    std::vector<Matches>& found;
    ~GiveBack() {
      std::size_t bytes = 0;
      for (const Matches& m : found) bytes += m.memory_bytes();
      if (bytes <= kKeptBufferBytes && kept_buffers.size() < found.size())
        kept_buffers = std::move(found);
    }
  } give_back{found};
  std::vector<char> apply;
  for (std::size_t iteration = 0;; ++iteration) {
    if (iteration >= limits.iterations)
      stop = StopReason::IterationLimit;
    else if (egraph.node_count() > limits.nodes)
      stop = StopReason::NodeLimit;
    else if (out_of_time())
      stop = StopReason::TimeLimit;
    if (stop) break;

    IterationReport it;
    it.nodes = egraph.node_count();
    it.classes = egraph.class_count();

    // Search: read-only, chunked, possibly parallel. A rule one of whose
    // operators no class holds has no match and no task.
    Clock::time_point t = Clock::now();
    // The rules rooted at an operator some class holds, in rule order.
    active.assign(index.rooted_anywhere().begin(), index.rooted_anywhere().end());
    for (const Op op : index.root_ops()) {
      if (egraph.classes_with(op).empty()) continue;
      const std::span<const std::uint32_t> rooted = index.rooted_at(op);
      active.insert(active.end(), rooted.begin(), rooted.end());
    }
    std::sort(active.begin(), active.end());
    searched.assign(active.size(), 0);
    only_new.assign(active.size(), 0);
    near_range.assign(active.size(), {});
    near_shared.clear();
    near_candidates.clear();
    if (iteration > 0 && reach > 0) {
      near.find(egraph);
      data_changed.clear(egraph.id_count());
      for (Id c : egraph.data_changed()) data_changed.insert(eqsat::index(c));
      changed.clear(egraph.id_count());
      for (Id c : egraph.changed()) changed.insert(eqsat::index(c));
    }
    for (std::size_t a = 0; a < active.size(); ++a) {
      const std::uint32_t r = active[a];
      if (backoff.enabled && iteration < state[r].banned_until) {
        everything[r] = 1;  // the matches of the iterations it skips are not applied
        continue;
      }
      searched[a] = 1;
      threshold[r] = backoff.enabled ? doubled(backoff.match_limit, state[r].bans)
                                     : std::numeric_limits<std::size_t>::max() - 1;
      if (everything[r] || !incremental(r) || !index.may_match(r, egraph)) continue;
      only_new[a] = 1;
      const std::span<const Id> all = index.candidates(r, egraph);
      const std::uint32_t depth = index.depth(r);
      const auto shared = std::find_if(near_shared.begin(), near_shared.end(), [&](const auto& n) {
        return std::get<0>(n) == all.data() && std::get<1>(n) == depth;
      });
      if (shared != near_shared.end()) {
        near_range[a] = std::get<2>(*shared);
        continue;
      }
      const std::size_t begin = near_candidates.size();
      for (Id c : all)
        if (near.within(c, depth)) near_candidates.push_back(c);
      near_range[a] = {begin, near_candidates.size()};
      near_shared.emplace_back(all.data(), depth, near_range[a]);
    }
    tasks.clear();
    first_task.assign(active.size() + 1, 0);
    for (std::size_t a = 0; a < active.size(); ++a) {
      const std::uint32_t r = active[a];
      first_task[a] = tasks.size();
      if (!searched[a] || !index.may_match(r, egraph)) continue;
      const std::span<const Id> candidates =
          only_new[a] ? std::span<const Id>(near_candidates)
                            .subspan(near_range[a].begin, near_range[a].end - near_range[a].begin)
                      : index.candidates(r, egraph);
      for (std::size_t i = 0; i < candidates.size(); i += kChunk)
        tasks.push_back(
            {r, candidates.subspan(i, std::min(kChunk, candidates.size() - i)), only_new[a] != 0});
    }
    first_task[active.size()] = tasks.size();
    while (found.size() < tasks.size()) found.emplace_back(0, 0);
    for (std::size_t i = 0; i < tasks.size(); ++i) index.reset(tasks[i].rule, found[i]);
    const auto search = [&](std::size_t i) {
      const Task& task = tasks[i];
      const std::size_t t = threshold[task.rule];
      const Rewrite& rule = rules[task.rule];
      const Query::Filter guards = [&rule, &egraph](Id root, const Subst& s) {
        return rule.worth_applying(egraph, root, s);
      };
      rule.query().search_classes(egraph, task.classes, found[i],
                                  t + (t < std::numeric_limits<std::size_t>::max()), guards,
                                  !task.only_new                   ? nullptr
                                  : index.reads_classes(task.rule) ? &changed
                                                                   : &data_changed);
    };
    if (pool_ && tasks.size() > 1) {
      pool_->for_each(tasks.size(), search);
    } else {
      // The clock is looked at between chunks, so that one search over a
      // large e-graph cannot overrun the safety net by more than a chunk.
      for (std::size_t i = 0; i < tasks.size() && !stop; ++i) {
        search(i);
        if (i % 16 == 15 && out_of_time()) stop = StopReason::TimeLimit;
      }
    }
    // A rule's matches are its tasks' buffers, in task order. The backoff
    // counts what the search found: for an incremental search, the new
    // matches.
    apply.assign(active.size(), 0);
    for (std::size_t a = 0; a < active.size(); ++a) {
      const std::uint32_t r = active[a];
      if (!searched[a]) continue;
      std::size_t total = 0;
      for (std::size_t i = first_task[a]; i < first_task[a + 1]; ++i) total += found[i].size();
      if (backoff.enabled && total > threshold[r]) {
        state[r].banned_until = iteration + doubled(backoff.ban_length, state[r].bans);
        ++state[r].bans;
        ++report.rules[r].bans;
        everything[r] = 1;
        continue;
      }
      // Every match is applied below (or the run stops): the next search
      // needs only the new ones.
      everything[r] = 0;
      it.matches += total;
      report.rules[r].matches += total;
      apply[a] = total > 0;
    }
    it.search = Clock::now() - t;
    if (!stop && out_of_time()) stop = StopReason::TimeLimit;

    // Apply, rule by rule in order.
    t = Clock::now();
    std::size_t applied_since_check = 0;
    for (std::size_t a = 0; a < active.size() && !stop; ++a) {
      if (!apply[a]) continue;
      const std::uint32_t r = active[a];
      for (std::size_t task = first_task[a]; task < first_task[a + 1] && !stop; ++task) {
        const Matches& m = found[task];
        for (std::size_t i = 0; i < m.size(); ++i) {
          if (!reasons[r]) reasons[r] = egraph.reason(rules[r].name());
          if (rules[r].apply(egraph, m.root(i), m[i], *reasons[r])) {
            ++it.applied;
            ++report.rules[r].applied;
          }
          if (egraph.node_count() > limits.nodes) {
            stop = StopReason::NodeLimit;
            break;
          }
          if (++applied_since_check == 64) {
            applied_since_check = 0;
            if (out_of_time()) {
              stop = StopReason::TimeLimit;
              break;
            }
          }
        }
      }
      if (!stop && out_of_time()) stop = StopReason::TimeLimit;
    }
    it.apply = Clock::now() - t;

    t = Clock::now();
    it.congruences = egraph.rebuild();
    it.rebuild = Clock::now() - t;
    report.search += it.search;
    report.apply += it.apply;
    report.rebuild += it.rebuild;
    report.per_iteration.push_back(it);
    if (stop) break;

    const bool unchanged =
        it.applied == 0 && egraph.node_count() == it.nodes && egraph.class_count() == it.classes;
    if (unchanged) {
      // Saturated unless a rule was skipped for a ban: then skip ahead to the
      // iteration where the first ban ends (egg's can_stop).
      std::size_t next_unban = std::numeric_limits<std::size_t>::max();
      for (const RuleState& s : state)
        if (s.banned_until > iteration) next_unban = std::min(next_unban, s.banned_until);
      if (next_unban == std::numeric_limits<std::size_t>::max()) {
        stop = StopReason::Saturated;
        break;
      }
      const std::size_t delta = next_unban - std::min(next_unban, iteration + 1);
      for (RuleState& s : state)
        if (s.banned_until > iteration) s.banned_until -= delta;
    }
  }
  report.stop = *stop;
  report.iterations = report.per_iteration.size();
  report.nodes = egraph.node_count();
  report.classes = egraph.class_count();
  report.total = Clock::now() - start;
  return report;
}

}  // namespace augur::eqsat
