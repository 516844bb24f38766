// Reclamation when things go wrong: a failing process-wide barrier, a long
// call on another handle, a call_section closed on another thread, and calls
// from thread_local destructors after the thread's record was given back.
#include <atomic>
#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "jit/handle.h"
#include "runtime/swap/barrier.h"
#include "runtime/swap/epoch.h"
#include "swap_test_util.h"

namespace augur::swap::test {
namespace {

using counter_handle = jit::handle<std::int64_t(std::int64_t)>;

// A version whose call runs `hook` (a host function) before returning 3x + 100.
std::shared_ptr<cpu::CompiledCode> compile_calling(void (*hook)()) {
  ir::ExternTable externs;
  externs.add("hook", hook, ir::Effect::Effectful);
  return compile_version(100, externs,
                         "extern fn hook() -> void effect;\n"
                         "fn f(x: i64) -> i64 {\n  @hook();\n  return x * 3i64 + 100i64;\n}\n");
}

TEST(Reclamation, FailingBarrierFreesNothing) {
  counter_handle h;
  auto first = compile_version(4);
  const std::string first_label = first->label();
  publish_version(h, first);
  first.reset();

  fail_heavy_barrier_for_testing(true);
  publish_version(h, compile_version(5));
  EXPECT_EQ(h.reclaim(), 0u);
  EXPECT_EQ(h.statistics().freed, 0u);
  EXPECT_TRUE(cpu::is_loaded(first_label));

  fail_heavy_barrier_for_testing(false);
  EXPECT_EQ(h.reclaim(), 1u);
  EXPECT_FALSE(cpu::is_loaded(first_label));
}

// A call blocked in a host function until released.
std::atomic<bool> blocked{false};
std::atomic<bool> released{false};
void block() {
  blocked.store(true);
  while (!released.load()) std::this_thread::yield();
}

TEST(Reclamation, LongCallOnOneHandleDoesNotPinAnotherHandlesVersions) {
  blocked.store(false);
  released.store(false);
  counter_handle a;
  publish_version(a, compile_calling(&block));
  auto in_flight = std::async(std::launch::async, [&] { return a(1); });
  while (!blocked.load()) std::this_thread::yield();

  counter_handle b;
  auto first = compile_version(4);
  const std::string first_label = first->label();
  publish_version(b, first);
  first.reset();
  EXPECT_EQ(b(1), 7);
  publish_version(b, compile_version(5));
  EXPECT_EQ(b.statistics().freed, 1u);
  EXPECT_FALSE(cpu::is_loaded(first_label));

  released.store(true);
  EXPECT_EQ(in_flight.get(), 103);
}

// A version that a call held when its handle last collected is freed by a
// later publication of any handle once the call returns, though its own handle
// never publishes again.
TEST(Reclamation, AHeldVersionIsFreedByAnotherHandlesPublication) {
  blocked.store(false);
  released.store(false);
  counter_handle a;
  auto slow = compile_calling(&block);
  const std::string slow_label = slow->label();
  publish_version(a, slow);
  slow.reset();
  auto in_flight = std::async(std::launch::async, [&] { return a(1); });
  while (!blocked.load()) std::this_thread::yield();
  publish_version(a, compile_version(5));
  EXPECT_EQ(a.statistics().freed, 0u);
  released.store(true);
  EXPECT_EQ(in_flight.get(), 103);
  EXPECT_TRUE(cpu::is_loaded(slow_label));

  counter_handle b;
  publish_version(b, compile_version(1));
  EXPECT_EQ(a.statistics().freed, 1u);
  EXPECT_FALSE(cpu::is_loaded(slow_label));
}

// A call into handle `inner` made from inside a call to `outer` must keep
// inner's version alive too: inner's code replaces and collects inner while it
// runs.
struct nested_state {
  counter_handle outer;
  counter_handle inner;
  std::string inner_label;
  bool loaded_inside = false;
};
nested_state* nested = nullptr;

std::int64_t call_inner(std::int64_t x) {
  return nested->inner(x);
}
void replace_inner() {
  publish_version(nested->inner, compile_version(5));
  nested->inner.reclaim();
  nested->loaded_inside = cpu::is_loaded(nested->inner_label);
}

TEST(Reclamation, NestedCallIntoAnotherHandleKeepsItsVersionAlive) {
  nested_state state;
  nested = &state;
  ir::ExternTable externs;
  externs.add("call_inner", &call_inner, ir::Effect::Effectful);
  publish_version(state.outer, compile_version(0, externs,
                                               "extern fn call_inner(i64) -> i64 effect;\n"
                                               "fn f(x: i64) -> i64 {\n"
                                               "  return @call_inner(x) + 1000i64;\n}\n"));
  auto inner = compile_calling(&replace_inner);
  state.inner_label = inner->label();
  publish_version(state.inner, inner);
  inner.reset();

  EXPECT_EQ(state.outer(1), 1103);
  EXPECT_TRUE(state.loaded_inside);
  EXPECT_EQ(state.inner.reclaim(), 1u);
  EXPECT_FALSE(cpu::is_loaded(state.inner_label));
  nested = nullptr;
}

// A call_section opened on this thread and closed on another, while this
// thread is inside a call: closing it must not end this thread's announcement.
struct section_state {
  counter_handle h;
  std::optional<jit::call_section> section;
  std::string label;
  bool loaded_after_collection = false;
};
section_state* sectioned = nullptr;

void close_section_elsewhere_then_replace() {
  std::thread([] { sectioned->section.reset(); }).join();
  publish_version(sectioned->h, compile_version(5));
  sectioned->h.reclaim();
  sectioned->loaded_after_collection = cpu::is_loaded(sectioned->label);
}

TEST(Reclamation, CallSectionClosedOnAnotherThreadLeavesThisThreadsCallAnnounced) {
  section_state state;
  sectioned = &state;
  auto code = compile_calling(&close_section_elsewhere_then_replace);
  state.label = code->label();
  publish_version(state.h, code);
  code.reset();

  state.section.emplace();
  EXPECT_EQ(state.h(1), 103);
  EXPECT_TRUE(state.loaded_after_collection);
  EXPECT_EQ(state.h.reclaim(), 1u);
  EXPECT_FALSE(cpu::is_loaded(state.label));
  sectioned = nullptr;
}

// Constructed before the thread's first handle call, so destroyed after the
// thread's record was given back; its destructor calls the handle.
struct late_caller {
  counter_handle* h = nullptr;
  std::int64_t* result = nullptr;
  ~late_caller() {
    if (h != nullptr) *result = (*h)(2);
  }
};

TEST(Reclamation, CallFromAThreadLocalDestructorAfterTheRecordIsGone) {
  counter_handle h;
  publish_version(h, compile_version(1));
  EXPECT_EQ(h(0), 1);  // this thread's record, taken for the whole test
  const std::size_t taken_before = taken_reader_records_for_testing();
  for (int t = 0; t < 4; ++t) {
    std::int64_t result = 0;
    std::thread([&] {
      thread_local late_caller caller;
      caller.h = &h;
      caller.result = &result;
      EXPECT_EQ(h(1), 4);
    }).join();
    EXPECT_EQ(result, 7);
    // Every record the thread took, for its life or for the late call, is back.
    EXPECT_EQ(taken_reader_records_for_testing(), taken_before);
  }
}

}  // namespace
}  // namespace augur::swap::test
