// A mini neural-network DSL in the style of the seed paper's (000, section
// 4.4): a 1-D convolution fuses the ReLU that follows it when every operation
// that can follow it is a ReLU with one threshold.
//
// The convolution cannot know what follows it when it generates its loop, so
// it reads a prophecy `next_relu` (a same-value lattice over the threshold)
// and marks its output with the history variable `is_last_convolution`. The
// next operation on that output requires the prophecy: a ReLU requires its
// threshold (and, if the prediction is that threshold, emits nothing: the
// convolution applied it); anything else requires "conflict". So two ReLUs
// with different thresholds on two paths, or a path without a ReLU, leave the
// convolution unfused.
//
// Used by nn_test.cpp and bench/stage_bench.cpp.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "jit/jit.h"

namespace nn {

inline float* rt_alloc(std::int32_t n);
inline void rt_consume(float* data);
inline void rt_timer() {}

struct runtime_fns {
  jit::external<float*(std::int32_t)> alloc;
  jit::external<void(float*)> consume;
  jit::external<void()> start_time;
  jit::external<void()> end_time;
};

inline const runtime_fns& runtime() {
  static const runtime_fns fns{
      jit::register_external("nn_alloc", &rt_alloc, jit::effect::effectful),
      jit::register_external("nn_consume", &rt_consume, jit::effect::effectful),
      jit::register_external("nn_start_time", &rt_timer, jit::effect::effectful),
      jit::register_external("nn_end_time", &rt_timer, jit::effect::effectful),
  };
  return fns;
}

// Buffers the staged program allocates, and the last one it consumed.
struct heap {
  std::deque<std::vector<float>> buffers;
  const float* consumed = nullptr;
  static heap& current() {
    static heap h;
    return h;
  }
};

inline float* rt_alloc(std::int32_t n) {
  return heap::current().buffers.emplace_back(static_cast<std::size_t>(n), 0.0f).data();
}
inline void rt_consume(float* data) {
  heap::current().consumed = data;
}

using threshold = jit::same_value<float>;
using threshold_lattice = jit::same_value_lattice<float>;

class tensor {
 public:
  tensor(jit::dyn<float*> data, int size) : size_(size), data_(std::move(data)) { runtime(); }
  explicit tensor(int size) : size_(size), data_(runtime().alloc(size)) {}
  tensor(tensor&&) = default;
  tensor(const tensor&) = delete;
  tensor& operator=(const tensor&) = delete;

  int size() const { return size_; }
  const jit::dyn<float*>& data() const { return data_; }

  // Called by every operation that reads this tensor: if it is a
  // convolution's output, what it does must be in the prophecy.
  void followed_by(const threshold& use) {
    if (!is_last_convolution_) return;
    is_last_convolution_ = false;
    next_relu_->require(use);
  }

  jit::stat<bool>& is_last_convolution() { return is_last_convolution_; }
  std::optional<jit::prophecy<threshold_lattice>>& next_relu() { return next_relu_; }

 private:
  int size_;
  jit::dyn<float*> data_;
  jit::stat<bool> is_last_convolution_ = false;
  std::optional<jit::prophecy<threshold_lattice>> next_relu_;
};

// out[i] = sum_j in[(i + j) % n] * filter[j], with the next ReLU fused in when
// the prophecy says every next operation is a ReLU with one threshold (and
// `fusion` is on: off, it is the paper's "fusion disabled" baseline).
inline tensor convolve(tensor& input, tensor& filter, bool fusion = true) {
  input.followed_by(threshold::conflict());
  filter.followed_by(threshold::conflict());
  tensor output(input.size());
  threshold fused;
  if (fusion) {
    output.is_last_convolution() = true;
    output.next_relu().emplace();
    fused = output.next_relu()->value();
  }
  for (jit::dyn<int> i = 0; i < input.size(); ++i) {
    jit::dyn<float> sum = 0.0f;
    for (jit::dyn<int> j = 0; j < filter.size(); ++j) {
      sum += input.data()[(i + j) % input.size()] * filter.data()[j];
    }
    if (fused.is_value()) {
      if (sum < fused.get()) sum = 0.0f;
    }
    output.data()[i] = sum;
  }
  return output;
}

// x >= threshold ? x : 0, in place (nothing at all when fused).
inline tensor relu(tensor& input, float t) {
  if (input.is_last_convolution()) {
    input.followed_by(threshold::of(t));
    const threshold predicted = input.next_relu()->value();
    if (predicted.is_value() && predicted.get() == t) return std::move(input);
  }
  input.followed_by(threshold::conflict());
  for (jit::dyn<int> i = 0; i < input.size(); ++i) {
    if (input.data()[i] < t) input.data()[i] = 0.0f;
  }
  return std::move(input);
}

// Hands a result to the host program.
inline void consume(tensor& t) {
  t.followed_by(threshold::conflict());
  runtime().consume(t.data());
}

}  // namespace nn
