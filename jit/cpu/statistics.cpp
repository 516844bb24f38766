#include "jit/cpu/statistics.h"

#include <array>
#include <atomic>

namespace augur::cpu {

namespace {
// Atomics are trivially destructible: safe to touch during static destruction.
constinit std::array<std::atomic<std::uint64_t>, 13> counters{};
constinit std::array<std::atomic<std::int64_t>, 4> timers_ns{};

std::uint64_t get(stats::Counter c) {
  return counters[static_cast<std::size_t>(c)].load(std::memory_order_relaxed);
}
std::chrono::nanoseconds get(stats::Timer t) {
  return std::chrono::nanoseconds(
      timers_ns[static_cast<std::size_t>(t)].load(std::memory_order_relaxed));
}
}  // namespace

namespace stats {
void count(Counter counter, std::uint64_t n) {
  counters[static_cast<std::size_t>(counter)].fetch_add(n, std::memory_order_relaxed);
}
void add(Timer timer, std::chrono::steady_clock::duration elapsed) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count();
  timers_ns[static_cast<std::size_t>(timer)].fetch_add(ns, std::memory_order_relaxed);
}
}  // namespace stats

Statistics statistics() {
  using stats::Counter;
  using stats::Timer;
  Statistics s;
  s.modules_compiled = get(Counter::ModulesCompiled);
  s.objects_compiled = get(Counter::ObjectsCompiled);
  s.objects_loaded = get(Counter::ObjectsLoaded);
  s.versions_unloaded = get(Counter::VersionsUnloaded);
  s.tasks_on_pool = get(Counter::TasksOnPool);
  s.tasks_inline = get(Counter::TasksInline);
  s.modules_verified = get(Counter::ModulesVerified);
  s.functions_split = get(Counter::FunctionsSplit);
  s.pieces_compiled = get(Counter::PiecesCompiled);
  s.square_chains_cut = get(Counter::SquareChainsCut);
  s.multiply_chains_cut = get(Counter::MultiplyChainsCut);
  s.reduction_chains_cut = get(Counter::ReductionChainsCut);
  s.schedule_regions_bounded = get(Counter::ScheduleRegionsBounded);
  s.ir_to_llvm = get(Timer::IrToLlvm);
  s.optimization = get(Timer::Optimization);
  s.machine_code = get(Timer::MachineCode);
  s.total = get(Timer::Total);
  return s;
}

}  // namespace augur::cpu
