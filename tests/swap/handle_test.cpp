// jit::handle: publication, statistics, retirement, and a long call in flight
// keeping its version alive.
#include "jit/handle.h"

#include <atomic>
#include <cstdint>
#include <future>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "jit/error.h"
#include "swap_test_util.h"

namespace augur::swap::test {
namespace {

using counter_handle = jit::handle<std::int64_t(std::int64_t)>;

TEST(Handle, CallBeforeAnyPublicationThrows) {
  counter_handle h;
  EXPECT_THROW(h(1), jit::error);
  EXPECT_EQ(h.statistics().version, 0u);
}

TEST(Handle, ServesThePublishedVersion) {
  counter_handle h;
  publish_version(h, compile_version(5));
  EXPECT_EQ(h(2), 11);
  const jit::handle_statistics s = h.statistics();
  EXPECT_EQ(s.version, 1u);
  EXPECT_EQ(s.published, 1u);
  EXPECT_EQ(s.swaps, 0u);
  EXPECT_EQ(s.retired, 0u);
  EXPECT_EQ(s.tier, jit::tier::optimized);
}

TEST(Handle, ReplacedVersionIsFreedWhenNoCallIsInIt) {
  counter_handle h;
  auto first = compile_version(4);
  const std::string first_label = first->label();
  publish_version(h, first);
  EXPECT_EQ(h(10), 34);
  first.reset();  // the handle's reference is now the only one
  publish_version(h, compile_version(7));
  EXPECT_EQ(h(10), 37);
  const jit::handle_statistics s = h.statistics();
  EXPECT_EQ(s.version, 2u);
  EXPECT_EQ(s.swaps, 1u);
  EXPECT_EQ(s.retired, 1u);
  EXPECT_EQ(s.freed, 1u);
  EXPECT_FALSE(cpu::is_loaded(first_label));
}

// Another owner (a cache, say) keeps the code loaded after the handle frees it.
TEST(Handle, FreeingReleasesOnlyTheHandlesReference) {
  counter_handle h;
  const auto first = compile_version(4);
  publish_version(h, first);
  publish_version(h, compile_version(6));
  EXPECT_EQ(h.statistics().freed, 1u);
  EXPECT_TRUE(cpu::is_loaded(first->label()));
  EXPECT_EQ(reinterpret_cast<counter_fn>(first->address("f"))(1), 7);
}

TEST(Handle, CopiesShareOneSlot) {
  counter_handle h;
  const counter_handle copy = h;
  publish_version(h, compile_version(1));
  EXPECT_EQ(copy(1), 4);
  EXPECT_EQ(copy.statistics().version, 1u);
}

// The long call: version 1 calls a host function that blocks until the test
// lets it go; meanwhile version 2 is published and collection runs.
std::atomic<bool> call_entered{false};
std::atomic<bool> call_released{false};

void block_until_released() {
  call_entered.store(true);
  while (!call_released.load()) std::this_thread::yield();
}

TEST(Handle, LongCallInFlightKeepsItsVersionAlive) {
  ir::ExternTable externs;
  externs.add("block_until_released", &block_until_released, ir::Effect::Effectful);
  const std::string blocking =
      "extern fn block_until_released() -> void effect;\n"
      "fn f(x: i64) -> i64 {\n  @block_until_released();\n  return x * 3i64 + 100i64;\n}\n";

  counter_handle h;
  auto slow = compile_version(100, externs, blocking);
  const std::string slow_label = slow->label();
  publish_version(h, slow);
  slow.reset();

  auto in_flight = std::async(std::launch::async, [&] { return h(1); });
  while (!call_entered.load()) std::this_thread::yield();

  publish_version(h, compile_version(5));
  EXPECT_EQ(h(1), 8);  // new calls reach the new version at once
  EXPECT_EQ(h.reclaim(), 0u);
  EXPECT_EQ(h.statistics().freed, 0u);
  EXPECT_TRUE(cpu::is_loaded(slow_label));

  call_released.store(true);
  EXPECT_EQ(in_flight.get(), 103);  // finished on the version it started with
  EXPECT_EQ(h.reclaim(), 1u);
  EXPECT_EQ(h.statistics().freed, 1u);
  EXPECT_FALSE(cpu::is_loaded(slow_label));
}

TEST(Handle, CallSectionKeepsVersionsRetiredWhileOpen) {
  counter_handle h;
  auto first = compile_version(2);
  const std::string first_label = first->label();
  publish_version(h, first);
  first.reset();
  {
    const jit::call_section section;
    EXPECT_EQ(h.call(section, 1), 5);
    publish_version(h, compile_version(9));
    EXPECT_EQ(h.call(section, 1), 12);
    EXPECT_EQ(h(1), 12);  // an announced call nested in the section
    EXPECT_EQ(h.reclaim(), 0u);
    EXPECT_TRUE(cpu::is_loaded(first_label));
  }
  EXPECT_EQ(h.reclaim(), 1u);
  EXPECT_FALSE(cpu::is_loaded(first_label));
}

// A call from inside a call (a host function calling a handle) must not end
// the outer call's announcement: the outer version stays alive until the outer
// call returns, even if it is replaced and collected from inside.
struct nested_state {
  counter_handle inner;
  counter_handle outer;
  std::string outer_label;
  std::size_t freed_inside = 0;
  bool loaded_inside = false;
};
nested_state* nested = nullptr;

std::int64_t call_inner_and_replace_outer(std::int64_t x) {
  const std::int64_t r = nested->inner(x);
  publish_version(nested->outer, compile_version(3));
  nested->freed_inside = nested->outer.reclaim();
  nested->loaded_inside = cpu::is_loaded(nested->outer_label);
  return r;
}

TEST(Handle, NestedCallsKeepTheOuterVersionAlive) {
  ir::ExternTable externs;
  externs.add("call_inner", &call_inner_and_replace_outer, ir::Effect::Effectful);
  const std::string outer_text =
      "extern fn call_inner(i64) -> i64 effect;\n"
      "fn f(x: i64) -> i64 {\n  return @call_inner(x) + 1000i64;\n}\n";

  nested_state state;
  nested = &state;
  publish_version(state.inner, compile_version(1));
  auto outer_code = compile_version(0, externs, outer_text);
  state.outer_label = outer_code->label();
  publish_version(state.outer, outer_code);
  outer_code.reset();

  EXPECT_EQ(state.outer(2), 1007);
  EXPECT_EQ(state.freed_inside, 0u);
  EXPECT_TRUE(state.loaded_inside);
  EXPECT_EQ(state.outer(2), 9);
  EXPECT_EQ(state.outer.reclaim(), 1u);
  EXPECT_FALSE(cpu::is_loaded(state.outer_label));
  nested = nullptr;
}

}  // namespace
}  // namespace augur::swap::test
