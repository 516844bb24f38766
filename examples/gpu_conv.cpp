// 1-D and 2-D convolution on the GPU backend, specialized on the filter: the
// taps and the filter's size are constants of the kernel, so its loops are
// unrolled, zero taps vanish and each tap is an immediate. A generic kernel
// that reads the filter and its size from memory computes the same results.
// Both are checked against plain C++ and timed. Without a GPU the kernels run
// on the CPU fallback (the grid emulated), with the same code.
//
//   gpu_conv            runs, checks and times every filter
//   gpu_conv --source   also prints the CUDA C++ of the specialized kernels
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <jit/jit.h>

#include "gpu_conv_kernels.h"

namespace {

namespace g = jit::gpu;
using gpu_conv::conv1d;
using gpu_conv::conv1d_generic;
using gpu_conv::conv2d;
using gpu_conv::conv2d_generic;

// ---------------------------------------------------------------- references

std::vector<float> reference_1d(const std::vector<float>& in, const std::vector<float>& taps) {
  const int n = static_cast<int>(in.size());
  const int size = static_cast<int>(taps.size());
  std::vector<float> out(in.size());
  for (int i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int k = 0; k < size; ++k) {
      const int j = i + k - size / 2;
      if (j >= 0 && j < n) acc += in[j] * taps[k];
    }
    out[i] = acc;
  }
  return out;
}

std::vector<float> reference_2d(const std::vector<float>& in, int w, int h,
                                const std::vector<float>& taps, int size) {
  std::vector<float> out(in.size());
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      float acc = 0.0f;
      for (int dy = 0; dy < size; ++dy) {
        for (int dx = 0; dx < size; ++dx) {
          const int xx = x + dx - size / 2;
          const int yy = y + dy - size / 2;
          if (xx >= 0 && xx < w && yy >= 0 && yy < h) acc += in[yy * w + xx] * taps[dy * size + dx];
        }
      }
      out[y * w + x] = acc;
    }
  }
  return out;
}

// ---------------------------------------------------------------- running

// Mismatches between `got` and `expected`, printed (the first few) under `what`.
int mismatches(const char* what, const std::vector<float>& got,
               const std::vector<float>& expected) {
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const float tolerance = 1e-5f * std::max(1.0f, std::fabs(expected[i]));
    if (!(std::fabs(got[i] - expected[i]) <= tolerance)) {
      if (bad < 3)
        std::fprintf(stderr, "  %s[%zu] = %g, expected %g\n", what, i, got[i], expected[i]);
      ++bad;
    }
  }
  return bad;
}

// Microseconds per call of `launch` (which waits for the kernel), best of a few runs.
template <class F>
double best_microseconds(F&& launch) {
  constexpr int kRuns = 5;
  double best = 1e300;
  for (int r = 0; r < kRuns; ++r) {
    const auto start = std::chrono::steady_clock::now();
    launch();
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

std::vector<float> random_signal(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = value(rng);
  return v;
}

struct filter {
  const char* name;
  std::vector<float> taps;
  int size;  // 2-D: the side; 1-D: taps.size()
};

int run_1d(const filter& f, const std::vector<float>& signal, bool show_source) {
  const int n = static_cast<int>(signal.size());
  const g::dim3 block{256};
  const g::dim3 grid{static_cast<std::uint32_t>((n + 255) / 256)};
  const auto special = g::compile(conv1d, f.taps);
  const auto generic = g::compile(conv1d_generic);
  if (show_source) std::printf("%s\n", special.cuda_source().c_str());

  const g::buffer<float> in(signal);
  const g::buffer<float> taps(f.taps);
  g::buffer<float> out_special(signal.size()), out_generic(signal.size());
  const double t_special = best_microseconds([&] {
    special.launch(grid, block, in, out_special, n);
    g::synchronize();
  });
  const double t_generic = best_microseconds([&] {
    generic.launch(grid, block, in, out_generic, taps, n, f.size);
    g::synchronize();
  });
  const std::vector<float> expected = reference_1d(signal, f.taps);
  const int bad = mismatches("specialized", out_special.to_vector(), expected) +
                  mismatches("generic", out_generic.to_vector(), expected);
  std::printf("1-D %-12s n=%d: specialized %8.1f us, generic %8.1f us (%.2fx)%s\n", f.name, n,
              t_special, t_generic, t_generic / t_special, bad ? "  WRONG" : "");
  return bad;
}

int run_2d(const filter& f, const std::vector<float>& image, int w, int h, bool show_source) {
  const g::dim3 block{16, 16};
  const g::dim3 grid{static_cast<std::uint32_t>((w + 15) / 16),
                     static_cast<std::uint32_t>((h + 15) / 16)};
  const auto special = g::compile(conv2d, f.taps, f.size);
  const auto generic = g::compile(conv2d_generic);
  if (show_source) std::printf("%s\n", special.cuda_source().c_str());

  const g::buffer<float> in(image);
  const g::buffer<float> taps(f.taps);
  g::buffer<float> out_special(image.size()), out_generic(image.size());
  const double t_special = best_microseconds([&] {
    special.launch(grid, block, in, out_special, w, h);
    g::synchronize();
  });
  const double t_generic = best_microseconds([&] {
    generic.launch(grid, block, in, out_generic, taps, w, h, f.size);
    g::synchronize();
  });
  const std::vector<float> expected = reference_2d(image, w, h, f.taps, f.size);
  const int bad = mismatches("specialized", out_special.to_vector(), expected) +
                  mismatches("generic", out_generic.to_vector(), expected);
  std::printf("2-D %-12s %dx%d: specialized %8.1f us, generic %8.1f us (%.2fx)%s\n", f.name, w, h,
              t_special, t_generic, t_generic / t_special, bad ? "  WRONG" : "");
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  const bool show_source = argc > 1 && std::strcmp(argv[1], "--source") == 0;
  try {
    if (g::available()) {
      std::printf("GPU: %s\n", g::device().name.c_str());
    } else {
      std::printf("CPU fallback (no GPU: %s)\n", g::unavailable_reason().c_str());
    }
    std::mt19937 rng(7);
    const std::vector<float> signal = random_signal(1 << 16, rng);
    constexpr int kWidth = 256, kHeight = 192;
    const std::vector<float> image = random_signal(kWidth * kHeight, rng);

    const std::vector<filter> filters_1d = {
        {"binomial-5", {1 / 16.0f, 4 / 16.0f, 6 / 16.0f, 4 / 16.0f, 1 / 16.0f}, 5},
        {"derivative-3", {-0.5f, 0.0f, 0.5f}, 3},
        {"sparse-9", {1, 0, 0, 0, -2, 0, 0, 0, 1}, 9},
    };
    const std::vector<filter> filters_2d = {
        {"sobel-x", {-1, 0, 1, -2, 0, 2, -1, 0, 1}, 3},
        {"laplacian", {0, 1, 0, 1, -4, 1, 0, 1, 0}, 3},
        {"box-5", std::vector<float>(25, 1 / 25.0f), 5},
    };
    int bad = 0;
    for (const filter& f : filters_1d) bad += run_1d(f, signal, show_source);
    for (const filter& f : filters_2d) bad += run_2d(f, image, kWidth, kHeight, show_source);
    if (bad > 0) {
      std::fprintf(stderr, "%d results differ from the plain C++ convolution\n", bad);
      return 1;
    }
    std::printf("all results match the plain C++ convolution\n");
    return 0;
  } catch (const jit::error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
