// Process-wide counters of the CPU backend.
#pragma once

#include <chrono>
#include <cstdint>

namespace augur::cpu {

struct Statistics {
  std::uint64_t modules_compiled = 0;   // by compile()
  std::uint64_t objects_compiled = 0;   // by compile_object()
  std::uint64_t objects_loaded = 0;     // by load_object()
  std::uint64_t versions_unloaded = 0;  // CompiledCode destroyed
  std::uint64_t tasks_on_pool = 0;      // ORC tasks run on the TBB pool
  std::uint64_t tasks_inline = 0;       // ORC tasks run by the thread that dispatched them
  std::uint64_t modules_verified = 0;   // passes of LLVM's verifier, before and after optimization
  std::uint64_t functions_split = 0;    // IR functions compiled as parts (split_plan.h)
  std::uint64_t pieces_compiled = 0;    // modules of split compilations, each to an object
  std::uint64_t square_chains_cut = 0;  // cuts in chains of squarings (chain_cuts.h)
  std::uint64_t multiply_chains_cut = 0;       // later cuts in chains of multiplies (chain_cuts.h)
  std::uint64_t reduction_chains_cut = 0;      // cuts in reduction chains (chain_cuts.h)
  std::uint64_t schedule_regions_bounded = 0;  // long blocks given labels (schedule_regions.h)
  std::chrono::nanoseconds ir_to_llvm{0};      // Augur IR → LLVM IR, verification included
  std::chrono::nanoseconds optimization{0};    // the pass pipeline
  std::chrono::nanoseconds machine_code{0};    // LLVM IR → object code
  std::chrono::nanoseconds total{0};           // compile() and load_object(), linking included
};

Statistics statistics();

// Recording, for the backend itself.
namespace stats {
enum class Counter : std::uint8_t {
  ModulesCompiled,
  ObjectsCompiled,
  ObjectsLoaded,
  VersionsUnloaded,
  TasksOnPool,
  TasksInline,
  ModulesVerified,
  FunctionsSplit,
  PiecesCompiled,
  SquareChainsCut,
  MultiplyChainsCut,
  ReductionChainsCut,
  ScheduleRegionsBounded
};
enum class Timer : std::uint8_t { IrToLlvm, Optimization, MachineCode, Total };

void count(Counter counter, std::uint64_t n = 1);
void add(Timer timer, std::chrono::steady_clock::duration elapsed);

// Adds the time from its construction to its destruction to a timer.
class Scope {
 public:
  explicit Scope(Timer timer) : timer_(timer), start_(std::chrono::steady_clock::now()) {}
  ~Scope() { add(timer_, std::chrono::steady_clock::now() - start_); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Timer timer_;
  std::chrono::steady_clock::time_point start_;
};
}  // namespace stats

}  // namespace augur::cpu
