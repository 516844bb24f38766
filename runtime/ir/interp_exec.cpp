// The dispatch loop: one switch over the operations of interp_code.h, with
// every data operation inlined from interp_ops.h.
#include <string>

#include "runtime/ir/interp_ops.h"
#include "runtime/ir/interp_run.h"

namespace augur::ir::interp {

namespace {

// kCounted: count steps against the step limit. A separate instantiation
// keeps the count out of the loop of runs without a limit.
template <bool kCounted>
Stop run_loop(RunContext& ctx, Thread& thread) {
  const Instr* const code = ctx.program.code.data();
  const Instr* ip = code + thread.pc;
  Value* const r = thread.regs;
  try {
    for (;;) {
      if constexpr (kCounted) {
        if (ctx.steps_left == 0) [[unlikely]]
          trap("step limit of " + std::to_string(ctx.program.step_limit) + " exceeded");
        --ctx.steps_left;
      }
      const Instr& in = *ip;
      switch (in.op) {
        case Op::Jump:
          ip = code + in.c;
          continue;
        case Op::JumpIfTrue:
          ip = r[in.a].bits != 0 ? code + in.c : ip + 1;
          continue;
        case Op::JumpIfFalse:
          ip = r[in.a].bits == 0 ? code + in.c : ip + 1;
          continue;
        case Op::Ret:
          thread.result = r[in.a];
          return Stop::Returned;
        case Op::RetVoid:
          thread.result = Value{};
          return Stop::Returned;
        case Op::Barrier:
          thread.pc = static_cast<std::uint32_t>(ip - code) + 1;
          return Stop::AtBarrier;
#define AUGUR_INTERP_CASE(name, ...) \
  case Op::name:                     \
    __VA_ARGS__::exec(in, r, ctx);   \
    break;
          AUGUR_INTERP_DATA_OPS(AUGUR_INTERP_CASE)
#undef AUGUR_INTERP_CASE
#define AUGUR_INTERP_BRANCH_CASES(name, ...)                                    \
  case Op::JumpIf##name:                                                        \
    ip = __VA_ARGS__::apply(r[in.a].bits, r[in.b].bits) ? code + in.c : ip + 1; \
    continue;                                                                   \
  case Op::JumpUnless##name:                                                    \
    ip = __VA_ARGS__::apply(r[in.a].bits, r[in.b].bits) ? ip + 1 : code + in.c; \
    continue;
          AUGUR_INTERP_COMPARE_OPS(AUGUR_INTERP_BRANCH_CASES)
#undef AUGUR_INTERP_BRANCH_CASES
        default:  // every operation has its case above
          __builtin_unreachable();
      }
      ++ip;
    }
  } catch (const TrapSignal& signal) {
    raise_trap(ctx.program, static_cast<std::uint32_t>(ip - code), r, signal.reason);
  }
}

}  // namespace

Stop execute(RunContext& context, Thread& thread) {
  return context.program.step_limit != 0 ? run_loop<true>(context, thread)
                                         : run_loop<false>(context, thread);
}

}  // namespace augur::ir::interp
