// The remote cache (docs/compile.md, "Remote cache") on a redis-server of the
// benchmark's own, on loopback:
//  - a remote hit beside the cold compile it replaces, for power(x, 13) and
//    for a program of about 5,000 IR statements (sums of i64 powers, like
//    bench/corpus's power family): each iteration empties the in-memory
//    cache, so the request goes to the remote level (a hit: fetch, verify the
//    signature, load the object) or compiles (stage, optimize, LLVM); the
//    same for a GPU kernel on the CPU fallback (the device path's remote hit
//    needs a GPU: not measured here);
//  - a fleet's cold start: 8 processes (this program again, as children)
//    each asking for the same 200 specializations of power, with and without
//    the remote level; the CPU time of all of them together.
//
//   build/release/bench/remote_cache_bench --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench/support/cpu_time.h"
#include "bench/support/ratio_reporter.h"
#include "jit/cpu/statistics.h"
#include "jit/jit.h"
#include "tests/cache/redis_server.h"
#include "tests/support/staged_programs.h"

namespace {

namespace fs = std::filesystem;
using augur::cache::test::read_output;
using augur::cache::test::RedisServer;
using augur::cache::test::spawn;

constexpr int kFleetProcesses = 8;
constexpr int kFleetKeys = 200;

using augur::staged::power;

// The sum of bases[k % 64] ^ exponents[k] on wrapping i64: about 90
// statements per exponent.
jit::dyn<std::int64_t> powers(jit::dyn<const std::int64_t*> bases,
                              const std::vector<std::uint64_t>& exponents) {
  jit::dyn<std::int64_t> sum(0);
  for (jit::stat<std::size_t> k = 0; k < exponents.size(); ++k) {
    jit::dyn<std::int64_t> x(bases[k % 64]);
    jit::dyn<std::int64_t> r(1);
    for (jit::stat<std::uint64_t> e = exponents[k]; e > 0; e = e / 2) {
      if (e % 2 == 1) r = r * x;
      x = x * x;
    }
    sum = sum + r;
  }
  return sum;
}

std::vector<std::uint64_t> large_exponents() {
  std::vector<std::uint64_t> exponents;
  std::uint64_t state = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 55; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    exponents.push_back(state | (std::uint64_t{1} << 63));
  }
  return exponents;
}

std::uint64_t backend_compiles() {
  const augur::cpu::Statistics stats = augur::cpu::statistics();
  return stats.objects_compiled + stats.modules_compiled;
}

// The redis-server and the key file every benchmark shares.
struct Store {
  fs::path root = fs::temp_directory_path() / ("augur-remote-bench-" + std::to_string(::getpid()));
  RedisServer server{root / "redis"};
  std::string key_file = (root / "key").string();
  bool up = false;

  Store() {
    fs::create_directories(root);
    std::ofstream(key_file) << "benchmark fleet key 0123456789abcdef\n";
    ::chmod(key_file.c_str(), 0600);
    up = server.start();
  }
  ~Store() {
    server.stop();
    fs::remove_all(root);
  }
  jit::compile_options options() const {
    jit::compile_options o;
    o.remote_cache = server.url();
    o.remote_cache_key_file = key_file;
    return o;
  }
};

Store& store() {
  static Store instance;
  return instance;
}

// One request per iteration for a key compiled before; the in-memory cache
// emptied first, so that it goes to the remote level (remote) or compiles.
template <class Request>
void run_request(benchmark::State& state, bool remote, Request request) {
  if (remote && !store().up) {
    state.SkipWithError("redis-server did not start (scripts/setup.sh installs it)");
    return;
  }
  jit::compile_options options = remote ? store().options() : jit::compile_options{};
  jit::clear_cache();
  request(options);  // compiled, and for remote a remote entry to find
  const std::uint64_t compiles = backend_compiles();
  const jit::cache_statistics before = jit::cache_stats();
  for (auto _ : state) {
    state.PauseTiming();
    jit::clear_cache();
    state.ResumeTiming();
    request(options);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["compiles_per_request"] = static_cast<double>(backend_compiles() - compiles) / n;
  const jit::cache_statistics after = jit::cache_stats();
  state.counters["remote_hits_per_request"] =
      static_cast<double>(after.remote_hits - before.remote_hits) / n;
  // Wall time in the remote level: fetching, verifying, and for a miss the
  // lease and the write.
  state.counters["remote_ms_per_request"] =
      static_cast<double>((after.remote_time - before.remote_time).count()) / 1e6 / n;
}

void BM_Power13(benchmark::State& state) {
  run_request(state, state.range(0) != 0, [](const jit::compile_options& options) {
    jit::function<double(double)> f = jit::compile(options, power, 13);
    benchmark::DoNotOptimize(f(1.0001));
  });
}
BENCHMARK(BM_Power13)->ArgName("remote")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Powers5k(benchmark::State& state) {
  static const std::vector<std::uint64_t> exponents = large_exponents();
  std::uint64_t statements = 0;
  run_request(state, state.range(0) != 0, [&](const jit::compile_options& options) {
    auto f = jit::compile(options, powers, exponents);
    statements = f.stage_report()->ir_statements;
    std::int64_t bases[64];
    for (int i = 0; i < 64; ++i) bases[i] = i + 2;
    benchmark::DoNotOptimize(f(bases));
  });
  state.counters["ir_statements"] = static_cast<double>(statements);
}
BENCHMARK(BM_Powers5k)
    ->ArgName("remote")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

void scale_kernel(jit::dyn<float*> v, jit::dyn<int> n, float a) {
  jit::dyn<int> i = jit::gpu::global_id_x();
  if (i < n) v[i] = v[i] * a;
}

// A GPU kernel, here on the CPU fallback (no GPU on the benchmark machines):
// the remote level comes from the environment, as jit::gpu::options has no
// field for it.
void BM_GpuKernel(benchmark::State& state) {
  const bool remote = state.range(0) != 0;
  if (remote && !store().up) {
    state.SkipWithError("redis-server did not start (scripts/setup.sh installs it)");
    return;
  }
  if (remote) {
    ::setenv("AUGUR_REMOTE_CACHE", store().server.url().c_str(), 1);
    ::setenv("AUGUR_CACHE_KEY_FILE", store().key_file.c_str(), 1);
  }
  jit::gpu::options options;
  options.where = jit::gpu::target::cpu;
  options.name = "bench_scale";
  jit::gpu::clear_cache();
  jit::gpu::compile(options, scale_kernel, 2.5f);
  const jit::gpu::statistics before = jit::gpu::stats();
  for (auto _ : state) {
    state.PauseTiming();
    jit::gpu::clear_cache();
    state.ResumeTiming();
    benchmark::DoNotOptimize(jit::gpu::compile(options, scale_kernel, 2.5f));
  }
  const jit::gpu::statistics after = jit::gpu::stats();
  ::unsetenv("AUGUR_REMOTE_CACHE");
  ::unsetenv("AUGUR_CACHE_KEY_FILE");
  const double n = static_cast<double>(state.iterations());
  state.counters["compiles_per_request"] =
      static_cast<double>(after.fallback_compiles - before.fallback_compiles) / n;
  state.counters["remote_hits_per_request"] =
      static_cast<double>(after.remote_hits - before.remote_hits) / n;
}
BENCHMARK(BM_GpuKernel)->ArgName("remote")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// A child of the fleet: compiles every key once (the remote level, if any,
// comes from its environment) and prints its backend compiles.
int fleet_child() {
  for (int n = 0; n < kFleetKeys; ++n) {
    jit::function<double(double)> f = jit::compile(power, 1000 + n);
    benchmark::DoNotOptimize(f(1.0001));
  }
  std::printf("compiles=%llu\n", static_cast<unsigned long long>(backend_compiles()));
  return 0;
}

void BM_FleetColdStart(benchmark::State& state) {
  const bool remote = state.range(0) != 0;
  if (remote && !store().up) {
    state.SkipWithError("redis-server did not start (scripts/setup.sh installs it)");
    return;
  }
  const std::string self = fs::read_symlink("/proc/self/exe");
  std::vector<std::string> environment{"AUGUR_REMOTE_BENCH_CHILD=1"};
  if (remote) {
    environment.push_back("AUGUR_REMOTE_CACHE=" + store().server.url());
    environment.push_back("AUGUR_CACHE_KEY_FILE=" + store().key_file);
  }
  double cpu_seconds = 0;
  unsigned long long compiles = 0;
  for (auto _ : state) {
    if (remote) {
      state.PauseTiming();
      redisContext* c = store().server.connect();
      freeReplyObject(redisCommand(c, "FLUSHALL"));
      redisFree(c);
      state.ResumeTiming();
    }
    const double before = augur::bench::cpu_seconds();
    std::vector<std::pair<pid_t, int>> children;
    for (int i = 0; i < kFleetProcesses; ++i) children.push_back(spawn({self}, environment));
    for (auto [pid, out] : children) {
      const std::string output = read_output(out);
      ::waitpid(pid, nullptr, 0);
      unsigned long long c = 0;
      if (const auto at = output.find("compiles="); at != std::string::npos) {
        std::sscanf(output.c_str() + at, "compiles=%llu", &c);
      }
      compiles += c;
    }
    cpu_seconds += augur::bench::cpu_seconds() - before;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["cpu_ms"] = 1e3 * cpu_seconds / n;
  state.counters["compiles"] = static_cast<double>(compiles) / n;
}
BENCHMARK(BM_FleetColdStart)
    ->ArgName("remote")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("AUGUR_REMOTE_BENCH_CHILD")) return fleet_child();
  benchmark::Initialize(&argc, argv);
  augur::bench::RatioReporter reporter([](const augur::bench::RatioReporter& r) {
    std::printf("\nremote hit / cold compile (CPU time per request):\n");
    for (const char* name : {"BM_Power13", "BM_Powers5k", "BM_GpuKernel"}) {
      const auto [hit, cold] =
          r.pair(std::string(name) + "/remote:1", std::string(name) + "/remote:0");
      if (hit && cold) {
        std::printf("  %-12s %.4f (%.3f ms against %.3f ms)\n", name, hit->cpu_ns / cold->cpu_ns,
                    hit->cpu_ns / 1e6, cold->cpu_ns / 1e6);
      }
    }
    const auto [with, without] = r.pair("BM_FleetColdStart/remote:1", "BM_FleetColdStart/remote:0");
    if (with && without) {
      std::printf(
          "fleet cold start, %d processes x %d keys, CPU of all processes: with / without the "
          "remote level %.3f (%.0f ms against %.0f ms)\n",
          kFleetProcesses, kFleetKeys, with->counted_cpu_ns() / without->counted_cpu_ns(),
          with->counted_cpu_ns() / 1e6, without->counted_cpu_ns() / 1e6);
    }
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
