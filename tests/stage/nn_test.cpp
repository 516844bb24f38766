// The seed paper's second prophecy use: a convolution fuses the ReLU that
// follows it when every path applies a ReLU with the same threshold, and not
// when two paths use different thresholds or one path has no ReLU.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "jit/jit.h"
#include "nn.h"
#include "support.h"

namespace augur::stage::testing {
namespace {

constexpr int kSize = 12;
constexpr int kFilter = 3;

enum class shape { same_threshold, different_thresholds, one_path_without_relu, single_relu };

void program(jit::dyn<float*> in, jit::dyn<float*> w, jit::dyn<bool> flag, shape s) {
  nn::tensor input(in, kSize);
  nn::tensor filter(w, kFilter);
  nn::tensor conv = nn::convolve(input, filter);
  switch (s) {
    case shape::same_threshold:
    case shape::different_thresholds:
      if (flag) {
        nn::tensor out = nn::relu(conv, 2.0f);
        nn::consume(out);
      } else {
        nn::tensor out = nn::relu(conv, s == shape::same_threshold ? 2.0f : 4.0f);
        nn::consume(out);
      }
      break;
    case shape::one_path_without_relu:
      if (flag) {
        nn::tensor out = nn::relu(conv, 2.0f);
        nn::consume(out);
      } else {
        nn::consume(conv);
      }
      break;
    case shape::single_relu: {
      nn::tensor out = nn::relu(conv, 1.56f);
      nn::consume(out);
      break;
    }
  }
}

std::vector<float> expected(const std::vector<float>& in, const std::vector<float>& w, bool flag,
                            shape s) {
  std::vector<float> out(kSize);
  for (int i = 0; i < kSize; ++i) {
    float sum = 0.0f;
    for (int j = 0; j < kFilter; ++j) sum += in[(i + j) % kSize] * w[j];
    out[i] = sum;
  }
  float t = 0.0f;
  bool relu = true;
  switch (s) {
    case shape::same_threshold:
      t = 2.0f;
      break;
    case shape::different_thresholds:
      t = flag ? 2.0f : 4.0f;
      break;
    case shape::one_path_without_relu:
      t = 2.0f;
      relu = flag;
      break;
    case shape::single_relu:
      t = 1.56f;
      break;
  }
  if (relu) {
    for (float& x : out) {
      if (x < t) x = 0.0f;
    }
  }
  return out;
}

int loops(const jit::extraction& e) {
  const ir::Block& body = function_of(e).body;
  return count_statements(body, ir::StmtKind::For) + count_statements(body, ir::StmtKind::While);
}

void expect_matches_plain_cxx(const jit::extraction& e, shape s) {
  const ir::Interpreter interp = interpreter(e);
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  for (int round = 0; round < 20; ++round) {
    std::vector<float> in(kSize), w(kFilter);
    for (float& x : in) x = value(rng);
    for (float& x : w) x = value(rng);
    for (bool flag : {true, false}) {
      run<void>(interp, in.data(), w.data(), flag);
      const float* got = nn::heap::current().consumed;
      ASSERT_NE(got, nullptr);
      const std::vector<float> want = expected(in, w, flag, s);
      for (int i = 0; i < kSize; ++i) EXPECT_FLOAT_EQ(got[i], want[i]) << i;
    }
  }
}

TEST(ConvRelu, FusedWhenEveryPathAppliesTheSameThreshold) {
  const jit::extraction e = jit::extract(program, shape::same_threshold);
  // The convolution's two loops and nothing else: the ReLU is inside them.
  EXPECT_EQ(loops(e), 2);
  EXPECT_NE(e.ir().find("< 2.0f32"), std::string::npos);
  EXPECT_GE(e.report().prophecy_runs, 2u);
  expect_matches_plain_cxx(e, shape::same_threshold);
}

TEST(ConvRelu, NotFusedWhenPathsUseDifferentThresholds) {
  const jit::extraction e = jit::extract(program, shape::different_thresholds);
  EXPECT_EQ(loops(e), 2 + 2);  // one ReLU loop per path
  EXPECT_NE(e.ir().find("< 4.0f32"), std::string::npos);
  expect_matches_plain_cxx(e, shape::different_thresholds);
}

TEST(ConvRelu, NotFusedWhenAPathHasNoRelu) {
  const jit::extraction e = jit::extract(program, shape::one_path_without_relu);
  EXPECT_EQ(loops(e), 2 + 1);
  expect_matches_plain_cxx(e, shape::one_path_without_relu);
}

TEST(ConvRelu, FusedSingleRelu) {
  const jit::extraction e = jit::extract(program, shape::single_relu);
  EXPECT_EQ(loops(e), 2);
  EXPECT_NE(e.ir().find("< 1.56f32"), std::string::npos);
  expect_matches_plain_cxx(e, shape::single_relu);
}

}  // namespace
}  // namespace augur::stage::testing
