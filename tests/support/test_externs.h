// Host functions that random programs call, one set per effect, and the log
// the effectful ones write so a test can compare the effects of two executions.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/ir/externs.h"

namespace augur::testing {

// Binds every test extern (names and signatures below) in one table.
//  pure:     t_mix_i32(i32, i32) -> i32, t_mix_i64(i64) -> i64, t_blend_f64(f64, f64) -> f64
//  readonly: t_hash_bytes(u8*, u64) -> u64   (FNV-1a of n bytes)
//  effect:   t_log(i64) -> void, t_tick(i64) -> i64, t_poke(u8*, u64, u64) -> void
//            (t_poke(p, n, v) writes the byte v >> 8 at p[v % n])
ir::ExternTable test_externs();

// What the effectful externs did on this thread since the last reset, in call
// order: each call appends its arguments (t_poke: the index and the byte).
// Thread-local, so tests running in parallel threads do not mix their logs.
const std::vector<std::uint64_t>& effect_log();
void reset_effect_log();

}  // namespace augur::testing
