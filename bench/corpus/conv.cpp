// The convolution family: a small CNN layer pipeline specialized to its
// weights and unrolled over static shapes, as a tensor compiler would emit it
// for one image size: a 3×3 convolution with 2 output channels (the filter
// and bias are constants), ReLU, 2×2 max pooling, and a dense layer of 4
// outputs (the einsum o,j <- W[o][j] · x[j]). The feature maps go through a
// scratch buffer, so the program is mostly loads, stores and multiply-adds.
// The knob is the side of the square input image. No dyn branch: staging is
// one run. Per-pixel variables stay unnamed (see arith.cpp: many copies of
// one user name make staging quadratic).
#include <cstdint>
#include <string>
#include <vector>

#include "bench/corpus/families.h"
#include "bench/corpus/rng.h"

namespace augur::bench::corpus {
namespace {

constexpr int kFilter = 3;
constexpr int kChannels = 2;
constexpr int kOutputs = 4;

struct Shape {
  int side = 0;      // the input image is side × side
  int conv = 0;      // the convolution's output is conv × conv per channel
  int pooled = 0;    // after 2×2 pooling: pooled × pooled per channel
  int features = 0;  // inputs of the dense layer
};

Shape shape_of(int side) {
  Shape s;
  s.side = side;
  s.conv = side - kFilter + 1;
  s.pooled = s.conv / 2;
  s.features = kChannels * s.pooled * s.pooled;
  return s;
}

struct Weights {
  Shape shape;
  std::vector<float> filter;  // [channel][ky][kx]
  std::vector<float> bias;    // [channel]
  std::vector<float> dense;   // [output][feature]
};

Weights random_weights(int side, std::uint64_t seed) {
  Rng rng(seed);
  Weights w;
  w.shape = shape_of(side);
  auto weight = [&] { return static_cast<float>(rng.unit() * 2 - 1); };
  for (int i = 0; i < kChannels * kFilter * kFilter; ++i) w.filter.push_back(weight());
  for (int i = 0; i < kChannels; ++i) w.bias.push_back(weight());
  for (int i = 0; i < kOutputs * w.shape.features; ++i) w.dense.push_back(weight() / 16);
  return w;
}

void pipeline(jit::dyn<const float*> image, jit::dyn<float*> scratch, jit::dyn<float*> out,
              const Weights& w) {
  const Shape& s = w.shape;
  // Convolution and ReLU into scratch[channel][y][x].
  for (jit::stat<int> ch = 0; ch < kChannels; ++ch) {
    for (jit::stat<int> y = 0; y < s.conv; ++y) {
      for (jit::stat<int> x = 0; x < s.conv; ++x) {
        jit::dyn<float> acc(w.bias[ch]);
        for (jit::stat<int> ky = 0; ky < kFilter; ++ky)
          for (jit::stat<int> kx = 0; kx < kFilter; ++kx)
            acc = acc +
                  image[(y + ky) * s.side + x + kx] * w.filter[(ch * kFilter + ky) * kFilter + kx];
        scratch[(ch * s.conv + y) * s.conv + x] = jit::max(acc, 0.0f);
      }
    }
  }
  // 2×2 max pooling, in place at the front of the scratch buffer (each
  // pooled cell is written after the four it reads, which lie at or after it).
  for (jit::stat<int> ch = 0; ch < kChannels; ++ch) {
    for (jit::stat<int> y = 0; y < s.pooled; ++y) {
      for (jit::stat<int> x = 0; x < s.pooled; ++x) {
        auto at = [&](int dy, int dx) { return (ch * s.conv + 2 * y + dy) * s.conv + 2 * x + dx; };
        const jit::dyn<float> top(jit::max(scratch[at(0, 0)], scratch[at(0, 1)]));
        const jit::dyn<float> bottom(jit::max(scratch[at(1, 0)], scratch[at(1, 1)]));
        scratch[(ch * s.pooled + y) * s.pooled + x] = jit::max(top, bottom);
      }
    }
  }
  // The dense layer.
  for (jit::stat<int> o = 0; o < kOutputs; ++o) {
    jit::dyn<float> sum("sum", 0.0f);
    for (jit::stat<int> j = 0; j < s.features; ++j)
      sum = sum + scratch[j] * w.dense[o * s.features + j];
    out[o] = sum;
  }
}

}  // namespace

Program make_conv(std::size_t side) {
  if (side < 4 || side > 4096) throw jit::error("corpus: a convolution image side is 4 to 4096");
  const Shape s = shape_of(static_cast<int>(side));
  Program p;
  p.family = "conv";
  p.size = side;
  p.name = "conv_" + std::to_string(side);
  p.description = "conv3x3 x2 + ReLU + maxpool + dense 4, image " + std::to_string(side) + "x" +
                  std::to_string(side);
  p.params = {
      {"image", ir::type_of<const float*>(), side * side, -2, 2, false},
      {"scratch", ir::type_of<float*>(), static_cast<std::size_t>(kChannels * s.conv * s.conv), -2,
       2, true},
      {"out", ir::type_of<float*>(), kOutputs, -2, 2, true},
  };
  p.stage = [name = p.name, w = random_weights(static_cast<int>(side), side)] {
    jit::extract_options options;
    options.name = name;
    options.param_names = {"image", "scratch", "out"};
    return jit::extract(options, pipeline, w);
  };
  return p;
}

}  // namespace augur::bench::corpus
