// Running lowered code: the state of one run and of one thread, the dispatch
// loop's entry point, and how traps are raised.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "runtime/ir/interp_code.h"

namespace augur::ir::interp {

// A memory range the program may access: a registered buffer or a block's
// shared array.
struct Region {
  std::uint64_t base = 0;
  std::uint64_t bytes = 0;
  std::string_view name;
  bool shared = false;
};

// One run() or run_kernel() call.
struct RunContext {
  const Program& program;
  std::span<const Region> shared;  // the running block's arrays, as Program::shared
  std::uint64_t steps_left = 0;    // counts down when program.step_limit != 0
};

// One thread of execution: its frame and where it stands.
struct Thread {
  Value* regs = nullptr;
  std::uint32_t pc = 0;
  Value result;  // after Stop::Returned
};

enum class Stop : std::uint8_t { Returned, AtBarrier };

// Runs `thread` from its pc until it returns or reaches a barrier (then its pc
// is just past the barrier). Traps throw jit::trap_error.
Stop execute(RunContext& context, Thread& thread);

// Raised by operations that trap; execute() turns it into a jit::trap_error
// located at the trapping instruction.
struct TrapSignal {
  std::string reason;
};
[[noreturn]] void trap(std::string reason);

// Throws the jit::trap_error for `reason` at instruction `pc` of a thread whose
// frame is `regs` (a kernel's thread and block coordinates are added).
[[noreturn]] void raise_trap(const Program& program, std::uint32_t pc, const Value* regs,
                             const std::string& reason);

// "(x,y,z)", as trap messages name threads and blocks.
std::string coordinates(Dim3 d);

// Accesses below this address trap as null dereferences.
inline constexpr std::uint64_t kNullPage = 4096;

// Traps unless [address, address + size) lies in a registered buffer or in a
// shared array of the running block.
void check_access(const RunContext& context, std::uint64_t address, unsigned size, Access access);
// Traps naming `address` and the nearest of `regions` (a shared array that
// was indexed directly, or every region of a bounds-checked run).
[[noreturn]] void out_of_bounds(Access access, std::uint64_t address, unsigned size,
                                std::span<const Region> regions);
[[noreturn]] void null_access(Access access, std::uint64_t address);
[[noreturn]] void misaligned_atomic(std::uint64_t address, unsigned size);

}  // namespace augur::ir::interp
