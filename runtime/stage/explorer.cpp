#include "runtime/stage/explorer.h"

#include <algorithm>
#include <atomic>
#include <type_traits>
#include <utility>

#include "jit/error.h"
#include "runtime/ir/printer.h"
#include "runtime/stage/symbolize.h"
#include "runtime/stage/types.h"

namespace augur::stage {

namespace {

thread_local Explorer* t_current = nullptr;
thread_local std::uint64_t t_token = 0;
std::atomic<std::uint64_t> g_next_token{1};

constexpr std::uint32_t kNoLive = ~std::uint32_t{0};

// Ends an exploration whose predictions already proved wrong, instead of a
// staging error there is no point in describing (it restarts anyway).
struct Mispredicted {};

const char* const kStatAdvice =
    "A C++ loop around dyn code needs its counter in a jit::stat<T>, and state that changes "
    "under dyn control flow must be a jit::stat<T>.";

}  // namespace

Explorer::Explorer(const jit::detail::generator& gen, jit::extract_options options)
    : gen_(gen), options_(std::move(options)), chain_(options_.tags, options_.max_depth) {
  stats_.tags_used = options_.tags;
}

Explorer::~Explorer() = default;

Explorer* Explorer::current() noexcept {
  return t_current;
}

std::uint64_t Explorer::current_token() noexcept {
  return t_token;
}

// ------------------------------------------------ explorations

void Explorer::explore() {
  // This explorer is the thread's current one until it is done (nested
  // extractions save and restore the outer one).
  struct Current {
    Explorer* saved_explorer;
    std::uint64_t saved_token;
    explicit Current(Explorer* e) : saved_explorer(t_current), saved_token(t_token) {
      t_current = e;
      t_token = 0;
    }
    ~Current() {
      t_current = saved_explorer;
      t_token = saved_token;
    }
  } current(this);

  while (true) {
    try {
      while (true) {
        ++stats_.prophecy_runs;
        exploration();
        if (!prophecies_.any_missed()) {
          narrow_predictions();
          release_exploration_state();
          return;
        }
        prophecies_.commit();
        if (stats_.prophecy_runs >= options_.max_prophecy_runs) {
          throw jit::prophecy_error(
              "the prophecies did not settle within " + std::to_string(options_.max_prophecy_runs) +
              " explorations of the first stage: " + prophecies_.describe_changed() +
              " (raise extract_options::max_prophecy_runs if the lattice "
              "is tall; otherwise requirements keep contradicting the "
              "predictions they depend on)");
        }
      }
    } catch (const ChainBroken&) {
      if (chain_.source() != jit::tag_source::frame_pointers) throw;
      // Some frame between extract() and an operation has no frame pointer:
      // start again, reading call chains with the unwinder.
      chain_ = CallChain(jit::tag_source::backtrace, options_.max_depth);
      prophecies_ = ProphecyTable();
      stats_.prophecy_runs = 0;
      stats_.tags_used = jit::tag_source::backtrace;
    }
  }
}

// Joining misses from bottom stops at a prediction every path satisfies, but
// it keeps requirements that only mispredicted explorations made (a path the
// final prediction no longer takes). So each prediction becomes what the
// paths under it require, and the first stage is explored again, for as long
// as that is still satisfied by every path; at the first miss or error the
// last satisfied prediction is restored and explored once more.
void Explorer::narrow_predictions() {
  while (stats_.prophecy_runs < options_.max_prophecy_runs && prophecies_.narrow() > 0) {
    ++stats_.prophecy_runs;
    bool satisfied = false;
    try {
      exploration();
      satisfied = !prophecies_.any_missed();
    } catch (const jit::error&) {
    }
    if (satisfied) continue;
    prophecies_.restore();
    ++stats_.prophecy_runs;
    exploration();
    return;
  }
}

void Explorer::exploration() {
  forget_hints();
  graph_.clear();
  pending_.clear();
  next_pending_ = 0;
  steps_.clear();
  reach_.clear();
  variables_.clear();
  node_run_.clear();
  node_pos_.clear();
  node_check_.clear();
  runs_in_exploration_ = 0;
  for (std::size_t i = 0; i < gen_.params.size(); ++i) {
    graph_.vars.push_back({"", to_ir(gen_.params[i]), true});
  }
  try {
    execute_run({});
    while (next_pending_ < pending_.size()) {
      const Pending next = pending_[next_pending_++];
      if (graph_[next.node].succ[next.which] != kNoNode) continue;  // a run took it on its way
      execute_run(next);
    }
  } catch (const ChainBroken&) {
    throw;
  } catch (const Mispredicted&) {
  } catch (...) {
    // With mispredicted prophecies the first stage may go where it never
    // would with the right ones: restart instead of reporting.
    if (!prophecies_.any_missed()) throw;
  }
}

void Explorer::release_exploration_state() {
  stats_.simplified_nodes = pool_.saved();
  forget_hints();
  pool_ = ExprPool();
  graph_.forget_tags();
  const auto release = [](auto& container) { std::decay_t<decltype(container)>().swap(container); };
  release(pending_);
  release(steps_);
  release(reach_);
  release(variables_);
  release(decisions_);
  release(node_run_);
  release(node_pos_);
  release(node_check_);
  release(live_tags_);
  release(free_live_);
  release(live_counts_);
}

void Explorer::execute_run(Pending target) {
  if (++runs_in_exploration_ > options_.max_runs) {
    throw jit::staging_error("the first stage ran more than " + std::to_string(options_.max_runs) +
                             " times in one exploration (raise extract_options::max_runs)");
  }
  ++stats_.control_flow_runs;
  begin_run(target);
  bool returned = false;
  try {
    invoke_generator();
    returned = true;
  } catch (const RunEnd&) {
  } catch (const ChainBroken&) {
    end_run();
    throw;
  } catch (const Mispredicted&) {
    end_run();
    throw;
  } catch (const jit::error&) {
    end_run();
    throw;
  } catch (...) {
    end_run();
    std::string what = "an exception not derived from std::exception";
    try {
      throw;
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    std::throw_with_nested(jit::staging_error(
        "the first stage threw in run " + std::to_string(stats_.control_flow_runs) +
        " of the extraction: " + what + " (the original exception is nested in this one)"));
  }
  end_run();
  if (returned && run_end_thrown_) {
    throw jit::staging_error(
        "first-stage code caught Augur's run-end signal (catch (...) without rethrow); code that "
        "runs in the first stage must rethrow what it does not know");
  }
}

[[gnu::noinline]] void Explorer::invoke_generator() {
  chain_.set_entry(__builtin_frame_address(0));
  gen_.run(gen_.self);
  // Keeps the call above from becoming a tail call: this frame is the entry
  // that call chains end at.
  asm volatile("" ::: "memory");
}

void Explorer::begin_run(Pending target) {
  token_ = g_next_token.fetch_add(1, std::memory_order_relaxed);
  t_token = token_;
  ++run_serial_;
  decisions_.clear();
  if (target.node != kNoNode) {
    decisions_.push_back(target.which != 0);
    for (std::uint32_t s = reach_[target.node]; s != kNoStep; s = steps_[s].parent) {
      decisions_.push_back(steps_[s].taken);
    }
    std::reverse(decisions_.begin(), decisions_.end());
  }
  mode_ = target.node == kNoNode ? Mode::Record : Mode::Replay;
  replayed_ = 0;
  expected_ = target.node == kNoNode ? kNoNode : 0;
  path_ = kNoStep;
  open_ = {};
  path_length_ = 0;
  last_branch_pos_ = kNoNode;
  state_.reset();
  live_tags_.clear();
  free_live_.clear();
  live_counts_.clear();
  uncaught_at_start_ = std::uncaught_exceptions();
  run_end_thrown_ = false;
  join_count_ = 0;
  forget_hints();
}

ExprPool& Explorer::pool() {
  // Following recorded code, the run builds the expressions of the node it
  // expects; having taken a new outcome, likely those of the other arm's
  // first nodes, where it may join recorded code (find_recorded()).
  const bool following = mode_ == Mode::Replay || mode_ == Mode::Verify;
  std::uint64_t source = kNoHints;
  if (following && expected_ != kNoNode) {
    source = expected_;
  } else if (mode_ == Mode::Record && join_count_ > 0) {
    source = std::uint64_t{1} << 32 | join_nodes_[0];
  }
  if (source != hinted_) {
    hinted_ = source;
    std::array<const ir::Expr*, 3 * kJoinCandidates> roots{};
    std::size_t count = 0;
    const auto add = [&](std::uint32_t n) {
      const Event& e = graph_[n].event;
      for (const ir::Expr* root : {e.expr.get(), e.ptr.get(), e.index.get()}) {
        if (root) roots[count++] = root;
      }
    };
    if (source != kNoHints && following) {
      add(expected_);
    } else if (source != kNoHints) {
      for (std::uint32_t i = 0; i < join_count_; ++i) add(join_nodes_[i]);
    }
    pool_.expect(std::span(roots.data(), count));
  }
  return pool_;
}

// The pool's hints point into the graph's events: dropped before the graph
// is, and when a run starts.
void Explorer::forget_hints() noexcept {
  hinted_ = kNoHints;
  pool_.expect({});
}

void Explorer::end_run() noexcept {
  token_ = 0;
  t_token = 0;
  mode_ = Mode::Done;
}

// ------------------------------------------------ events

Tag Explorer::make_tag() {
  ++stats_.tags;
  const CallChain::Result chain = chain_.read();
  TagHasher hasher;
  hasher.add(chain.hash);
  hasher.add(state_.hash());
  return hasher.finish();
}

// Replaying recorded code, the run's events are checked by their statements
// against the recorded nodes, so their tags are the nodes': no call chain to
// read. Past the replayed prefix every event reads its own.
Tag Explorer::event_tag() {
  if ((mode_ == Mode::Replay || mode_ == Mode::Verify) && expected_ != kNoNode) {
    return graph_[expected_].event.tag;
  }
  return make_tag();
}

bool Explorer::ignoring() const noexcept {
  // After the run ended, or while an exception unwinds the generator (a
  // destructor that emits code must not throw again).
  return mode_ == Mode::Done || std::uncaught_exceptions() > uncaught_at_start_;
}

bool Explorer::on_event(Event event) {
  ++stats_.events;
  switch (mode_) {
    case Mode::Replay:
      return replay(event);
    case Mode::Record:
      return record(event);
    case Mode::Verify:
      return verify(event);
    case Mode::Done:
      break;
  }
  return false;
}

void Explorer::visit(std::uint32_t n) {
  if (node_run_.size() < graph_.size()) {
    node_run_.resize(graph_.size(), 0);
    node_pos_.resize(graph_.size(), 0);
    node_check_.resize(graph_.size(), 0);
  }
  node_run_[n] = run_serial_;
  node_pos_[n] = path_length_++;
  if (graph_[n].event.kind == EventKind::Branch) last_branch_pos_ = node_pos_[n];
}

bool Explorer::replay(Event& event) {
  const std::uint32_t n = expected_;
  if (n == kNoNode) diverged(Event{}, event, "replaying the decisions of an earlier run");
  if (!same_event(graph_[n].event, event)) {
    diverged(graph_[n].event, event, "replaying the decisions of an earlier run");
  }
  visit(n);
  const Node& node = graph_[n];
  switch (event.kind) {
    case EventKind::Branch: {
      const bool d = decisions_[replayed_++];
      if (replayed_ == decisions_.size()) return take_new_outcome(n, d);
      expected_ = node.succ[d];
      return d;
    }
    case EventKind::Return:
    case EventKind::End:
      mode_ = Mode::Done;
      return false;
    default:
      expected_ = node.succ[0];
      return false;
  }
}

// The recorded node with the same tag and statement as `event`, if any. A
// run that took a new outcome at a branch mostly meets recorded code again
// where the branch's arms join, a few nodes down the other arm (N sequential
// ifs: at the next if); those nodes are tried first, from memory the run just
// read, before the event index, whose probe of a table far larger than the
// caches costs a miss at a million nodes. Both answers are the same: while
// exploring, a tag and statement are recorded once at most. `hash` gets the
// event's hash when the index was asked (for Graph::add).
std::uint32_t Explorer::find_recorded(const Event& event, std::uint32_t& hash) {
  for (std::uint32_t i = 0; i < join_count_; ++i) {
    if (join_tags_[i] == event.tag && same_event(graph_[join_nodes_[i]].event, event)) {
      const std::uint32_t n = join_nodes_[i];
      join_count_ = 0;
      return n;
    }
  }
  hash = EventIndex::hash(event);
  return graph_.find(event, hash);
}

// Takes the first nodes from `other_arm` on, down straight-line code to the
// first branch or end, as the places where this run may join recorded code.
void Explorer::expect_join(std::uint32_t other_arm) {
  join_count_ = 0;
  for (std::uint32_t n = other_arm; n != kNoNode && join_count_ < kJoinCandidates;) {
    const Node& node = graph_[n];
    join_nodes_[join_count_] = n;
    join_tags_[join_count_] = node.event.tag;
    ++join_count_;
    if (node.event.kind == EventKind::Branch || is_terminal(node.event.kind)) break;
    n = node.succ[0];
  }
}

bool Explorer::record(Event& event) {
  std::uint32_t hash = 0;
  if (const std::uint32_t known = find_recorded(event, hash); known != kNoNode) {
    if (known < node_run_.size() && node_run_[known] == run_serial_ &&
        (last_branch_pos_ == kNoNode || last_branch_pos_ < node_pos_[known])) {
      give_up_if_mispredicted();
      throw jit::staging_error(
          "a loop in the first stage came back to the same static state with no dyn branch in "
          "between, at `" +
          describe(event) + "` called from " + site() + ". " + kStatAdvice);
    }
    link(known);
    mode_ = Mode::Verify;
    return enter(known);
  }
  if (graph_.size() >= options_.max_nodes) {
    give_up_if_mispredicted();
    throw jit::staging_error(
        "the first stage recorded more than " + std::to_string(options_.max_nodes) +
        " statements; the last one, `" + describe(event) + "`, came from " + site() +
        ". A dyn loop whose static state changes on every iteration (a jit::stat updated in its "
        "body) unrolls without end; otherwise raise extract_options::max_nodes");
  }
  const EventKind kind = event.kind;
  const std::uint32_t n = graph_.add(std::move(event), hash);
  link(n);
  visit(n);
  if (kind == EventKind::Branch) {
    if (reach_.size() < graph_.size()) reach_.resize(graph_.size(), kNoStep);
    reach_[n] = path_;
    pending_.push_back({n, 0});
    path_ = push_step(path_, true);
    open_ = {n, 1};
    return true;
  }
  if (is_terminal(kind)) {
    mode_ = Mode::Done;
    return false;
  }
  open_ = {n, 0};
  return false;
}

std::uint32_t Explorer::push_step(std::uint32_t parent, bool taken) {
  steps_.push_back({parent, taken});
  return static_cast<std::uint32_t>(steps_.size() - 1);
}

// Takes an outcome of recorded branch n that no run took yet, and records
// what follows. The run's path is now a path to n (the one it was recorded
// on: the same tag leads to the same code, whatever the way there) and `taken`.
bool Explorer::take_new_outcome(std::uint32_t n, bool taken) {
  expect_join(graph_[n].succ[!taken]);
  path_ = push_step(reach_[n], taken);
  mode_ = Mode::Record;
  open_ = {n, static_cast<std::uint8_t>(taken)};
  return taken;
}

void Explorer::link(std::uint32_t target) {
  if (open_.node != kNoNode) graph_[open_.node].succ[open_.which] = target;
}

// Follows recorded node n, which the current event matched. At a branch with
// an outcome no run took yet the run takes it and records again (that is what
// keeps N sequential ifs at 2 runs); at one whose outcomes are both known it
// takes a recorded one, so the events after it can be checked.
bool Explorer::enter(std::uint32_t n) {
  if (node_check_.size() < graph_.size()) node_check_.resize(graph_.size(), 0);
  node_check_[n] = run_serial_;
  const Node& node = graph_[n];
  switch (node.event.kind) {
    case EventKind::Branch: {
      if (node.succ[0] == kNoNode || node.succ[1] == kNoNode) {
        // A branch on this run's path since what was visited before it.
        visit(n);
        return take_new_outcome(n, node.succ[1] == kNoNode);
      }
      expected_ = node.succ[1];
      return true;
    }
    case EventKind::Return:
    case EventKind::End:
      mode_ = Mode::Done;
      return false;
    default:
      expected_ = node.succ[0];
      return false;
  }
}

// After linking to known code, the run goes on along it until it comes round
// to a node it checked already or reaches the end: the same static state must
// lead to the same statements.
bool Explorer::verify(Event& event) {
  const std::uint32_t n = expected_;
  if (n == kNoNode || node_check_[n] == run_serial_) {
    mode_ = Mode::Done;
    run_end_thrown_ = true;
    throw RunEnd{};
  }
  if (!same_event(graph_[n].event, event)) {
    diverged(graph_[n].event, event,
             "after reaching code recorded for the same static state, a plain C++ value made the "
             "program differ");
  }
  return enter(n);
}

// ------------------------------------------------ first-stage operations

void Explorer::require_run(const char* what) const {
  if (token_ == 0) {
    throw jit::staging_error(std::string(what) + " outside a run of the first stage");
  }
}

std::uint32_t Explorer::variable_for(Tag identity, ir::Type type, const char* name,
                                     std::uint32_t shared_count) {
  auto [it, inserted] =
      variables_.try_emplace(identity, static_cast<std::uint32_t>(graph_.vars.size()));
  if (inserted) {
    graph_.vars.push_back({name ? name : "", type, false, shared_count});
  } else if (graph_.vars[it->second].type != type ||
             graph_.vars[it->second].shared_count != shared_count) {
    const GraphVar& earlier = graph_.vars[it->second];
    auto what = [](ir::Type t, std::uint32_t count) {
      return count > 0 ? "a shared " + t.pointee().name() + "[" + std::to_string(count) + "]"
                       : "type " + t.name();
    };
    throw jit::staging_error(
        "the first stage is not deterministic given its decisions: a variable declared at " +
        site() + " has " + what(type, shared_count) + " here and " +
        what(earlier.type, earlier.shared_count) + " in an earlier run");
  }
  return it->second;
}

jit::detail::var_ref Explorer::declare(ir::Type type, ir::ExprPtr init, const char* name) {
  require_run("a jit::dyn variable was created");
  return declare_variable(type, std::move(init), name, 0);
}

jit::detail::var_ref Explorer::declare_shared(ir::Type type, std::uint32_t count,
                                              const char* name) {
  require_run("a jit::gpu::shared_array was created");
  require_kernel("a jit::gpu::shared_array");
  return declare_variable(type, nullptr, name, count);
}

jit::detail::var_ref Explorer::declare_variable(ir::Type type, ir::ExprPtr init, const char* name,
                                                std::uint32_t shared_count) {
  if (ignoring()) return {token_, 0, kNoLive};
  const Tag tag = event_tag();
  // Objects declared at one point stay apart while they live at once (a C++
  // loop filling a vector); one declared again after the last died is the
  // same variable (a loop body's local).
  const std::uint32_t twin = live_counts_[tag]++;
  Tag identity = tag;
  if (twin > 0) {
    TagHasher h;
    h.add(tag);
    h.add(twin);
    identity = h.finish();
  }
  const std::uint32_t var = variable_for(identity, type, name, shared_count);
  std::uint32_t live;
  if (free_live_.empty()) {
    live = static_cast<std::uint32_t>(live_tags_.size());
    live_tags_.push_back(tag);
  } else {
    live = free_live_.back();
    free_live_.pop_back();
    live_tags_[live] = tag;
  }
  Event event;
  event.kind = EventKind::Decl;
  event.tag = tag;
  event.var = ir::VarId{var};
  event.expr = std::move(init);
  on_event(std::move(event));
  return {token_, var, live};
}

jit::detail::var_ref Explorer::parameter(std::uint32_t index) {
  require_run("a parameter was made");
  if (index >= gen_.params.size()) {
    throw jit::staging_error("parameter " + std::to_string(index) + " does not exist");
  }
  return {token_, index, kNoLive};
}

void Explorer::release(const jit::detail::var_ref& v) noexcept {
  if (v.token == 0 || v.token != token_ || v.live == kNoLive || v.live >= live_tags_.size()) return;
  auto it = live_counts_.find(live_tags_[v.live]);
  if (it != live_counts_.end() && it->second > 0) --it->second;
  free_live_.push_back(v.live);
}

void Explorer::assign(const jit::detail::var_ref& v, ir::ExprPtr value) {
  require_run("a jit::dyn variable was assigned");
  if (ignoring()) return;
  Event event;
  event.kind = EventKind::Assign;
  event.tag = event_tag();
  event.var = ir::VarId{v.id};
  event.expr = std::move(value);
  on_event(std::move(event));
}

void Explorer::store(ir::ExprPtr pointer, ir::ExprPtr index, ir::ExprPtr value) {
  require_run("a store through a jit::dyn pointer");
  if (ignoring()) return;
  Event event;
  event.kind = EventKind::Store;
  event.tag = event_tag();
  event.ptr = std::move(pointer);
  event.index = std::move(index);
  event.expr = std::move(value);
  on_event(std::move(event));
}

void Explorer::eval(ir::ExprPtr call) {
  require_run("an external function was called");
  if (ignoring()) return;
  Event event;
  event.kind = EventKind::Eval;
  event.tag = event_tag();
  event.expr = std::move(call);
  on_event(std::move(event));
}

void Explorer::barrier() {
  require_run("jit::gpu::barrier() was called");
  require_kernel("jit::gpu::barrier()");
  if (ignoring()) return;
  Event event;
  event.kind = EventKind::Barrier;
  event.tag = event_tag();
  on_event(std::move(event));
}

void Explorer::require_kernel(const char* what) const {
  if (!options_.kernel) {
    throw jit::staging_error(std::string(what) +
                             " used in a function that is not extracted as a GPU kernel (compile "
                             "it with jit::gpu::compile, or set extract_options::kernel)");
  }
}

bool Explorer::branch(ir::ExprPtr cond) {
  require_run("a jit::dyn condition was tested");
  if (ignoring()) return false;
  // A condition known now is no branch.
  if (cond->kind == ir::ExprKind::Const) return cond->bits != 0;
  Event event;
  event.kind = EventKind::Branch;
  event.tag = event_tag();
  event.expr = std::move(cond);
  return on_event(std::move(event));
}

void Explorer::finish(ir::ExprPtr value) {
  require_run("a staged function returned");
  if (ignoring()) return;
  Event event;
  event.kind = value ? EventKind::Return : EventKind::End;
  event.tag = event_tag();
  event.expr = std::move(value);
  on_event(std::move(event));
}

jit::detail::stat_handle Explorer::stat_attach(std::span<const std::byte> value) noexcept {
  if (token_ == 0) return {};
  return {token_, state_.attach(value)};
}

void Explorer::stat_update(const jit::detail::stat_handle& h, std::span<const std::byte> old_value,
                           std::span<const std::byte> new_value) noexcept {
  if (h.token == token_ && token_ != 0) state_.update(h.key, old_value, new_value);
}

void Explorer::stat_detach(const jit::detail::stat_handle& h,
                           std::span<const std::byte> value) noexcept {
  if (h.token == token_ && token_ != 0) state_.detach(h.key, value);
}

jit::detail::prophecy_slot& Explorer::prophecy_at(
    const std::type_info& lattice, jit::detail::source_site site,
    std::unique_ptr<jit::detail::prophecy_slot> (*make)()) {
  require_run("a jit::prophecy was constructed");
  return prophecies_.at(make_tag(), lattice, site, make);
}

void Explorer::prophecy_missed(jit::detail::prophecy_slot& slot) {
  prophecies_.missed(slot);
}

// ------------------------------------------------ messages

std::string Explorer::describe(const Event& e) const {
  ir::Function scratch;
  for (std::size_t i = 0; i < graph_.vars.size(); ++i) {
    const GraphVar& v = graph_.vars[i];
    scratch.vars.push_back({v.name.empty() ? std::string("v").append(std::to_string(i)) : v.name,
                            v.type, ir::VarKind::Local, 0});
  }
  auto text = [&](const ir::ExprPtr& x) { return x ? ir::print(*x, scratch) : std::string(); };
  auto var = [&]() {
    return e.var.index < scratch.vars.size() ? scratch.vars[e.var.index].name : "?";
  };
  std::string out;
  switch (e.kind) {
    case EventKind::Decl:
      out.append("var ").append(var());
      if (e.expr) out.append(" = ").append(text(e.expr));
      return out;
    case EventKind::Assign:
      return out.append(var()).append(" = ").append(text(e.expr));
    case EventKind::Store:
      return out.append(text(e.ptr))
          .append("[")
          .append(text(e.index))
          .append("] = ")
          .append(text(e.expr));
    case EventKind::Eval:
      return text(e.expr);
    case EventKind::Branch:
      return out.append("if (").append(text(e.expr)).append(")");
    case EventKind::Return:
      return out.append("return ").append(text(e.expr));
    case EventKind::End:
      return "return";
    case EventKind::Barrier:
      return "barrier";
  }
  return "?";
}

std::string Explorer::site() const {
  const std::vector<const void*> frames = chain_.frames();
  return describe_frames(frames);
}

void Explorer::give_up_if_mispredicted() {
  if (!prophecies_.any_missed()) return;
  mode_ = Mode::Done;
  run_end_thrown_ = true;
  throw Mispredicted{};
}

void Explorer::diverged(const Event& expected, const Event& actual, const char* why) {
  give_up_if_mispredicted();
  const bool known = expected.expr || expected.kind != EventKind::Eval;
  throw jit::staging_error(
      std::string("the first stage is not deterministic given its decisions: ") + why + ", run " +
      std::to_string(stats_.control_flow_runs) + " did `" + describe(actual) + "`" +
      (known ? " where `" + describe(expected) + "` was recorded" : "") + ", called from " +
      site() +
      ". The first stage must do the same whenever it reaches the same point with the same "
      "jit::stat values: do not read clocks, random numbers or global state that changes "
      "between runs. " +
      kStatAdvice);
}

}  // namespace augur::stage
