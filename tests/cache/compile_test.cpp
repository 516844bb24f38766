// jit::compile end to end: signatures, keys, options, the cache's hits and
// misses, failures, eviction and the second level.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <thread>

#include "jit/cpu/statistics.h"
#include "jit/jit.h"
#include "tests/support/staged_programs.h"

namespace {

using augur::staged::plain_power;
using augur::staged::power;

TEST(Compile, PowerGivesTheRightResultsForManyExponents) {
  for (int n = 0; n <= 20; ++n) {
    const jit::function<double(double)> f = jit::compile(power, n);
    for (double x : {-1.5, 0.0, 0.5, 2.0, 3.0}) EXPECT_EQ(f(x), plain_power(x, n)) << x << "^" << n;
  }
}

TEST(Compile, ARepeatedRequestIsAHitWithTheSameCode) {
  const jit::function<double(double)> first = jit::compile(power, 101);
  const jit::cache_statistics before = jit::cache_stats();
  const jit::function<double(double)> again = jit::compile(power, 101);
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_EQ(again.pointer(), first.pointer());
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.hits, before.hits + 1);
  EXPECT_EQ(after.requests, before.requests + 1);
  EXPECT_EQ(again(1.0), 1.0);
}

TEST(Compile, AHitOnAnotherThreadComesFromTheSharedCache) {
  const jit::function<double(double)> first = jit::compile(power, 102);
  const jit::cache_statistics before = jit::cache_stats();
  jit::function<double(double)> other;
  std::thread([&] { other = jit::compile(power, 102); }).join();
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_EQ(other.pointer(), first.pointer());
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.hits, before.hits + 1);
}

// Outputs through pointers, a void result, several dyn parameters between
// static ones.
void axpy(jit::dyn<double*> y, double a, jit::dyn<const double*> x, int n, jit::dyn<int> offset) {
  for (jit::stat<int> i = 0; i < n; ++i) y[offset + i] = y[offset + i] + a * x[i];
}

TEST(Compile, DynParametersBecomeTheSignatureInOrder) {
  const jit::function<void(double*, const double*, int)> f = jit::compile(axpy, 2.0, 3);
  std::array<double, 5> y{1, 1, 1, 1, 1};
  const std::array<double, 3> x{1, 2, 3};
  f(y.data(), x.data(), 1);
  EXPECT_EQ(y, (std::array<double, 5>{1, 3, 5, 7, 1}));
}

// A staged program of a few hundred loops: the PEG optimizer cuts it into
// regions (docs/peg.md) and the statistics count them.
void triangles(jit::dyn<int*> v, int n) {
  for (jit::stat<int> k = 0; k < n; ++k) {
    jit::dyn<int> i = 0;
    while (i <= k % 7) {
      v[k] = v[k] + i;
      i = i + 1;
    }
  }
}

TEST(Compile, ALargeFunctionIsOptimizedRegionByRegion) {
  constexpr int kN = 300;
  const jit::cache_statistics before = jit::cache_stats();
  const jit::function<void(int*)> f = jit::compile(triangles, kN);
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_GT(after.regions_optimized, before.regions_optimized);
  std::vector<int> v(kN, 1);
  f(v.data());
  for (int k = 0; k < kN; ++k) EXPECT_EQ(v[k], 1 + (k % 7) * (k % 7 + 1) / 2) << k;
}

// One step of a staged automaton: a tree of branches on the input, nothing
// for saturation to make cheaper. The optimizer leaves it as written (its
// branches reverted came back as `?:` chains) and the statistics say so.
jit::dyn<int> automaton_step(jit::dyn<int> c, jit::dyn<int> matches, int low) {
  jit::dyn<int> state = 0;
  if (c < low) {
    if (c < low / 2) {
      state = 7;
    } else {
      state = 3;
      matches = matches + 1;
    }
  } else if (c < 2 * low) {
    state = 9;
  } else {
    state = 1;
    matches = matches + 1;
  }
  return state + matches;
}

TEST(Compile, CodeSaturationCannotImproveIsLeftAsWritten) {
  const jit::cache_statistics before = jit::cache_stats();
  const jit::function<int(int, int)> step = jit::compile(automaton_step, 100);
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_EQ(after.functions_unchanged, before.functions_unchanged + 1);
  EXPECT_EQ(after.functions_optimized, before.functions_optimized + 1);
  EXPECT_EQ(step(10, 50), 57);
  EXPECT_EQ(step(60, 50), 54);
  EXPECT_EQ(step(150, 50), 59);
  EXPECT_EQ(step(250, 50), 52);
}

// Strings, vectors and tuples as static arguments.
jit::dyn<int> weighted(jit::dyn<const int*> v, const std::vector<int>& weights,
                       const std::string& op) {
  jit::dyn<int> total("total", 0);
  for (jit::stat<std::size_t> i = 0; i < weights.size(); ++i) {
    if (op == "sum") total = total + v[static_cast<int>(i)] * weights[i];
    if (op == "max") total = total + v[static_cast<int>(i)] * weights[i] * 2;
  }
  return total;
}

TEST(Compile, StaticArgumentsOfLibraryTypesKeyTheirVersions) {
  const std::array<int, 3> v{1, 10, 100};
  const auto sum12 = jit::compile(weighted, std::vector<int>{1, 2}, std::string("sum"));
  const auto sum123 = jit::compile(weighted, std::vector<int>{1, 2, 3}, std::string("sum"));
  const auto max12 = jit::compile(weighted, std::vector<int>{1, 2}, std::string("max"));
  EXPECT_EQ(sum12(v.data()), 21);
  EXPECT_EQ(sum123(v.data()), 321);
  EXPECT_EQ(max12(v.data()), 42);
}

TEST(Compile, LambdasAreGenerators) {
  const auto twice = [](jit::dyn<int> x) { return jit::dyn<int>(x * 2); };
  const auto plus = [](jit::dyn<int> x, int k) { return jit::dyn<int>(x + k); };
  EXPECT_EQ(jit::compile(twice)(21), 42);
  EXPECT_EQ(jit::compile(plus, 5)(1), 6);
  EXPECT_EQ(jit::compile(plus, 7)(1), 8);
}

jit::dyn<int> add_k(jit::dyn<int> x, int k) {
  return x + k;
}
jit::dyn<int> add_k_again(jit::dyn<int> x, int k) {
  return x + k;
}

TEST(Compile, EqualProgramsFromTwoGeneratorsShareOneVersion) {
  const auto first = jit::compile(add_k, 1234);
  const jit::cache_statistics before = jit::cache_stats();
  const auto second = jit::compile(add_k_again, 1234);
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_EQ(after.compiles, before.compiles + 1);  // a new first-level entry
  EXPECT_EQ(after.programs_shared, before.programs_shared + 1);
  EXPECT_EQ(second.pointer(), first.pointer());
  EXPECT_EQ(second(1), 1235);
  // Different programs are not shared.
  EXPECT_NE(jit::compile(add_k_again, 1235).pointer(), first.pointer());
}

jit::dyn<int> sum_below(jit::dyn<int> x, int count) {
  jit::dyn<int> sum = 0;
  for (jit::stat<int> i = 0; i < count; ++i) {
    if (x > i) sum = sum + i;
  }
  return sum;
}

TEST(Compile, ExtractionOptionsReachTheFirstStage) {
  jit::compile_options options;
  options.name = "budgeted";
  options.extraction.max_nodes = 50;
  try {
    jit::compile(options, sum_below, 100);
    ADD_FAILURE() << "200 nodes compiled under a budget of 50";
  } catch (const jit::staging_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 50 statements"), std::string::npos) << e.what();
  }
  // The budget does not change the key: within it the same request compiles.
  options.extraction.max_nodes = 1000;
  EXPECT_EQ(jit::compile(options, sum_below, 100)(50), 1225);

  // Parameter names are part of the key: they change the program.
  jit::compile_options named;
  named.dump_ir = true;
  named.extraction.param_names = {"limit"};
  std::string ir;
  named.dump_sink = [&](std::string_view kind, std::string_view text) {
    if (kind == "ir") ir = text;
  };
  EXPECT_EQ(jit::compile(named, sum_below, 3)(2), 1);
  EXPECT_NE(ir.find("(limit: i32)"), std::string::npos) << ir;
}

TEST(Compile, FunctionsReportTheirFirstStage) {
  const auto f = jit::compile(sum_below, 40);
  const jit::stage_report* r = f.stage_report();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->control_flow_runs, 2u);  // all 40 `else`s in the second run
  EXPECT_EQ(r->prophecy_runs, 1u);
  EXPECT_EQ(r->nodes, 82u);  // declaration, 40 x (branch, assignment), return
  EXPECT_GT(r->first_stage_time.count(), 0);
  EXPECT_GT(r->ir_statements, 40u);
  // A hit, here and on another thread, reports the same extraction.
  EXPECT_EQ(jit::compile(sum_below, 40).stage_report(), r);
  const jit::stage_report* other = nullptr;
  std::thread([&] { other = jit::compile(sum_below, 40).stage_report(); }).join();
  EXPECT_EQ(other, r);
  // A shared version reports the extraction that compiled it.
  const auto first = jit::compile(add_k, 4321);
  const auto second = jit::compile(add_k_again, 4321);
  EXPECT_EQ(second.stage_report(), first.stage_report());
  EXPECT_EQ(jit::function<int(int)>().stage_report(), nullptr);
}

TEST(Compile, OptionsArePartOfTheKey) {
  jit::compile_options o0;
  o0.opt_level = 0;
  jit::compile_options named;
  named.name = "pow7";
  jit::compile_options generic;
  generic.cpu = "x86-64";
  const auto a = jit::compile(power, 7);
  const auto b = jit::compile(o0, power, 7);
  const auto c = jit::compile(named, power, 7);
  const auto d = jit::compile(generic, power, 7);
  for (const auto* f : {&b, &c, &d}) {
    EXPECT_NE(f->pointer(), a.pointer());
    EXPECT_EQ((*f)(2.0), 128.0);
  }
  EXPECT_EQ(a(2.0), 128.0);
}

TEST(Compile, DumpsReachTheSink) {
  std::vector<std::string> kinds;
  std::string ir;
  jit::compile_options options;
  options.name = "dumped";
  options.dump_ir = true;
  options.dump_llvm = true;
  options.dump_asm = true;
  options.dump_sink = [&](std::string_view kind, std::string_view text) {
    kinds.emplace_back(kind);
    if (kind == "ir") ir = text;
  };
  jit::compile(options, power, 3);
  EXPECT_EQ(kinds, (std::vector<std::string>{"ir", "llvm", "llvm-optimized", "asm"}));
  EXPECT_NE(ir.find("fn dumped("), std::string::npos) << ir;
  kinds.clear();
  jit::compile(options, power, 3);  // a hit compiles nothing, dumps nothing
  EXPECT_TRUE(kinds.empty());
}

jit::dyn<int> fails_for_negative(jit::dyn<int> x, int k) {
  if (k < 0) throw std::runtime_error("negative k");
  return x + k;
}

TEST(Compile, AFailedCompileIsNotCachedAndRetried) {
  const auto existing = jit::compile(fails_for_negative, 3);
  const jit::cache_statistics before = jit::cache_stats();
  EXPECT_THROW(jit::compile(fails_for_negative, -1), jit::staging_error);
  EXPECT_THROW(jit::compile(fails_for_negative, -1), jit::staging_error);
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_EQ(after.compiles, before.compiles + 2);
  EXPECT_EQ(after.failures, before.failures + 2);
  EXPECT_EQ(after.entries, before.entries);
  EXPECT_EQ(existing(1), 4);
  EXPECT_EQ(jit::compile(fails_for_negative, 3).pointer(), existing.pointer());
  EXPECT_EQ(jit::compile(fails_for_negative, 1)(1), 2);
}

TEST(Compile, AnInvalidOptLevelIsAnError) {
  jit::compile_options options;
  options.opt_level = 4;
  EXPECT_THROW(jit::compile(options, power, 2), jit::error);
}

TEST(Compile, AsyncCompilesGiveFunctionsOrErrors) {
  auto ok = jit::compile_async(power, 5);
  auto bad = jit::compile_async(fails_for_negative, -2);
  EXPECT_EQ(ok.get()(2.0), 32.0);
  EXPECT_THROW(bad.get(), jit::staging_error);
}

TEST(Compile, EvictedVersionsStayCallableWhileReferenced) {
  jit::clear_cache();
  const std::size_t capacity = jit::cache_capacity();
  jit::set_cache_capacity(2);
  const jit::cache_statistics before = jit::cache_stats();
  jit::function<double(double)> kept = jit::compile(power, 201);
  for (int n = 202; n < 206; ++n) jit::compile(power, n);
  const jit::cache_statistics after = jit::cache_stats();
  EXPECT_LE(after.entries, 2u);
  EXPECT_GE(after.evictions, before.evictions + 3);
  EXPECT_EQ(kept(1.0), 1.0);
  EXPECT_EQ(kept(-1.0), -1.0);

  // The raw entry stays valid while keep_alive() holds the version ...
  std::shared_ptr<const void> owner = kept.keep_alive();
  double (*const entry)(double) = kept.pointer();
  kept = {};
  EXPECT_EQ(entry(-1.0), -1.0);
  // ... and its code is unloaded when the last reference goes (after this
  // thread's lookups have let go of evicted versions).
  jit::compile(power, 205);
  const auto unloaded = augur::cpu::statistics().versions_unloaded;
  owner.reset();
  EXPECT_EQ(augur::cpu::statistics().versions_unloaded, unloaded + 1);
  jit::set_cache_capacity(capacity);
}

}  // namespace
