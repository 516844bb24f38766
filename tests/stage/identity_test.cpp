// Static tags and identities: the static state hash, call chains read from
// frame pointers or the unwinder, variable identity and naming, threads,
// nested extractions, and the report and dump of every extraction.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bf.h"
#include "jit/jit.h"
#include "runtime/stage/static_state.h"
#include "support.h"

namespace augur::stage::testing {
namespace {

std::span<const std::byte> bytes_of(const int& v) {
  return std::as_bytes(std::span(&v, 1));
}

TEST(StaticState, HashDependsOnLiveValuesNotHistory) {
  StaticState s;
  const int one = 1, two = 2, five = 5;
  const std::uint32_t a = s.attach(bytes_of(one));
  const std::uint32_t b = s.attach(bytes_of(two));
  const Tag start = s.hash();
  s.update(a, bytes_of(one), bytes_of(five));
  EXPECT_NE(s.hash(), start);
  s.update(a, bytes_of(five), bytes_of(one));
  EXPECT_EQ(s.hash(), start);
  // The same values under swapped keys are another state.
  s.update(a, bytes_of(one), bytes_of(two));
  s.update(b, bytes_of(two), bytes_of(one));
  EXPECT_NE(s.hash(), start);
  s.detach(b, bytes_of(one));
  s.detach(a, bytes_of(two));
  EXPECT_EQ(s.hash(), Tag{});
}

TEST(StaticState, KeysFollowConstructionOrderAndReuseTheLowestFree) {
  StaticState s;
  const int v = 7;
  EXPECT_EQ(s.attach(bytes_of(v)), 0u);
  EXPECT_EQ(s.attach(bytes_of(v)), 1u);
  EXPECT_EQ(s.attach(bytes_of(v)), 2u);
  s.detach(1, bytes_of(v));  // not the last one
  EXPECT_EQ(s.attach(bytes_of(v)), 1u);
  s.detach(2, bytes_of(v));
  s.detach(1, bytes_of(v));
  EXPECT_EQ(s.attach(bytes_of(v)), 1u);
}

TEST(Tags, BacktraceTagsGiveTheSameProgramsAsFramePointers) {
  jit::extract_options unwind;
  unwind.tags = jit::tag_source::backtrace;
  const std::string program = ",>,<[->[->+>+<<]>>[-<<+>>]<<<]>>.";
  const jit::extraction fp = jit::extract(bf::staged, program);
  const jit::extraction bt = jit::extract(unwind, bf::staged, program);
  EXPECT_EQ(fp.ir(), bt.ir());
  EXPECT_EQ(fp.report().control_flow_runs, bt.report().control_flow_runs);
  EXPECT_EQ(fp.report().tags_used, jit::tag_source::frame_pointers);
  EXPECT_EQ(bt.report().tags_used, jit::tag_source::backtrace);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// Calls f(arg) with the frame-pointer register overwritten, as code built
// without frame pointers may leave it.
[[gnu::noinline, gnu::optimize("omit-frame-pointer")]] void without_frame_pointer(void (*f)(void*),
                                                                                  void* arg) {
  asm volatile("xor %%ebp, %%ebp" ::: "rbp");
  f(arg);
  asm volatile("" ::: "memory");
}

TEST(Tags, ABrokenFramePointerChainFallsBackToTheUnwinder) {
  auto generator = [](jit::dyn<int> x) {
    auto body = [](void* p) {
      jit::dyn<int>& v = *static_cast<jit::dyn<int>*>(p);
      if (v > 0) v = v * 2;
      v = v + 1;
    };
    without_frame_pointer(+body, &x);
    return x;
  };
  const jit::extraction e = jit::extract(generator);
  EXPECT_EQ(e.report().tags_used, jit::tag_source::backtrace);
  const ir::Interpreter interp = interpreter(e);
  EXPECT_EQ(run<int>(interp, 5), 11);
  EXPECT_EQ(run<int>(interp, -5), -4);
}
#endif

[[gnu::noinline]] void step(jit::dyn<int>& x) {
  x = x + 1;
}

TEST(Tags, TheCallSiteOfAHelperIsPartOfItsTag) {
  // Were the two calls one place, the second would close a loop with the first.
  auto twice = [](jit::dyn<int> x, jit::dyn<int> n) {
    while (x < n) {
      step(x);
      if (x == 5) step(x);
    }
    return x;
  };
  const jit::extraction e = jit::extract(twice);
  const ir::Interpreter interp = interpreter(e);
  for (int x = -3; x < 12; ++x) {
    int want = x;
    while (want < 9) {
      ++want;
      if (want == 5) ++want;
    }
    EXPECT_EQ(run<int>(interp, x, 9), want) << x;
  }
}

TEST(Variables, ObjectsLiveAtOnceFromOnePlaceAreDistinct) {
  // A plain loop fills a vector: one declaration site, three variables.
  auto triple = [](jit::dyn<int> x) {
    std::vector<jit::dyn<int>> v;
    v.reserve(3);
    for (int i = 0; i < 3; ++i) v.emplace_back(x * (i + 2));
    return v[0] + v[1] * 10 + v[2] * 100;
  };
  EXPECT_EQ(run<int>(interpreter(jit::extract(triple)), 1), 2 + 30 + 400);
}

TEST(Variables, NamesAreValidAndUnique) {
  auto named = [](jit::dyn<int> x) {
    jit::dyn<int> a("total", x);
    jit::dyn<int> b("total", x + 1);
    jit::dyn<int> c("if", a + b);
    jit::dyn<int> d("two words!", c);
    jit::dyn<int> e("var0", d);
    jit::dyn<int> f = e * 2;
    jit::dyn<int> g("total", f);
    return g;
  };
  jit::extract_options options;
  options.name = "named";
  options.param_names = {"input"};
  const jit::extraction e = jit::extract(options, named);
  EXPECT_EQ(e.ir(),
            "fn named(input: i32) -> i32 {\n"
            "  var total: i32 = input;\n"
            "  var total.1: i32 = input + 1i32;\n"
            "  var if_: i32 = total + total.1;\n"
            "  var two_words_: i32 = if_;\n"
            "  var var0: i32 = two_words_;\n"
            "  var var1: i32 = var0 * 2i32;\n"
            "  var total.2: i32 = var1;\n"
            "  return total.2;\n"
            "}\n");
}

jit::dyn<long long> triangle(jit::dyn<long long> n) {
  jit::dyn<long long> s = 0;
  for (jit::dyn<long long> i = 1; i <= n; ++i) s += i;
  return s;
}

TEST(Threads, ConcurrentExtractionsAreIndependent) {
  const std::string reference_bf = jit::extract(bf::staged, std::string("+[->,.<]")).ir();
  const std::string reference_triangle = jit::extract(triangle).ir();
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 10; ++k) {
        if (t % 2 == 0) {
          mismatches[t] += jit::extract(bf::staged, std::string("+[->,.<]")).ir() != reference_bf;
        } else {
          mismatches[t] += jit::extract(triangle).ir() != reference_triangle;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST(Nesting, AGeneratorMayExtractAnotherProgram) {
  std::string inner_ir;
  auto outer = [&](jit::dyn<int> x) {
    if (inner_ir.empty()) inner_ir = jit::extract(triangle).ir();
    jit::dyn<int> y = x * 3;
    if (y > 5) y = y - 5;
    return y;
  };
  const jit::extraction e = jit::extract(outer);
  EXPECT_EQ(inner_ir, jit::extract(triangle).ir());
  EXPECT_EQ(run<int>(interpreter(e), 4), 7);
}

TEST(Report, CountsRunsTimeAndSize) {
  const jit::extraction e = jit::extract(triangle);
  const jit::stage_report& r = e.report();
  // One run: it takes the loop's exit when it comes round to the loop's test.
  EXPECT_EQ(r.control_flow_runs, 1u);
  EXPECT_EQ(r.prophecy_runs, 1u);
  EXPECT_GT(r.first_stage_time.count(), 0);
  // var s; for (var i = 1; i <= n; i = i + 1) { s = s + i; } return s;
  EXPECT_EQ(r.ir_statements, 6u);
  EXPECT_GT(r.tags, r.nodes);
  EXPECT_THAT(r.str(), ::testing::HasSubstr("control-flow runs 1, prophecy runs 1"));
}

TEST(Report, DumpedUnderAugurDumpStage) {
  ::setenv("AUGUR_DUMP", "ir,stage", 1);
  ::testing::internal::CaptureStderr();
  jit::extract_options options;
  options.name = "dumped";
  jit::extract(options, triangle);
  const std::string out = ::testing::internal::GetCapturedStderr();
  ::unsetenv("AUGUR_DUMP");
  EXPECT_THAT(out, ::testing::HasSubstr("augur stage: dumped: control-flow runs 1"));
  EXPECT_THAT(out, ::testing::HasSubstr("fn dumped(arg0: i64) -> i64 {"));
}

}  // namespace
}  // namespace augur::stage::testing
