// Hot-swap: a call through a jit::handle beside a raw function pointer to the
// same code; the latency from respecialize() to publication beside a direct
// O2 compile; the time to a first result with tiering beside a direct O2
// compile (and the quick-tier candidates: O0 code and the IR interpreter).
// Prints the ratios last (of the medians, with --benchmark_repetitions).
//
//   build/release/bench/swap_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "bench/support/ratio_reporter.h"
#include "jit/cpu/compile.h"
#include "jit/jit.h"
#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"
#include "runtime/stage/extract.h"
#include "tests/support/staged_programs.h"

namespace {

using namespace augur;
using clock_type = std::chrono::steady_clock;

using Increment = std::int64_t (*)(std::int64_t);

std::shared_ptr<cpu::CompiledCode> compile_ir(const char* text, int opt_level) {
  cpu::Options options;
  options.opt_level = opt_level;
  options.invokers = false;
  return cpu::compile(ir::parse_module(text), {}, options);
}

// The trivial function: one add.
const std::shared_ptr<cpu::CompiledCode>& increment_code() {
  static const auto code = compile_ir("fn inc(x: i64) -> i64 {\n  return x + 1i64;\n}\n", 2);
  return code;
}

void raw_call(benchmark::State& state) {
  const auto fn = reinterpret_cast<Increment>(increment_code()->address("inc"));
  std::int64_t x = 0;
  for (auto _ : state) {
    x = fn(x);
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(raw_call)->ThreadRange(1, 2);

void handle_call(benchmark::State& state) {
  static jit::handle<std::int64_t(std::int64_t)> h;
  if (state.thread_index() == 0) {
    h.publish(reinterpret_cast<Increment>(increment_code()->address("inc")), increment_code());
  }
  std::int64_t x = 0;
  for (auto _ : state) {
    x = h(x);
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(handle_call)->ThreadRange(1, 2);

// Calls inside one call_section: no announcement per call.
void handle_call_in_section(benchmark::State& state) {
  static jit::handle<std::int64_t(std::int64_t)> h;
  if (state.thread_index() == 0) {
    h.publish(reinterpret_cast<Increment>(increment_code()->address("inc")), increment_code());
  }
  std::int64_t x = 0;
  const jit::call_section section;
  for (auto _ : state) {
    x = h.call(section, x);
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(handle_call_in_section)->ThreadRange(1, 2);

using augur::staged::power;

using Power = double (*)(double);

double elapsed(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// Extraction + compile at `opt_level` + one call.
void first_result_compiled(benchmark::State& state) {
  const int opt_level = static_cast<int>(state.range(0));
  for (auto _ : state) {
    const auto start = clock_type::now();
    const jit::extraction e = jit::extract(power, 13);
    cpu::Options options;
    options.opt_level = opt_level;
    options.invokers = false;
    const auto code = cpu::compile(e.result().extracted.module, {}, options);
    benchmark::DoNotOptimize(reinterpret_cast<Power>(code->address(e.name()))(1.5));
    state.SetIterationTime(elapsed(start));
  }
}
BENCHMARK(first_result_compiled)->Arg(0)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

// Extraction + the interpreter's preparation + one call.
void first_result_interpreter(benchmark::State& state) {
  for (auto _ : state) {
    const auto start = clock_type::now();
    const jit::extraction e = jit::extract(power, 13);
    const ir::Interpreter interpreter(e.result().extracted.module, e.name());
    benchmark::DoNotOptimize(interpreter.call<double>(1.5));
    state.SetIterationTime(elapsed(start));
  }
}
BENCHMARK(first_result_interpreter)->UseManualTime()->Unit(benchmark::kMillisecond);

// jit::compile(..., jit::tiered) + one call; the background O2 compile is
// waited for outside the timed part, and the cache is emptied there so that
// every iteration compiles.
void first_result_tiered(benchmark::State& state) {
  for (auto _ : state) {
    jit::clear_cache();
    const auto start = clock_type::now();
    auto h = jit::compile(power, 13, jit::tiered);
    benchmark::DoNotOptimize(h(1.5));
    state.SetIterationTime(elapsed(start));
    h.wait();
  }
}
BENCHMARK(first_result_tiered)->UseManualTime()->Unit(benchmark::kMillisecond);

// respecialize() until the new version is live (wait() returns after it is
// published), compiling: the cache is emptied outside the timed part.
void respecialize_to_publication(benchmark::State& state) {
  auto h = jit::compile(power, 13, jit::tiered);
  h.wait();
  int n = 13;
  for (auto _ : state) {
    n = n == 13 ? 7 : 13;
    jit::clear_cache();
    const auto start = clock_type::now();
    h.respecialize(n);
    h.wait();
    state.SetIterationTime(elapsed(start));
  }
}
BENCHMARK(respecialize_to_publication)->UseManualTime()->Unit(benchmark::kMillisecond);

// Per call, once ready: the quick-tier candidates and O2, on power(x, 13).
void call_compiled(benchmark::State& state) {
  const jit::extraction e = jit::extract(power, 13);
  cpu::Options options;
  options.opt_level = static_cast<int>(state.range(0));
  options.invokers = false;
  const auto code = cpu::compile(e.result().extracted.module, {}, options);
  const auto fn = reinterpret_cast<Power>(code->address(e.name()));
  double x = 1.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(fn(x));
    x += 1e-9;
  }
}
BENCHMARK(call_compiled)->Arg(0)->Arg(2);

void call_interpreter(benchmark::State& state) {
  const jit::extraction e = jit::extract(power, 13);
  const ir::Interpreter interpreter(e.result().extracted.module, e.name());
  double x = 1.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(interpreter.call<double>(x));
    x += 1e-9;
  }
}
BENCHMARK(call_interpreter);

void print_ratios(const bench::RatioReporter& r) {
  r.print_ratio("handle call / raw pointer call, 1 thread", "handle_call/threads:1",
                "raw_call/threads:1");
  r.print_ratio("handle call / raw pointer call, 2 threads", "handle_call/threads:2",
                "raw_call/threads:2");
  r.print_ratio("handle call in a call_section / raw pointer call, 1 thread",
                "handle_call_in_section/threads:1", "raw_call/threads:1");
  r.print_ratio("handle call in a call_section / raw pointer call, 2 threads",
                "handle_call_in_section/threads:2", "raw_call/threads:2");
  r.print_ratio("respecialize to publication / direct O2 first result",
                "respecialize_to_publication", "first_result_compiled/2");
  r.print_ratio("first result tiered / direct O2", "first_result_tiered",
                "first_result_compiled/2");
  r.print_ratio("first result interpreter / O0", "first_result_interpreter",
                "first_result_compiled/0");
  r.print_ratio("call interpreter / O0 code", "call_interpreter", "call_compiled/0");
  r.print_ratio("call O0 code / O2 code", "call_compiled/0", "call_compiled/2");
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  increment_code();  // the engine's first compile, outside every measurement
  bench::RatioReporter reporter(print_ratios);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
