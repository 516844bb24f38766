// Extraction by repeated execution (docs/staging.md, "How extraction works").
//
// An exploration runs the generator until every outcome of every dyn branch
// has been seen. A run replays a recorded prefix of decisions (checking that
// it meets the recorded events again), takes the one pending outcome it was
// started for, and then records new events, taking `true` at each new branch
// and leaving `false` pending. When it reaches an event that the graph
// already has (same tag, same statement), the code from there is known: it
// links to it and follows it, checking the recorded events against what the
// program does, up to the first branch with an outcome no run has taken yet,
// where it takes that outcome and records again. It stops at the end or when
// it comes round to a node it checked already. Pending outcomes are run in
// the order they were found and skipped if a run took them on its way. So
// runs <= 1 + branch nodes, and N sequential dyn ifs cost 2 runs.
//
// The path to a pending outcome is kept as a persistent stack (a step per
// decision, pointing to the step before): paths share their prefixes, so the
// memory of an exploration is linear in the nodes it records.
//
// Prophecies: every run of an exploration sees the same predictions. Misses
// are collected over the whole exploration; if there were any, the
// predictions are joined and the exploration starts again, until one has none.
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "jit/detail/staging.h"
#include "jit/extract.h"
#include "runtime/ir/ir.h"
#include "runtime/stage/expr_pool.h"
#include "runtime/stage/graph.h"
#include "runtime/stage/prophecies.h"
#include "runtime/stage/static_state.h"
#include "runtime/stage/tag.h"

namespace augur::stage {

// Ends a run early; not a std::exception so that `catch (const std::exception&)`
// in first-stage code does not stop it (`catch (...)` must rethrow).
struct RunEnd {};

struct ExploreStats {
  std::uint64_t control_flow_runs = 0;
  std::uint32_t prophecy_runs = 0;
  std::uint64_t events = 0;
  std::uint64_t tags = 0;
  std::uint64_t simplified_nodes = 0;  // the expression pool's saved()
  jit::tag_source tags_used = jit::tag_source::frame_pointers;
};

class Explorer {
 public:
  Explorer(const jit::detail::generator& gen, jit::extract_options options);
  ~Explorer();
  Explorer(const Explorer&) = delete;
  Explorer& operator=(const Explorer&) = delete;

  // Runs explorations until the prophecies are stable; the final graph is
  // graph(). Then it frees what only exploring needs (the expression pool,
  // the graph's event index, the paths), before structuring allocates the IR.
  void explore();

  const Graph& graph() const { return graph_; }
  const ExploreStats& stats() const { return stats_; }
  const jit::extract_options& options() const { return options_; }
  // The expression pool, told which recorded expressions the run is likely
  // to build next (ExprPool::expect).
  ExprPool& pool();

  // The explorer whose run is executing on this thread, or null.
  static Explorer* current() noexcept;
  // The token of the run executing on this thread (0: none).
  static std::uint64_t current_token() noexcept;
  std::uint64_t token() const noexcept { return token_; }

  // ------------------------------------------------ first-stage operations
  jit::detail::var_ref declare(ir::Type type, ir::ExprPtr init, const char* name);
  // A kernel's block-shared array (`type` is the pointer type).
  jit::detail::var_ref declare_shared(ir::Type type, std::uint32_t count, const char* name);
  jit::detail::var_ref parameter(std::uint32_t index);
  void release(const jit::detail::var_ref& v) noexcept;
  void assign(const jit::detail::var_ref& v, ir::ExprPtr value);
  void store(ir::ExprPtr pointer, ir::ExprPtr index, ir::ExprPtr value);
  void eval(ir::ExprPtr call);
  void barrier();
  // Throws a staging_error naming `what` unless a kernel is being extracted.
  void require_kernel(const char* what) const;
  bool branch(ir::ExprPtr cond);
  void finish(ir::ExprPtr value);

  jit::detail::stat_handle stat_attach(std::span<const std::byte> value) noexcept;
  void stat_update(const jit::detail::stat_handle& h, std::span<const std::byte> old_value,
                   std::span<const std::byte> new_value) noexcept;
  void stat_detach(const jit::detail::stat_handle& h, std::span<const std::byte> value) noexcept;

  jit::detail::prophecy_slot& prophecy_at(const std::type_info& lattice,
                                          jit::detail::source_site site,
                                          std::unique_ptr<jit::detail::prophecy_slot> (*make)());
  void prophecy_missed(jit::detail::prophecy_slot& slot);

 private:
  enum class Mode : std::uint8_t { Replay, Record, Verify, Done };

  // An outcome of a recorded branch that no run has taken yet.
  struct Pending {
    std::uint32_t node = kNoNode;
    std::uint8_t which = 0;
  };

  // One decision of a path: the outcome taken, and the step before it.
  struct PathStep {
    std::uint32_t parent = kNoStep;
    bool taken = false;
  };
  static constexpr std::uint32_t kNoStep = ~std::uint32_t{0};

  // An edge to fill: succ[which] of `node`, or the graph's entry.
  struct OpenEdge {
    std::uint32_t node = kNoNode;
    std::uint8_t which = 0;
  };

  void exploration();
  void release_exploration_state();
  void narrow_predictions();
  void execute_run(Pending target);
  void invoke_generator();
  void begin_run(Pending target);
  std::uint32_t push_step(std::uint32_t parent, bool taken);
  bool take_new_outcome(std::uint32_t n, bool taken);
  void end_run() noexcept;
  void forget_hints() noexcept;

  Tag make_tag();
  Tag event_tag();
  bool ignoring() const noexcept;
  void require_run(const char* what) const;
  bool on_event(Event event);
  std::uint32_t find_recorded(const Event& event, std::uint32_t& hash);
  void expect_join(std::uint32_t other_arm);
  bool replay(Event& event);
  bool record(Event& event);
  bool verify(Event& event);
  bool enter(std::uint32_t n);
  void link(std::uint32_t target);
  void visit(std::uint32_t n);

  jit::detail::var_ref declare_variable(ir::Type type, ir::ExprPtr init, const char* name,
                                        std::uint32_t shared_count);
  std::uint32_t variable_for(Tag identity, ir::Type type, const char* name,
                             std::uint32_t shared_count);

  void give_up_if_mispredicted();
  [[noreturn]] void diverged(const Event& expected, const Event& actual, const char* why);
  std::string describe(const Event& e) const;
  std::string site() const;

  const jit::detail::generator& gen_;
  jit::extract_options options_;
  CallChain chain_;
  ProphecyTable prophecies_;
  ExploreStats stats_;
  ExprPool pool_;

  // Per exploration.
  Graph graph_;
  BigVector<Pending> pending_;  // in the order found; pending_[next_pending_] runs next
  std::size_t next_pending_ = 0;
  BigVector<PathStep> steps_;       // the decisions of every path, prefixes shared
  BigVector<std::uint32_t> reach_;  // per branch node: the last step of a path to it
  std::unordered_map<Tag, std::uint32_t, TagHash> variables_;  // identity -> graph variable
  std::uint64_t runs_in_exploration_ = 0;

  // Per run.
  std::uint64_t token_ = 0;
  Mode mode_ = Mode::Done;
  std::vector<bool> decisions_;   // the path to replay, its last entry the outcome to take
  std::size_t replayed_ = 0;      // decisions consumed by the replay
  std::uint32_t path_ = kNoStep;  // while recording: the last step of the run's path
  std::uint32_t expected_ = kNoNode;
  // What the pool's hints were taken from (pool()): a node expected, or
  // (bit 32 set) the join candidates from a node on.
  static constexpr std::uint64_t kNoHints = ~std::uint64_t{0};
  std::uint64_t hinted_ = kNoHints;
  OpenEdge open_;
  std::uint32_t path_length_ = 0;        // nodes this run went through
  BigVector<std::uint32_t> node_run_;    // per node: the run that last visited it
  BigVector<std::uint32_t> node_pos_;    // per node: its position on that run's path
  BigVector<std::uint32_t> node_check_;  // per node: the run that last verified it
  std::uint32_t run_serial_ = 0;
  std::uint32_t last_branch_pos_ = kNoNode;
  // Where a run that took a new outcome is likely to meet recorded code
  // again (find_recorded()): the first nodes of the branch's other arm.
  static constexpr std::uint32_t kJoinCandidates = 8;
  std::array<std::uint32_t, kJoinCandidates> join_nodes_{};
  std::array<Tag, kJoinCandidates> join_tags_{};
  std::uint32_t join_count_ = 0;
  StaticState state_;
  std::vector<Tag> live_tags_;  // per live dyn object of the run: its declaration tag
  std::vector<std::uint32_t> free_live_;
  std::unordered_map<Tag, std::uint32_t, TagHash> live_counts_;
  int uncaught_at_start_ = 0;
  bool run_end_thrown_ = false;
};

}  // namespace augur::stage
