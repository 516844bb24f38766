// The first stage's cost per recorded node from 1,000 to 1,000,000 nodes
// (flat is the target: docs/performance.md, "Staging at scale").
//
//   Nodes/N        sequential dyn ifs recording about N nodes: first-stage
//                  time per node (ns_per_node: the stage report's wall time;
//                  cpu_ns_per_node: this thread's CPU time for the whole
//                  jit::extract call, the figure to read on a loaded
//                  machine), peak heap per node, runs and events per node.
//   RunawayLoop/N  staging rule 8's dyn loop, stopped by max_nodes = N with
//                  its staging_error (N = 1,000,000 is the default budget).
//   PlainLoop/N    N statements from a plain `int` loop (staging rule 1's
//                  supported case: each iteration's statement differs, all
//                  from one call site), beside StatLoop/N, the same program
//                  with a `jit::stat` counter: first-stage CPU time per node.
//   NamedLoop/N    StatLoop with each iteration's value in a variable named
//                  "t" (made unique: t, t.1, t.2, ...).
//
// Peak heap is counted by replacing operator new and delete in this program
// (the aligned forms too), so it covers everything the extraction allocates,
// libraries included.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <time.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <utility>

#include "jit/jit.h"
#include "tests/support/staged_programs.h"

namespace {

std::atomic<std::int64_t> g_heap{0};
std::atomic<std::int64_t> g_peak{0};

void count(std::int64_t bytes) {
  const std::int64_t now = g_heap.fetch_add(bytes) + bytes;
  std::int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

void* counted_alloc(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (!p) throw std::bad_alloc();
  count(static_cast<std::int64_t>(malloc_usable_size(p)));
  return p;
}

void counted_free(void* p) noexcept {
  if (!p) return;
  g_heap.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)));
  std::free(p);
}

// Aligned blocks count the bytes asked for: malloc_usable_size() of a large
// aligned block also counts the alignment slack after it, address space that
// is never touched. Their sizes wait in a small table (few are live at once).
std::mutex g_aligned_mutex;
std::array<std::pair<void*, std::size_t>, 4096> g_aligned{};

void* counted_aligned_alloc(std::size_t size, std::align_val_t alignment) {
  const auto align = static_cast<std::size_t>(alignment);
  const std::size_t bytes = (size + align - 1) / align * align;
  void* p = std::aligned_alloc(align, bytes == 0 ? align : bytes);
  if (!p) throw std::bad_alloc();
  {
    const std::lock_guard lock(g_aligned_mutex);
    auto slot = std::find_if(g_aligned.begin(), g_aligned.end(),
                             [](const auto& entry) { return entry.first == nullptr; });
    if (slot == g_aligned.end()) std::abort();
    *slot = {p, size};
  }
  count(static_cast<std::int64_t>(size));
  return p;
}

void counted_aligned_free(void* p) noexcept {
  if (!p) return;
  {
    const std::lock_guard lock(g_aligned_mutex);
    auto slot = std::find_if(g_aligned.begin(), g_aligned.end(),
                             [&](const auto& entry) { return entry.first == p; });
    if (slot == g_aligned.end()) std::abort();
    g_heap.fetch_sub(static_cast<std::int64_t>(slot->second));
    *slot = {nullptr, 0};
  }
  std::free(p);
}

// This thread's CPU time, in nanoseconds.
double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// The peak heap above the current one while `f` runs, in bytes.
template <class F>
double peak_heap_of(F&& f) {
  const std::int64_t base = g_heap.load();
  g_peak.store(base);
  f();
  return static_cast<double>(g_peak.load() - base);
}

jit::dyn<int> sequential_ifs(jit::dyn<int> x, int count) {
  jit::dyn<int> y = 0;
  for (jit::stat<int> i = 0; i < count; ++i) {
    if (x > i) y = y + i;
  }
  return y;
}

void Nodes(benchmark::State& state) {
  // Two nodes per if (the branch, the assignment).
  const int ifs = static_cast<int>(state.range(0) / 2);
  jit::extract_options options;
  options.max_nodes = 2 * static_cast<std::uint64_t>(state.range(0));
  jit::stage_report last;
  double ns = 0, cpu_ns = 0, heap = 0, extractions = 0;
  for (auto _ : state) {
    const double cpu_start = thread_cpu_ns();
    heap += peak_heap_of([&] { last = jit::extract(options, sequential_ifs, ifs).report(); });
    cpu_ns += thread_cpu_ns() - cpu_start;
    ns += static_cast<double>(last.first_stage_time.count());
    ++extractions;
  }
  const double nodes = static_cast<double>(last.nodes);
  state.counters["nodes"] = nodes;
  state.counters["runs"] = static_cast<double>(last.control_flow_runs);
  state.counters["events_per_node"] = static_cast<double>(last.events) / nodes;
  state.counters["ns_per_node"] = ns / extractions / nodes;
  state.counters["cpu_ns_per_node"] = cpu_ns / extractions / nodes;
  state.counters["heap_bytes_per_node"] = heap / extractions / nodes;
}
BENCHMARK(Nodes)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->ArgNames({"nodes"})->Unit(
    benchmark::kMillisecond);

void RunawayLoop(benchmark::State& state) {
  jit::extract_options options;
  options.max_nodes = static_cast<std::uint64_t>(state.range(0));
  double heap = 0, extractions = 0;
  for (auto _ : state) {
    heap += peak_heap_of([&] {
      try {
        jit::extract(options, augur::staged::unrolls_forever);
        state.SkipWithError("the runaway loop extracted");
      } catch (const jit::staging_error&) {
      }
    });
    ++extractions;
  }
  state.counters["heap_bytes_per_node"] = heap / extractions / static_cast<double>(state.range(0));
}
// Statements that differ only in a constant, all from one call site when
// the counter is a plain int (Counter = int) and from one per iteration
// with jit::stat.
template <class Counter>
jit::dyn<int> select_chain(jit::dyn<int> x, int count) {
  jit::dyn<int> e = 0;
  for (Counter i = 0; i < count; ++i) e = jit::select(x > i, e, jit::dyn<int>(i));
  return e;
}

jit::dyn<int> named_select_chain(jit::dyn<int> x, int count) {
  jit::dyn<int> e = 0;
  for (jit::stat<int> i = 0; i < count; ++i) {
    jit::dyn<int> t("t", x > i);
    e = jit::select(t, e, jit::dyn<int>(i));
  }
  return e;
}

template <auto Program>
void Loop(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  jit::stage_report last;
  double cpu_ns = 0, extractions = 0;
  for (auto _ : state) {
    const double cpu_start = thread_cpu_ns();
    last = jit::extract(Program, count).report();
    cpu_ns += thread_cpu_ns() - cpu_start;
    ++extractions;
  }
  const double nodes = static_cast<double>(last.nodes);
  state.counters["nodes"] = nodes;
  state.counters["cpu_ns_per_node"] = cpu_ns / extractions / nodes;
}
void PlainLoop(benchmark::State& state) {
  Loop<select_chain<int>>(state);
}
void StatLoop(benchmark::State& state) {
  Loop<select_chain<jit::stat<int>>>(state);
}
void NamedLoop(benchmark::State& state) {
  Loop<named_select_chain>(state);
}

// The sizes of the one-call-site programs.
void statement_counts(benchmark::internal::Benchmark* b) {
  b->Arg(1'000)->Arg(10'000)->Arg(50'000)->ArgNames({"statements"})->Unit(benchmark::kMillisecond);
}

BENCHMARK(PlainLoop)->Apply(statement_counts);
BENCHMARK(StatLoop)->Apply(statement_counts);
BENCHMARK(NamedLoop)->Apply(statement_counts);

BENCHMARK(RunawayLoop)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->ArgNames({"max_nodes"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

void* operator new(std::size_t size) {
  return counted_alloc(size);
}
void* operator new[](std::size_t size) {
  return counted_alloc(size);
}
void operator delete(void* p) noexcept {
  counted_free(p);
}
void operator delete[](void* p) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  counted_free(p);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return counted_aligned_alloc(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return counted_aligned_alloc(size, alignment);
}
void operator delete(void* p, std::align_val_t) noexcept {
  counted_aligned_free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  counted_aligned_free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  counted_aligned_free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  counted_aligned_free(p);
}

BENCHMARK_MAIN();
