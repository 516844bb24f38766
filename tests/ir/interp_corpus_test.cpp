// The interpreter on the hand-written IR corpus (tests/ir/programs/*.ir):
// every function lowers, and some run against the same code in C++.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include "runtime/ir/interp.h"
#include "runtime/ir/parser.h"

namespace augur::ir {
namespace {

namespace fs = std::filesystem;

Module corpus_module(const std::string& name) {
  std::ifstream in(fs::path(AUGUR_TEST_DATA) / "programs" / name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_module(text.str(), name);
}

// Host functions with the signatures the corpus declares.
double host_hypot(double x, double y) {
  return std::hypot(x, y);
}
std::uint32_t checksum(const std::uint8_t* p, std::int64_t n) {
  return static_cast<std::uint32_t>(std::accumulate(p, p + n, 0u));
}
void host_print(std::int64_t, double) {}
double host_sin(double x) {
  return std::sin(x);
}
double host_sum(const double* p, std::int64_t n) {
  return std::accumulate(p, p + n, 0.0);
}
void log_value(double) {}
std::int64_t next_id() {
  return 7;
}
void touch(std::int32_t*) {}

ExternTable corpus_externs() {
  ExternTable t;
  t.add("hypot", &host_hypot, Effect::Pure);
  t.add("checksum", &checksum, Effect::ReadOnly);
  t.add("host_print", &host_print, Effect::Effectful);
  t.add("host_sin", &host_sin, Effect::Pure);
  t.add("host_sum", &host_sum, Effect::ReadOnly);
  t.add("log_value", &log_value, Effect::Effectful);
  t.add("next_id", &next_id, Effect::Effectful);
  t.add("touch", &touch, Effect::Effectful);
  return t;
}

TEST(InterpCorpus, EveryFunctionLowers) {
  const ExternTable externs = corpus_externs();
  InterpOptions options;
  options.externs = &externs;
  std::size_t functions = 0;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(fs::path(AUGUR_TEST_DATA) / "programs")) {
    if (entry.path().extension() != ".ir") continue;
    const Module module = corpus_module(entry.path().filename().string());
    for (const Function& fn : module.functions) {
      EXPECT_NO_THROW(Interpreter(module, fn.name, options)) << entry.path() << ": " << fn.name;
      ++functions;
    }
  }
  EXPECT_GE(functions, 40u);
}

TEST(InterpCorpus, SumAndCollatzMatchCpp) {
  const Module sums = corpus_module("01_sum_while.ir");
  const Interpreter sum_to(sums, "sum_to");
  for (std::int32_t n = -5; n < 300; n += 7) {
    std::int32_t total = 0;
    for (std::int32_t i = 1; i <= n; ++i) total += i;
    EXPECT_EQ(sum_to.call<std::int32_t>(n), total) << n;
  }
  const Module collatz = corpus_module("31_collatz.ir");
  const Interpreter steps(collatz, "collatz_steps");
  for (std::uint64_t start = 1; start < 500; start += 3) {
    for (std::uint32_t limit : {5u, 1000u}) {
      std::uint64_t n = start;
      std::uint32_t count = 0;
      while (n != 1 && count != limit) {
        n = (n & 1) == 0 ? n >> 1 : 3 * n + 1;
        ++count;
      }
      EXPECT_EQ(steps.call<std::uint32_t>(start, limit), count) << start << ", " << limit;
    }
  }
}

TEST(InterpCorpus, LabelledExitsMatchCpp) {
  const Module module = corpus_module("34_labelled_exits.ir");
  const Interpreter first_pair(module, "first_pair");
  const Interpreter sum_until_zero(module, "sum_until_zero");
  const Interpreter first_negative(module, "first_negative");
  std::mt19937 rng(34);
  for (int round = 0; round < 300; ++round) {
    const int n = static_cast<int>(rng() % 12);
    std::vector<std::int32_t> v(static_cast<std::size_t>(n));
    for (std::int32_t& x : v) x = static_cast<std::int32_t>(rng() % 9) - 3;
    const std::int32_t target = static_cast<std::int32_t>(rng() % 9) - 2;
    std::int32_t found = -1;
    for (int i = 0; i < n && found < 0; ++i) {
      for (int j = i + 1; j < n; ++j) {
        if (v[j] < 0) break;  // continue 2: the next i
        if (v[i] + v[j] == target) {
          found = i * n + j;
          break;
        }
      }
    }
    EXPECT_EQ(first_pair.call<std::int32_t>(v.data(), n, target), found) << round;
    std::int32_t sum = 0;
    for (std::int32_t x : v) {
      if (x == 0) break;
      if (x > 0) sum += x;
    }
    EXPECT_EQ(sum_until_zero.call<std::int32_t>(v.data(), n), sum) << round;
    const int rows = 3;
    const int cols = n / rows;
    std::vector<std::int32_t> out(rows, 7);
    first_negative.launch({1}, {4}, v.data(), rows, cols, out.data());
    for (int r = 0; r < rows; ++r) {
      std::int32_t first = -1;
      for (int c = 0; c < cols && first < 0; ++c) {
        if (v[static_cast<std::size_t>(r * cols + c)] < 0) first = c;
      }
      EXPECT_EQ(out[static_cast<std::size_t>(r)], first) << round << ", row " << r;
    }
  }
}

TEST(InterpCorpus, SharedMemoryTreeReductionMatchesCpp) {
  const Module module = corpus_module("25_shared_reduce.ir");
  const Interpreter block_sum(module, "block_sum");
  std::mt19937 rng(21);
  const int n = 1000;
  std::vector<float> in(n);
  for (float& x : in) x = static_cast<float>(rng() % 10000) / 64.0f;
  const std::uint32_t blocks = (n + 255) / 256;
  std::vector<float> out(blocks, -1.0f);
  block_sum.launch({blocks}, {256}, in.data(), out.data(), n);
  for (std::uint32_t b = 0; b < blocks; ++b) {
    // The same tree: tile[t] += tile[t + s] for s = 128, 64, ..., 1.
    float tile[256];
    for (int t = 0; t < 256; ++t) {
      const int i = static_cast<int>(b) * 256 + t;
      tile[t] = i < n ? in[i] : 0.0f;
    }
    for (int s = 128; s > 0; s >>= 1) {
      for (int t = 0; t < s; ++t) tile[t] = tile[t] + tile[t + s];
    }
    EXPECT_EQ(out[b], tile[0]) << "block " << b;
  }
}

TEST(InterpCorpus, GridStrideSaxpyMatchesCpp) {
  const Module module = corpus_module("24_kernel_indices.ir");
  const Interpreter saxpy(module, "saxpy");
  std::vector<float> x(1000), y(1000), expected(1000);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i) * 0.5f;
    y[i] = 3.0f - static_cast<float>(i);
    expected[i] = 1.5f * x[i] + y[i];
  }
  saxpy.launch({3}, {64}, x.data(), y.data(), 1000, 1.5f);
  EXPECT_EQ(y, expected);
}

}  // namespace
}  // namespace augur::ir
