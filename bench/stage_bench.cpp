// The staging front end's first-stage cost, next to the seed paper's BuildIt
// figures (000, figures 9 and 12) for the same programs, and the cost of a
// static tag next to backtrace().
//
//   Einsum/*   the paper's matrix multiply in the einsum DSL (10 iterations,
//              1024^3): prophecy preloading vs copying every tensor.
//   ConvRelu/* the paper's conv/ReLU benchmark (input 10240, filter 21).
//   Brainfuck  the staged BF interpreter specialized to a 1,000+ instruction program.
//   Tag/*      reading one call chain 32 frames deep: frame pointers, the
//              unwinder, glibc backtrace(); and the whole tag inside an extraction.
//   StaticState/* the cost per tag with 0 to 10,000 live jit::stat values.
//
// Counters: cf_runs and prophecy_runs (ours) beside paper_cf_runs and
// paper_prophecy_runs; first_stage_ms (ours, mean) beside paper_ms, and
// ratio_vs_paper = ours / paper.
#include <benchmark/benchmark.h>
#include <execinfo.h>

#include <string>
#include <vector>

#include "bf.h"
#include "einsum.h"
#include "jit/jit.h"
#include "nn.h"
#include "runtime/stage/tag.h"

namespace {

// ---------------------------------------------------------------- helpers

void report(benchmark::State& state, const jit::stage_report& r, double paper_cf_runs,
            double paper_prophecy_runs, double paper_ms, double total_ms, double extractions) {
  const double ms = total_ms / extractions;
  state.counters["cf_runs"] = static_cast<double>(r.control_flow_runs);
  state.counters["prophecy_runs"] = r.prophecy_runs;
  state.counters["ir_statements"] = static_cast<double>(r.ir_statements);
  state.counters["tags"] = static_cast<double>(r.tags);
  state.counters["first_stage_ms"] = ms;
  state.counters["paper_cf_runs"] = paper_cf_runs;
  state.counters["paper_prophecy_runs"] = paper_prophecy_runs;
  state.counters["paper_ms"] = paper_ms;
  state.counters["ratio_vs_paper"] = ms / paper_ms;
}

template <class Extract>
void measure(benchmark::State& state, Extract&& extract, double paper_cf_runs,
             double paper_prophecy_runs, double paper_ms) {
  jit::stage_report last;
  double total_ms = 0;
  double extractions = 0;
  for (auto _ : state) {
    const jit::extraction e = extract();
    last = e.report();
    total_ms += static_cast<double>(last.first_stage_time.count()) / 1e6;
    ++extractions;
  }
  report(state, last, paper_cf_runs, paper_prophecy_runs, paper_ms, total_ms, extractions);
}

// ---------------------------------------------------------------- einsum

// The paper's benchmark program (000, section 6.1, lines 610-641).
void mm_benchmark(jit::dyn<float*> x_in, jit::dyn<float*> y_in, jit::dyn<float*> z_out, int m,
                  int n, int o, el::options opts) {
  el::context ctx(opts);
  el::index i, j, k;
  el::tensor x(ctx, {m, n});
  el::tensor x_b(ctx, {m, n}, x_in);
  el::tensor y(ctx, {n, o});
  el::tensor y_b(ctx, {n, o}, y_in);
  el::tensor z(ctx, {m, o});
  el::tensor z_b(ctx, {m, o}, z_out);
  for (jit::dyn<int> iter = 0; iter < 10; ++iter) {
    el::assign(x(i, j), x_b(i, j));
    el::assign(y(i, j), y_b(i, j));
    el::runtime().start_time();
    ctx.run_on_gpu([&] { el::accumulate(z(i, j), x(i, k) * y(k, j)); });
    el::assign(z_b(i, j), z(i, j));
    el::runtime().end_time();
  }
}

void Einsum_Prophecy(benchmark::State& state) {
  measure(
      state, [] { return jit::extract(mm_benchmark, 1024, 1024, 1024, el::options{}); }, 113, 7,
      38.335);
}
BENCHMARK(Einsum_Prophecy)->Unit(benchmark::kMillisecond);

void Einsum_CopyAll(benchmark::State& state) {
  measure(
      state,
      [] { return jit::extract(mm_benchmark, 1024, 1024, 1024, el::options{.copy_all = true}); },
      25, 0, 9.212);
}
BENCHMARK(Einsum_CopyAll)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- conv / ReLU

// The paper's benchmark program (000, section 6.2, lines 130-161).
jit::dyn<int> conv_benchmark(jit::dyn<float*> input_data, int size, jit::dyn<float*> weight_data,
                             int weight_size, jit::dyn<bool> small_threshold, bool fusion) {
  nn::tensor input(input_data, size);
  nn::tensor weight(weight_data, weight_size);
  for (jit::dyn<int> i = 0; i < 10; ++i) {
    nn::runtime().start_time();
    nn::tensor conv = nn::convolve(input, weight, fusion);
    if (small_threshold) {
      nn::tensor out = nn::relu(conv, 2.0f);
      nn::runtime().end_time();
      nn::consume(out);
    } else {
      nn::tensor out = nn::relu(conv, 4.0f);  // a different threshold on another path
      nn::runtime().end_time();
      nn::consume(out);
    }
  }
  for (jit::dyn<int> i = 0; i < 10; ++i) {
    nn::runtime().start_time();
    nn::tensor conv = nn::convolve(input, weight, fusion);
    nn::tensor out = nn::relu(conv, 1.56f);
    nn::runtime().end_time();
    nn::consume(out);
  }
  return 0;
}

void ConvRelu_Fusion(benchmark::State& state) {
  measure(
      state, [] { return jit::extract(conv_benchmark, 10240, 21, true); }, 72, 4, 14.701);
}
BENCHMARK(ConvRelu_Fusion)->Unit(benchmark::kMillisecond);

void ConvRelu_NoFusion(benchmark::State& state) {
  measure(
      state, [] { return jit::extract(conv_benchmark, 10240, 21, false); }, 33, 0, 9.872);
}
BENCHMARK(ConvRelu_NoFusion)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- Brainfuck

// Prints the first `chars` characters of a text, each built by a
// multiplication loop, then echoes the input: one loop per character, about
// 37 instructions per character.
std::string long_bf_program(std::size_t chars) {
  const std::string text =
      std::string(
          "Augur stages C++ into IR: a Brainfuck interpreter specialized to this program "
          "leaves only the program's own loops.")
          .substr(0, chars);
  std::string p;
  for (const char c : text) {
    const int v = static_cast<unsigned char>(c);
    p += "[-]>[-]++++++++++[<";
    p += std::string(static_cast<std::size_t>(v / 10), '+');
    p += ">-]<";
    p += std::string(static_cast<std::size_t>(v % 10), '+');
    p += ".";
  }
  p += ",[.,]";
  return p;
}

void Brainfuck(benchmark::State& state) {
  const std::string program = long_bf_program(static_cast<std::size_t>(state.range(0)));
  jit::stage_report last;
  double total_ms = 0, extractions = 0;
  for (auto _ : state) {
    const jit::extraction e = jit::extract(bf::staged, program);
    last = e.report();
    total_ms += static_cast<double>(last.first_stage_time.count()) / 1e6;
    ++extractions;
  }
  state.counters["bf_instructions"] = static_cast<double>(program.size());
  state.counters["cf_runs"] = static_cast<double>(last.control_flow_runs);
  state.counters["ir_statements"] = static_cast<double>(last.ir_statements);
  state.counters["events"] = static_cast<double>(last.events);
  state.counters["first_stage_ms"] = total_ms / extractions;
  state.counters["ns_per_event"] = total_ms * 1e6 / extractions / static_cast<double>(last.events);
}
BENCHMARK(Brainfuck)->Arg(30)->Arg(115)->ArgNames({"chars"})->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- tags

constexpr int kDepth = 32;

template <class F>
[[gnu::noinline]] void descend(int depth, F& f) {
  if (depth == 0) {
    f();
  } else {
    descend(depth - 1, f);
  }
  benchmark::ClobberMemory();  // not a tail call: every level keeps its frame
}

// Reads a call chain kDepth frames below the "entry" frame of this function.
[[gnu::noinline]] void read_chain(benchmark::State& state, jit::tag_source source) {
  augur::stage::CallChain chain(source, 1000);
  chain.set_entry(__builtin_frame_address(0));
  auto body = [&] {
    for (auto _ : state) benchmark::DoNotOptimize(chain.read());
  };
  descend(kDepth, body);
  benchmark::ClobberMemory();
}

void Tag_FramePointerChain(benchmark::State& state) {
  read_chain(state, jit::tag_source::frame_pointers);
}
BENCHMARK(Tag_FramePointerChain);

void Tag_UnwinderChain(benchmark::State& state) {
  read_chain(state, jit::tag_source::backtrace);
}
BENCHMARK(Tag_UnwinderChain);

// What BuildIt's tracer calls: glibc backtrace() of the whole stack.
void Tag_GlibcBacktrace(benchmark::State& state) {
  auto body = [&] {
    void* frames[256];
    for (auto _ : state) benchmark::DoNotOptimize(backtrace(frames, 256));
  };
  descend(kDepth, body);
}
BENCHMARK(Tag_GlibcBacktrace);

// A whole tag (chain, static state, event) per operation inside an
// extraction: kDepth frames down, a dyn loop of 256 statements.
void Tag_InExtraction(benchmark::State& state) {
  jit::extract_options options;
  options.tags = static_cast<jit::tag_source>(state.range(0));
  auto generator = [](jit::dyn<int> x) {
    auto body = [&] {
      for (jit::stat<int> i = 0; i < 256; ++i) x = x + i;
    };
    descend(kDepth, body);
    return x;
  };
  double total_ns = 0, tags = 0;
  for (auto _ : state) {
    const jit::extraction e = jit::extract(options, generator);
    total_ns += static_cast<double>(e.report().first_stage_time.count());
    tags += static_cast<double>(e.report().tags);
  }
  state.counters["ns_per_tag"] = total_ns / tags;
}
BENCHMARK(Tag_InExtraction)->Arg(0)->Arg(1)->ArgNames({"backtrace"});

// O(1) per tag whatever the static state: 0 to 10,000 live stat values (a
// snapshot per tag, as BuildIt takes, grows with them: BuildIt issue #76).
// The cost per tag is the difference between 4,096 and 1,024 operations over
// the same static state, so setting the state up is not counted.
void StaticState_PerTag(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  auto generator = [live](jit::dyn<int> x, int ops) {
    std::vector<jit::stat<int>> table(live);
    for (std::size_t k = 0; k < live; ++k) table[k] = static_cast<int>(k);
    for (jit::stat<int> i = 0; i < ops; ++i) x = x + i;
    return x;
  };
  double long_ns = 0, short_ns = 0, long_tags = 0, short_tags = 0;
  for (auto _ : state) {
    const jit::extraction a = jit::extract(generator, 4096);
    const jit::extraction b = jit::extract(generator, 1024);
    long_ns += static_cast<double>(a.report().first_stage_time.count());
    short_ns += static_cast<double>(b.report().first_stage_time.count());
    long_tags += static_cast<double>(a.report().tags);
    short_tags += static_cast<double>(b.report().tags);
  }
  state.counters["ns_per_tag"] = (long_ns - short_ns) / (long_tags - short_tags);
}
BENCHMARK(StaticState_PerTag)->Arg(0)->Arg(1000)->Arg(10000)->ArgNames({"live_stats"});

}  // namespace

BENCHMARK_MAIN();
