#include "tests/support/test_externs.h"

#include <bit>

namespace augur::testing {

namespace {

// The log must outlive any one test and be reachable from plain function
// pointers, hence thread-local state.
thread_local std::vector<std::uint64_t> g_effect_log;

std::int32_t t_mix_i32(std::int32_t a, std::int32_t b) {
  const std::uint32_t x = static_cast<std::uint32_t>(a) * 0x9e3779b1u;
  return static_cast<std::int32_t>(std::rotl(x, 13) ^ static_cast<std::uint32_t>(b));
}

std::int64_t t_mix_i64(std::int64_t a) {
  std::uint64_t x = static_cast<std::uint64_t>(a);
  x ^= x >> 31;
  x *= 0xd6e8feb86659fd93ull;
  return static_cast<std::int64_t>(x ^ (x >> 29));
}

double t_blend_f64(double a, double b) {
  return a * 0.75 - b * 0.25;
}

std::uint64_t t_hash_bytes(const std::uint8_t* p, std::uint64_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint64_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

void t_log(std::int64_t v) {
  g_effect_log.push_back(static_cast<std::uint64_t>(v));
}

std::int64_t t_tick(std::int64_t v) {
  g_effect_log.push_back(static_cast<std::uint64_t>(v));
  // Depends on how many effects came before: reordering calls changes results.
  return t_mix_i64(static_cast<std::int64_t>(static_cast<std::uint64_t>(v) + g_effect_log.size()));
}

void t_poke(std::uint8_t* p, std::uint64_t n, std::uint64_t v) {
  const std::uint64_t index = v % n;
  p[index] = static_cast<std::uint8_t>(v >> 8);
  g_effect_log.push_back(index);
  g_effect_log.push_back(p[index]);
}

}  // namespace

ir::ExternTable test_externs() {
  using ir::Effect;
  ir::ExternTable table;
  table.add("t_mix_i32", &t_mix_i32, Effect::Pure);
  table.add("t_mix_i64", &t_mix_i64, Effect::Pure);
  table.add("t_blend_f64", &t_blend_f64, Effect::Pure);
  table.add("t_hash_bytes", &t_hash_bytes, Effect::ReadOnly);
  table.add("t_log", &t_log, Effect::Effectful);
  table.add("t_tick", &t_tick, Effect::Effectful);
  table.add("t_poke", &t_poke, Effect::Effectful);
  return table;
}

const std::vector<std::uint64_t>& effect_log() {
  return g_effect_log;
}

void reset_effect_log() {
  g_effect_log.clear();
}

}  // namespace augur::testing
