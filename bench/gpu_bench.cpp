// The GPU backend's costs, each beside what it saves or is compared with,
// with the ratios printed last (of the medians, with --benchmark_repetitions):
//
//   compile_hit_*  a repeated jit::gpu::compile (CPU fallback target: no
//                device needed) against a repeated jit::compile of a CPU
//                function, both on static values: a hit is a key lookup.
//   image_nvrtc  a kernel's CUDA source → a GPU image with NVRTC. NVRTC needs
//                no device, so it runs everywhere (without a GPU: PTX for
//                compute_90).
//   kernel_*     jit::gpu::compile with its memory caches emptied: compiled
//                (staged, optimized, NVRTC on a GPU or LLVM on the fallback),
//                and served from the disk cache as in a new process.
//   fallback_*   examples/gpu_conv.cpp's convolutions specialized on the
//                filter vs generic, on the CPU fallback (the grid emulated).
//   gpu_*        the same convolutions on the device, and the launch overhead
//                of kernel::launch against a direct cuLaunchKernel of the same
//                function. Only where jit::gpu::available(); otherwise each is
//                reported as "skipped: no GPU".
//
//   build/release/bench/gpu_bench --benchmark_repetitions=5
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench/support/ratio_reporter.h"
#include "examples/gpu_conv_kernels.h"
#include "gpu/device.h"
#include "gpu/image.h"
#include "jit/gpu.h"
#include "jit/jit.h"

namespace {

using namespace augur;
namespace g = jit::gpu;

const std::vector<float> kTaps1d = {1, 0, 0, 0, -2, 0, 0, 0, 1};  // sparse, 9 taps
const std::vector<float> kTaps2d(25, 1 / 25.0f);                  // a 5 × 5 box
// Small sizes (the fallback's; on a GPU a launch costs as much as the work)
// and, on a GPU only, large ones that fill the device.
constexpr int kSignal = 1 << 16, kLargeSignal = 1 << 24;
constexpr int kWidth = 256, kHeight = 192, kLargeSide = 4096;

std::vector<float> random_floats(std::size_t n) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = value(rng);
  return v;
}

// ---------------------------------------------------------------- compile hits

void scale_kernel(jit::dyn<float*> v, jit::dyn<int> n, float a) {
  jit::dyn<int> i = g::global_id_x();
  if (i < n) v[i] = v[i] * a;
}

jit::dyn<float> scale_function(jit::dyn<float> x, float a) {
  return x * a;
}

void compile_hit_gpu(benchmark::State& state) {
  g::options opts;
  opts.where = g::target::cpu;
  g::compile(opts, scale_kernel, 2.5f);
  for (auto _ : state) benchmark::DoNotOptimize(g::compile(opts, scale_kernel, 2.5f));
}

void compile_hit_cpu(benchmark::State& state) {
  jit::compile(scale_function, 2.5f);
  for (auto _ : state) benchmark::DoNotOptimize(jit::compile(scale_function, 2.5f));
}

BENCHMARK(compile_hit_gpu);
BENCHMARK(compile_hit_cpu);

// ---------------------------------------------------------------- images

// The 5 × 5 conv2d's kernel options: where available() (a GPU image, else
// the CPU fallback), with or without a disk cache in `dir`.
g::options conv_options(const std::string& dir) {
  g::options opts;
  opts.name = "conv2d_bench";
  opts.cache_dir = dir;
  opts.disk_cache = !dir.empty();
  return opts;
}

void image_nvrtc(benchmark::State& state) {
  g::options cpu;
  cpu.where = g::target::cpu;
  const auto kernel = g::compile(cpu, gpu_conv::conv2d, kTaps2d, 5);
  const std::string arch = gpu::default_arch();
  for (auto _ : state) {
    benchmark::DoNotOptimize(gpu::compile_image(kernel.cuda_source(), kernel.name(), arch, {}));
  }
}

// jit::gpu::compile as a new process asks: no kernel in memory, the
// kernel's artifact on disk (staged, no optimizer, no NVRTC or LLVM).
void kernel_disk_hit(benchmark::State& state) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("augur_gpu_bench_" + std::to_string(getpid()));
  const g::options opts = conv_options(dir.string());
  g::clear_cache();
  g::compile(opts, gpu_conv::conv2d, kTaps2d, 5);  // writes the disk cache
  const std::uint64_t hits = g::stats().disk_hits;
  for (auto _ : state) {
    state.PauseTiming();
    g::clear_cache();
    state.ResumeTiming();
    benchmark::DoNotOptimize(g::compile(opts, gpu_conv::conv2d, kTaps2d, 5));
  }
  if (g::stats().disk_hits - hits != static_cast<std::uint64_t>(state.iterations())) {
    state.SkipWithError("a kernel came from another place than the disk cache");
  }
  std::filesystem::remove_all(dir);
}

// The same without a disk cache: staged, optimized and compiled (NVRTC on a
// GPU, LLVM on the fallback).
void kernel_compile(benchmark::State& state) {
  const g::options opts = conv_options("");
  for (auto _ : state) {
    state.PauseTiming();
    g::clear_cache();
    state.ResumeTiming();
    benchmark::DoNotOptimize(g::compile(opts, gpu_conv::conv2d, kTaps2d, 5));
  }
}

BENCHMARK(image_nvrtc)->Unit(benchmark::kMillisecond);
BENCHMARK(kernel_compile)->Unit(benchmark::kMillisecond);
BENCHMARK(kernel_disk_hit)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------- convolutions

// Runs `launch` and waits for it, per iteration.
template <class F>
void timed_launches(benchmark::State& state, F&& launch) {
  for (auto _ : state) {
    launch();
    g::synchronize();
  }
}

void conv1d(benchmark::State& state, g::target where, bool specialized, int n) {
  g::options opts;
  opts.where = where;
  const g::backend backend = where == g::target::cpu ? g::backend::cpu : g::backend::cuda;
  const g::buffer<float> in(random_floats(n), backend);
  const g::buffer<float> taps(kTaps1d, backend);
  g::buffer<float> out(n, backend);
  const g::dim3 grid{static_cast<unsigned>(n / 256)}, block{256};
  if (specialized) {
    const auto k = g::compile(opts, gpu_conv::conv1d, kTaps1d);
    timed_launches(state, [&] { k.launch(grid, block, in, out, n); });
  } else {
    const auto k = g::compile(opts, gpu_conv::conv1d_generic);
    const int size = static_cast<int>(kTaps1d.size());
    timed_launches(state, [&] { k.launch(grid, block, in, out, taps, n, size); });
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void conv2d(benchmark::State& state, g::target where, bool specialized, int w, int h) {
  g::options opts;
  opts.where = where;
  const g::backend backend = where == g::target::cpu ? g::backend::cpu : g::backend::cuda;
  const g::buffer<float> in(random_floats(static_cast<std::size_t>(w) * h), backend);
  const g::buffer<float> taps(kTaps2d, backend);
  g::buffer<float> out(static_cast<std::size_t>(w) * h, backend);
  const g::dim3 grid{static_cast<unsigned>(w / 16), static_cast<unsigned>(h / 16)}, block{16, 16};
  if (specialized) {
    const auto k = g::compile(opts, gpu_conv::conv2d, kTaps2d, 5);
    timed_launches(state, [&] { k.launch(grid, block, in, out, w, h); });
  } else {
    const auto k = g::compile(opts, gpu_conv::conv2d_generic);
    timed_launches(state, [&] { k.launch(grid, block, in, out, taps, w, h, 5); });
  }
  state.SetItemsProcessed(state.iterations() * w * h);
}

// Real time: the fallback runs a kernel's blocks on TBB workers.
BENCHMARK_CAPTURE(conv1d, fallback_conv1d_specialized, g::target::cpu, true, kSignal)
    ->UseRealTime();
BENCHMARK_CAPTURE(conv1d, fallback_conv1d_generic, g::target::cpu, false, kSignal)->UseRealTime();
BENCHMARK_CAPTURE(conv2d, fallback_conv2d_specialized, g::target::cpu, true, kWidth, kHeight)
    ->UseRealTime();
BENCHMARK_CAPTURE(conv2d, fallback_conv2d_generic, g::target::cpu, false, kWidth, kHeight)
    ->UseRealTime();

// ---------------------------------------------------------------- on the GPU

void empty_kernel(jit::dyn<int*> out, jit::dyn<int> n) {
  jit::dyn<int> i = g::global_id_x();
  if (i < n) out[i] = i;
}

// Launches per iteration, one synchronization at the end: the host-side cost
// of a launch, as long as the device keeps up.
constexpr int kLaunches = 1000;

void launch_through_kernel(benchmark::State& state) {
  g::options opts;
  opts.where = g::target::cuda;
  const auto k = g::compile(opts, empty_kernel);
  g::buffer<int> out(32);
  for (auto _ : state) {
    for (int i = 0; i < kLaunches; ++i) k.launch({1}, {32}, out, 0);
    g::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * kLaunches);
}

void launch_direct(benchmark::State& state) {
  g::options opts;
  opts.where = g::target::cuda;
  const auto k = g::compile(opts, empty_kernel);  // its source, compiled again below
  const gpu::Device& device = *gpu::Device::get();
  const gpu::CompiledImage image(
      gpu::default_arch(), gpu::compile_image(k.cuda_source(), k.name(), gpu::default_arch(), {}));
  const gpu::cu::Function function = image.function(device, k.name());
  g::buffer<int> out(32);
  int* pointer = out.data();
  int n = 0;
  void* params[] = {&pointer, &n};
  const gpu::cu::Api& api = device.driver().api();
  device.bind();
  for (auto _ : state) {
    for (int i = 0; i < kLaunches; ++i) {
      device.check(api.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr),
                   "cuLaunchKernel");
    }
    g::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * kLaunches);
}

void register_gpu_benchmarks() {
  const char* names[] = {"gpu_conv1d_specialized",      "gpu_conv1d_generic",
                         "gpu_conv1d_specialized_16M",  "gpu_conv1d_generic_16M",
                         "gpu_conv2d_specialized",      "gpu_conv2d_generic",
                         "gpu_conv2d_specialized_4096", "gpu_conv2d_generic_4096",
                         "gpu_launch_kernel",           "gpu_launch_direct"};
  if (!g::available()) {
    for (const char* name : names) {
      std::printf("%s: skipped: no GPU (%s)\n", name, g::unavailable_reason().c_str());
    }
    return;
  }
  const g::target cuda = g::target::cuda;
  benchmark::RegisterBenchmark(names[0], conv1d, cuda, true, kSignal)->UseRealTime();
  benchmark::RegisterBenchmark(names[1], conv1d, cuda, false, kSignal)->UseRealTime();
  benchmark::RegisterBenchmark(names[2], conv1d, cuda, true, kLargeSignal)->UseRealTime();
  benchmark::RegisterBenchmark(names[3], conv1d, cuda, false, kLargeSignal)->UseRealTime();
  benchmark::RegisterBenchmark(names[4], conv2d, cuda, true, kWidth, kHeight)->UseRealTime();
  benchmark::RegisterBenchmark(names[5], conv2d, cuda, false, kWidth, kHeight)->UseRealTime();
  benchmark::RegisterBenchmark(names[6], conv2d, cuda, true, kLargeSide, kLargeSide)->UseRealTime();
  benchmark::RegisterBenchmark(names[7], conv2d, cuda, false, kLargeSide, kLargeSide)
      ->UseRealTime();
  benchmark::RegisterBenchmark(names[8], launch_through_kernel)->UseRealTime();
  benchmark::RegisterBenchmark(names[9], launch_direct)->UseRealTime();
}

// ---------------------------------------------------------------- ratios

// After the console report, each pair's ratio: what, Augur's run, its peer.
void print_ratios(const bench::RatioReporter& report) {
  static const char* const kPairs[][3] = {
      {"compile hit: jit::gpu::compile vs jit::compile", "compile_hit_gpu", "compile_hit_cpu"},
      {"kernel: disk cache hit vs compile", "kernel_disk_hit", "kernel_compile"},
      {"CPU fallback, conv1d: specialized vs generic", "conv1d/fallback_conv1d_specialized",
       "conv1d/fallback_conv1d_generic"},
      {"CPU fallback, conv2d: specialized vs generic", "conv2d/fallback_conv2d_specialized",
       "conv2d/fallback_conv2d_generic"},
      {"GPU, conv1d 64K: specialized vs generic", "gpu_conv1d_specialized", "gpu_conv1d_generic"},
      {"GPU, conv1d 16M: specialized vs generic", "gpu_conv1d_specialized_16M",
       "gpu_conv1d_generic_16M"},
      {"GPU, conv2d 256x192: specialized vs generic", "gpu_conv2d_specialized",
       "gpu_conv2d_generic"},
      {"GPU, conv2d 4096x4096: specialized vs generic", "gpu_conv2d_specialized_4096",
       "gpu_conv2d_generic_4096"},
      {"GPU, per launch: kernel::launch vs cuLaunchKernel", "gpu_launch_kernel",
       "gpu_launch_direct"},
  };
  for (const auto& [what, augur, peer] : kPairs) {
    const auto [a, p] = report.pair(augur, peer);
    if (!a) continue;
    std::printf("%s: %.3f us vs %.3f us, ratio %.4f (%.2fx)\n", what, a->wall_ns / 1e3,
                p->wall_ns / 1e3, a->wall_ns / p->wall_ns, p->wall_ns / a->wall_ns);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (g::available()) {
    std::printf("device: %s (%s)\n", g::device().name.c_str(), g::device().arch.c_str());
  } else {
    std::printf("no GPU: images are PTX for %s; fallback_* run on the CPU\n",
                gpu::default_arch().c_str());
  }
  register_gpu_benchmarks();
  bench::RatioReporter reporter(print_ratios);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
