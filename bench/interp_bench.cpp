// The IR interpreter against the same functions compiled natively by the
// system compiler at -O3 and at -O0 (interp_bench_native.cpp), on loop-heavy
// code and on call overhead. Each workload runs as <name>/native_O3,
// <name>/native_O0 and <name>/interp; the program ends with the slowdown
// ratios (interp CPU time / native CPU time) measured in the same run.
//
//   cmake --preset release && cmake --build --preset release --target interp_bench
//   build/release/bench/interp_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one line)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench/interp_bench_native.h"
#include "bench/support/ratio_reporter.h"
#include "runtime/ir/interp.h"
#include "tests/ir/interp_test_support.h"

namespace {

using namespace augur::ir;
using namespace augur::ir::testing;

// ---------------------------------------------------------------- IR

Function dot_ir() {
  FunctionBuilder b("dot", Type::f64());
  const Type f64p = Type::pointer_to(Scalar::F64);
  E x = b.read(b.param("a", f64p));
  E y = b.read(b.param("b", f64p));
  E n = b.read(b.param("n", Type::i32()));
  VarId s = b.declare("s", Type::f64());
  VarId i = b.new_local("i", Type::i32());
  b.for_([&] { b.emit(Stmt::decl(i, lit<std::int32_t>(0))); }, E(b.read(i)) < n,
         [&] { b.assign(i, E(b.read(i)) + 1); },
         [&] { b.assign(s, E(b.read(s)) + at(x, E(b.read(i))) * at(y, E(b.read(i)))); });
  b.return_(b.read(s));
  return std::move(b).finish();
}

Function gcd_ir() {
  FunctionBuilder b("gcd", Type::i64());
  VarId a = b.param("a", Type::i64());
  VarId c = b.param("b", Type::i64());
  b.while_(E(b.read(c)) != 0, [&] {
    VarId t = b.declare("t", Type::i64(), E(b.read(a)) % E(b.read(c)));
    b.assign(a, b.read(c));
    b.assign(c, b.read(t));
  });
  b.return_(b.read(a));
  return std::move(b).finish();
}

Function matmul_ir() {
  FunctionBuilder b("matmul", Type::void_());
  const Type f64p = Type::pointer_to(Scalar::F64);
  E x = b.read(b.param("a", f64p));
  E y = b.read(b.param("b", f64p));
  E z = b.read(b.param("c", f64p));
  E n = b.read(b.param("n", Type::i32()));
  VarId i = b.new_local("i", Type::i32());
  VarId j = b.new_local("j", Type::i32());
  VarId l = b.new_local("l", Type::i32());
  VarId acc = b.new_local("acc", Type::f64());
  const auto loop = [&](VarId v, const std::function<void()>& body) {
    b.for_([&] { b.emit(Stmt::decl(v, lit<std::int32_t>(0))); }, E(b.read(v)) < n,
           [&] { b.assign(v, E(b.read(v)) + 1); }, body);
  };
  loop(i, [&] {
    loop(j, [&] {
      b.emit(Stmt::decl(acc, lit(0.0)));
      loop(l, [&] {
        b.assign(acc, E(b.read(acc)) + at(x, E(b.read(i)) * n + E(b.read(l))) *
                                           at(y, E(b.read(l)) * n + E(b.read(j))));
      });
      b.store(z, E(b.read(i)) * n + E(b.read(j)), b.read(acc));
    });
  });
  return std::move(b).finish();
}

Function add_ir() {
  FunctionBuilder b("add", Type::i64());
  E x = b.read(b.param("a", Type::i64()));
  E y = b.read(b.param("b", Type::i64()));
  b.return_(x + y);
  return std::move(b).finish();
}

// ---------------------------------------------------------------- inputs

constexpr int kDot = 1000;
constexpr int kMatrix = 16;

std::vector<double> random_doubles(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

std::vector<std::pair<std::int64_t, std::int64_t>> gcd_pairs() {
  std::mt19937_64 rng(7);
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs(64);
  for (auto& [a, b] : pairs) {
    a = static_cast<std::int64_t>(rng() % 1000000000) + 1;
    b = static_cast<std::int64_t>(rng() % 1000000000) + 1;
  }
  return pairs;
}

// ---------------------------------------------------------------- benchmarks

// The native functions of one optimization level.
struct Native {
  double (*dot)(const double*, const double*, int);
  std::int64_t (*gcd)(std::int64_t, std::int64_t);
  void (*matmul)(const double*, const double*, double*, int);
  std::int64_t (*add)(std::int64_t, std::int64_t);
};
constexpr Native kO3{native_o3::dot, native_o3::gcd, native_o3::matmul, native_o3::add};
constexpr Native kO0{native_o0::dot, native_o0::gcd, native_o0::matmul, native_o0::add};

void dot_native(benchmark::State& state, Native native) {
  const auto a = random_doubles(kDot, 1), b = random_doubles(kDot, 2);
  for (auto _ : state) benchmark::DoNotOptimize(native.dot(a.data(), b.data(), kDot));
}

void dot_interp(benchmark::State& state) {
  const auto a = random_doubles(kDot, 1), b = random_doubles(kDot, 2);
  const Interpreter dot = interpreter(dot_ir());
  if (dot.call<double>(a.data(), b.data(), kDot) != kO0.dot(a.data(), b.data(), kDot)) {
    state.SkipWithError("interpreter and native results differ");
  }
  for (auto _ : state) benchmark::DoNotOptimize(dot.call<double>(a.data(), b.data(), kDot));
}

void gcd_native(benchmark::State& state, Native native) {
  const auto pairs = gcd_pairs();
  for (auto _ : state) {
    for (const auto& [a, b] : pairs) benchmark::DoNotOptimize(native.gcd(a, b));
  }
}

void gcd_interp(benchmark::State& state) {
  const auto pairs = gcd_pairs();
  const Interpreter gcd = interpreter(gcd_ir());
  for (const auto& [a, b] : pairs) {
    if (gcd.call<std::int64_t>(a, b) != kO0.gcd(a, b)) {
      state.SkipWithError("interpreter and native results differ");
    }
  }
  for (auto _ : state) {
    for (const auto& [a, b] : pairs) benchmark::DoNotOptimize(gcd.call<std::int64_t>(a, b));
  }
}

void matmul_native(benchmark::State& state, Native native) {
  const auto a = random_doubles(kMatrix * kMatrix, 3), b = random_doubles(kMatrix * kMatrix, 4);
  std::vector<double> c(kMatrix * kMatrix);
  for (auto _ : state) {
    native.matmul(a.data(), b.data(), c.data(), kMatrix);
    benchmark::ClobberMemory();
  }
}

void matmul_interp(benchmark::State& state) {
  const auto a = random_doubles(kMatrix * kMatrix, 3), b = random_doubles(kMatrix * kMatrix, 4);
  std::vector<double> c(kMatrix * kMatrix), expected(c.size());
  const Interpreter matmul = interpreter(matmul_ir());
  kO0.matmul(a.data(), b.data(), expected.data(), kMatrix);
  matmul.call<void>(a.data(), b.data(), c.data(), kMatrix);
  if (c != expected) state.SkipWithError("interpreter and native results differ");
  for (auto _ : state) {
    matmul.call<void>(a.data(), b.data(), c.data(), kMatrix);
    benchmark::ClobberMemory();
  }
}

void call_native(benchmark::State& state, Native native) {
  std::int64_t x = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x);
    benchmark::DoNotOptimize(native.add(x, 2));
  }
}

void call_interp(benchmark::State& state) {
  const Interpreter add = interpreter(add_ir());
  std::int64_t x = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x);
    benchmark::DoNotOptimize(add.call<std::int64_t>(x, std::int64_t{2}));
  }
}

BENCHMARK_CAPTURE(dot_native, native_O3, kO3)->Name("dot1000/native_O3");
BENCHMARK_CAPTURE(dot_native, native_O0, kO0)->Name("dot1000/native_O0");
BENCHMARK(dot_interp)->Name("dot1000/interp");
BENCHMARK_CAPTURE(gcd_native, native_O3, kO3)->Name("gcd64pairs/native_O3");
BENCHMARK_CAPTURE(gcd_native, native_O0, kO0)->Name("gcd64pairs/native_O0");
BENCHMARK(gcd_interp)->Name("gcd64pairs/interp");
BENCHMARK_CAPTURE(matmul_native, native_O3, kO3)->Name("matmul16/native_O3");
BENCHMARK_CAPTURE(matmul_native, native_O0, kO0)->Name("matmul16/native_O0");
BENCHMARK(matmul_interp)->Name("matmul16/interp");
BENCHMARK_CAPTURE(call_native, native_O3, kO3)->Name("call_add/native_O3");
BENCHMARK_CAPTURE(call_native, native_O0, kO0)->Name("call_add/native_O0");
BENCHMARK(call_interp)->Name("call_add/interp");

// After the usual table, interp/native for every workload that ran both.
void print_slowdowns(const augur::bench::RatioReporter& report) {
  std::printf("\nslowdown (interp CPU time / native CPU time):\n");
  std::printf("  %-12s %10s %10s\n", "workload", "vs -O3", "vs -O0");
  const auto ratio = [&](const augur::bench::RunTimes& interp, const std::string& native) {
    const augur::bench::RunTimes* n = report.find(native);
    return n && n->error.empty() ? interp.cpu_ns / n->cpu_ns : 0.0;
  };
  for (const auto& [name, times] : report.runs()) {
    const auto slash = name.rfind("/interp");
    if (slash == std::string::npos || !times.error.empty()) continue;
    const std::string workload = name.substr(0, slash);
    std::printf("  %-12s %9.1fx %9.1fx\n", workload.c_str(), ratio(times, workload + "/native_O3"),
                ratio(times, workload + "/native_O0"));
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  augur::bench::RatioReporter reporter(print_slowdowns);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
