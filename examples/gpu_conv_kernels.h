// The kernels of gpu_conv.cpp: 1-D and 2-D convolution specialized on the
// filter (its taps and size are constants of the kernel: loops unrolled, zero
// taps gone) and generic ones reading the filter and its size from memory.
// tests/gpu checks their CUDA sources and runs them against the interpreter.
#pragma once

#include <cstddef>
#include <vector>

#include "jit/gpu.h"
#include "jit/stat.h"

namespace gpu_conv {

using jit::dyn;
namespace g = jit::gpu;

// out[i] = sum over k of in[i + k - size/2] * taps[k], zero outside `in`.
inline void conv1d(dyn<const float*> in, dyn<float*> out, dyn<int> n, std::vector<float> taps) {
  dyn<int> i = g::global_id_x();
  if (i < n) {
    dyn<float> acc = 0.0f;
    const int radius = static_cast<int>(taps.size()) / 2;
    for (jit::stat<int> k = 0; k < static_cast<int>(taps.size()); ++k) {
      if (taps[k] == 0.0f) continue;
      dyn<int> j = i + (k - radius);
      if (j >= 0 && j < n) acc = acc + in[j] * taps[k];
    }
    out[i] = acc;
  }
}

inline void conv1d_generic(dyn<const float*> in, dyn<float*> out, dyn<const float*> filter,
                           dyn<int> n, dyn<int> size) {
  dyn<int> i = g::global_id_x();
  if (i < n) {
    dyn<float> acc = 0.0f;
    dyn<int> radius = size / 2;
    for (dyn<int> k = 0; k < size; ++k) {
      dyn<int> j = i + k - radius;
      if (j >= 0 && j < n) acc = acc + in[j] * filter[k];
    }
    out[i] = acc;
  }
}

// A `size` × `size` filter over a w × h image, row by row.
inline void conv2d(dyn<const float*> in, dyn<float*> out, dyn<int> w, dyn<int> h,
                   std::vector<float> taps, int size) {
  dyn<int> x = g::global_id_x();
  dyn<int> y = g::global_id_y();
  if (x < w && y < h) {
    dyn<float> acc = 0.0f;
    const int radius = size / 2;
    for (jit::stat<int> dy = 0; dy < size; ++dy) {
      for (jit::stat<int> dx = 0; dx < size; ++dx) {
        const float tap = taps[static_cast<std::size_t>(dy * size + dx)];
        if (tap == 0.0f) continue;
        dyn<int> xx = x + (dx - radius);
        dyn<int> yy = y + (dy - radius);
        if (xx >= 0 && xx < w && yy >= 0 && yy < h) acc = acc + in[yy * w + xx] * tap;
      }
    }
    out[y * w + x] = acc;
  }
}

inline void conv2d_generic(dyn<const float*> in, dyn<float*> out, dyn<const float*> filter,
                           dyn<int> w, dyn<int> h, dyn<int> size) {
  dyn<int> x = g::global_id_x();
  dyn<int> y = g::global_id_y();
  if (x < w && y < h) {
    dyn<float> acc = 0.0f;
    dyn<int> radius = size / 2;
    for (dyn<int> dy = 0; dy < size; ++dy) {
      for (dyn<int> dx = 0; dx < size; ++dx) {
        dyn<int> xx = x + dx - radius;
        dyn<int> yy = y + dy - radius;
        if (xx >= 0 && xx < w && yy >= 0 && yy < h) {
          acc = acc + in[yy * w + xx] * filter[dy * size + dx];
        }
      }
    }
    out[y * w + x] = acc;
  }
}

}  // namespace gpu_conv
