// jit::gpu::compile keyed like jit::compile: a repeated request neither
// stages nor emits, every option that decides the code is in the key, a
// failure leaves nothing cached, compile_async takes the same path; and the
// PEG optimizer on kernels at O2: user rules fire in them, its reports are
// dumped, O0 and O2 kernels compute the same on random inputs, and every test
// kernel, optimized, leaves the memory the interpreter leaves.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "jit/gpu.h"
#include "jit/jit.h"
#include "runtime/cache/pipeline.h"
#include "support.h"

namespace augur::gpu::testing {
namespace {

namespace g = jit::gpu;

g::options on_cpu(const char* name, int opt_level = 2) {
  g::options options;
  options.where = g::target::cpu;
  options.name = name;
  options.opt_level = opt_level;
  return options;
}

// How many times a generator's first stage ran: a hit must not run it.
std::atomic<int> scale_stagings{0};

void counted_scale(jit::dyn<float*> v, jit::dyn<int> n, float a) {
  ++scale_stagings;
  jit::dyn<int> i = g::global_id_x();
  if (i < n) v[i] = v[i] * a;
}

TEST(KeyedKernels, AHitNeitherStagesNorEmits) {
  const g::options options = on_cpu("keyed_scale");
  const g::statistics before = g::stats();
  const auto first = g::compile(options, counted_scale, 2.0f);
  const int staged = scale_stagings.load();
  EXPECT_GT(staged, 0);

  const auto second = g::compile(options, counted_scale, 2.0f);
  EXPECT_EQ(scale_stagings.load(), staged);
  // The very same compiled kernel, its strings included.
  EXPECT_EQ(&second.cuda_source(), &first.cuda_source());
  const g::statistics after = g::stats();
  EXPECT_EQ(after.memory_hits, before.memory_hits + 1);
  EXPECT_EQ(after.memory_misses, before.memory_misses + 1);
  EXPECT_EQ(after.compiles, before.compiles + 1);

  // Another thread has no entry of its own yet: the shared cache serves it.
  std::thread([&] {
    const auto third = g::compile(options, counted_scale, 2.0f);
    EXPECT_EQ(&third.cuda_source(), &first.cuda_source());
  }).join();
  EXPECT_EQ(scale_stagings.load(), staged);
  EXPECT_EQ(g::stats().memory_hits, before.memory_hits + 2);

  std::vector<float> host = {1.0f, 2.0f, 3.0f};
  g::buffer<float> v(host, second.where());
  second.launch(1, 4, v, 3);
  EXPECT_EQ(v.to_vector(), (std::vector<float>{2.0f, 4.0f, 6.0f}));
}

TEST(KeyedKernels, StaticValuesTypesAndOptionsAreInTheKey) {
  const g::options options = on_cpu("keyed_scale_key");
  g::compile(options, counted_scale, 3.0f);
  int staged = scale_stagings.load();
  const auto expect_staged = [&](bool again) {
    EXPECT_EQ(scale_stagings.load() > staged, again);
    staged = scale_stagings.load();
  };
  g::compile(options, counted_scale, 3.5f);  // another value
  expect_staged(true);
  g::compile(options, counted_scale, 3.0);  // another type (double, converted)
  expect_staged(true);
  for (auto change :
       {+[](g::options& o) { o.name = "keyed_scale_other"; },
        +[](g::options& o) { o.opt_level = 0; }, +[](g::options& o) { o.cpu_opt_level = 1; },
        +[](g::options& o) { o.arch = "compute_80"; },
        +[](g::options& o) { o.nvrtc_options = {"-DX=1"}; },
        +[](g::options& o) { o.where = g::target::automatic; }}) {
    g::options changed = options;
    change(changed);
    g::compile(changed, counted_scale, 3.0f);
    // Automatic is the CPU where there is no GPU, but a key takes the options as given.
    expect_staged(true);
  }
  // The disk cache's options choose where an image may come from, not what it is.
  g::options elsewhere = options;
  elsewhere.disk_cache = false;
  elsewhere.cache_dir = "/nonexistent/augur";
  g::compile(elsewhere, counted_scale, 3.0f);
  expect_staged(false);
}

std::atomic<bool> refuse{false};

void refusing(jit::dyn<int*> out, int value) {
  if (refuse) throw std::runtime_error("refused by the first stage");
  out[g::global_id_x()] = value;
}

TEST(KeyedKernels, AFailureLeavesNothingCached) {
  const g::options options = on_cpu("keyed_refusing");
  const std::uint64_t failures = g::stats().failures;
  refuse = true;
  EXPECT_THROW(g::compile(options, refusing, 7), std::runtime_error);
  EXPECT_THROW(g::compile(options, refusing, 7), std::runtime_error);  // tried again
  EXPECT_EQ(g::stats().failures, failures + 2);
  refuse = false;
  const auto k = g::compile(options, refusing, 7);
  g::buffer<int> out(std::vector<int>(2, 0), k.where());
  k.launch(1, 2, out);
  EXPECT_EQ(out.to_vector(), (std::vector<int>{7, 7}));
}

// The shared cache's deadlock detection holds for kernels: a first stage
// asking for the kernel its own thread is compiling gets an error, not a hang.
void asks_for_itself(jit::dyn<int*> out, int value) {
  g::compile(on_cpu("keyed_itself"), asks_for_itself, value);
  out[0] = value;
}

TEST(KeyedKernels, AFirstStageAskingForItsOwnKernelThrows) {
  try {
    g::compile(on_cpu("keyed_itself"), asks_for_itself, 1);
    FAIL() << "compiled a kernel whose first stage waits for itself";
  } catch (const jit::error& e) {
    EXPECT_NE(e.message().find("it would wait for itself"), std::string::npos) << e.message();
    EXPECT_EQ(e.message().rfind("jit::gpu::compile: ", 0), 0u) << e.message();
  }
}

TEST(KeyedKernels, CompileAsyncTakesTheKeyedPath) {
  const g::options options = on_cpu("keyed_async");
  const auto k = g::compile(options, counted_scale, 5.0f);
  const int staged = scale_stagings.load();
  const auto later = g::compile_async(options, counted_scale, 5.0f).get();
  EXPECT_EQ(scale_stagings.load(), staged);
  EXPECT_EQ(&later.cuda_source(), &k.cuda_source());
  const auto other = g::compile_async(options, counted_scale, 6.0f).get();
  EXPECT_GT(scale_stagings.load(), staged);
  EXPECT_EQ(g::compile(options, counted_scale, 6.0f).cuda_source(), other.cuda_source());
}

// Kernels of different keys that are the same program share their compiled code.
void triple_float(jit::dyn<float*> v, jit::dyn<int> n) {
  jit::dyn<int> i = g::global_id_x();
  if (i < n) v[i] = v[i] * 3.0f;
}

TEST(KeyedKernels, EqualProgramsShareTheirCode) {
  const g::options options = on_cpu("keyed_shared");
  const std::uint64_t compiles = g::stats().fallback_compiles;
  const std::uint64_t shared = g::stats().programs_shared;
  const auto a = g::compile(options, counted_scale, 3.0f);
  const auto b = g::compile(options, triple_float);
  EXPECT_EQ(a.ir(), b.ir());
  EXPECT_EQ(g::stats().fallback_compiles, compiles + 1);
  EXPECT_EQ(g::stats().programs_shared, shared + 1);
}

// ---------------------------------------------------------------- PEG on kernels

void times_three(jit::dyn<int*> v, jit::dyn<int> n) {
  jit::dyn<int> i = g::global_id_x();
  if (i < n) v[i] = v[i] * 3;
}

// A rule no built-in axiom knows (and, being false, one whose effect shows in
// the results): the optimizer trusts user rules.
TEST(PegOnKernels, AUserRuleFiresInAKernelAtO2) {
  jit::register_rule("times-three-is-identity", "(mul.i32 ?a 3i32) => ?a");
  const auto o2 = g::compile(on_cpu("rule_o2"), times_three);
  const auto o0 = g::compile(on_cpu("rule_o0", 0), times_three);
  jit::unregister_rule("times-three-is-identity");

  EXPECT_EQ(o2.ir().find("3i32"), std::string::npos) << o2.ir();
  EXPECT_EQ(o2.cuda_source().find("* 3"), std::string::npos) << o2.cuda_source();
  EXPECT_NE(o0.ir().find("3i32"), std::string::npos) << o0.ir();
  g::buffer<int> a(std::vector<int>{1, 2}, o2.where());
  g::buffer<int> b(std::vector<int>{1, 2}, o0.where());
  o2.launch(1, 2, a, 2);
  o0.launch(1, 2, b, 2);
  EXPECT_EQ(a.to_vector(), (std::vector<int>{1, 2}));
  EXPECT_EQ(b.to_vector(), (std::vector<int>{3, 6}));
}

TEST(PegOnKernels, AugurDumpPegReportsKernels) {
  const char* previous = std::getenv("AUGUR_DUMP");
  const std::string saved = previous ? previous : "";
  ::setenv("AUGUR_DUMP", "peg", 1);
  ::testing::internal::CaptureStderr();
  g::compile(on_cpu("dumped_kernel"), times_three);
  const std::string dumped = ::testing::internal::GetCapturedStderr();
  if (previous) {
    ::setenv("AUGUR_DUMP", saved.c_str(), 1);
  } else {
    ::unsetenv("AUGUR_DUMP");
  }
  EXPECT_NE(dumped.find("dumped_kernel"), std::string::npos) << dumped;
  EXPECT_NE(dumped.find("after the PEG optimizer"), std::string::npos) << dumped;
}

// Kernels for the differential test: loops with invariants, static unrolling,
// shared memory and barriers, atomics, floats.
void loop_sum(jit::dyn<int*> out, jit::dyn<int*> in, jit::dyn<int> n, int k) {
  jit::dyn<int> i = g::global_id_x();
  if (i < n) {
    jit::dyn<int> acc = 0;
    jit::dyn<int> j = 0;
    while (j < in[i] % 7 + 3) {
      acc = acc + in[i] * (2 * k + 1) + j * (n + k);
      j = j + 1;
    }
    out[i] = acc + in[i] * k + in[i] * k - (acc - acc);
  }
}

void block_sum(jit::dyn<int*> out, jit::dyn<int*> in) {
  g::shared_array<int, 64> tile("tile");
  jit::dyn<int> t = g::thread_idx_x();
  tile[t] = in[g::global_id_x()];
  g::barrier();
  for (jit::stat<int> s = 32; s > 0; s /= 2) {  // unrolled
    if (t < s.get()) tile[t] = tile[t] + tile[t + s.get()];
    g::barrier();
  }
  if (t == 0) out[g::block_idx_x()] = tile[0] * 1 + 0;
}

void histogram(jit::dyn<unsigned*> bins, jit::dyn<int*> in, jit::dyn<int> n) {
  jit::dyn<int> i = g::global_id_x();
  if (i < n) g::atomic_add(bins[(in[i] & 15) + 0], 1u + 0u);
}

void float_mix(jit::dyn<float*> y, jit::dyn<float*> x, jit::dyn<int> n, float a) {
  jit::dyn<int> i = g::global_id_x();
  if (i < n) {
    jit::dyn<float> s = 0.0f;
    for (jit::stat<int> t = 0; t < 3; t += 1) s = s + x[i] * a * 1.0f + y[i] * 0.5f;
    y[i] = s * 1.0f - 0.0f;
  }
}

template <class T>
std::vector<T> random_values(std::size_t count, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<T> values(count);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> d(-100, 100);
    for (T& v : values) v = d(random);
  } else {
    std::uniform_int_distribution<T> d(-1000, 1000);
    for (T& v : values) v = d(random);
  }
  return values;
}

class PegDifferential : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(PegDifferential, O0AndO2KernelsComputeTheSame) {
  const std::uint32_t seed = GetParam();
  constexpr int n = 256;
  const std::vector<int> ints = random_values<int>(n, seed);
  const std::vector<float> floats = random_values<float>(n, seed + 1);
  const auto ints_with = [&](int level) {
    std::vector<int> results;
    {
      const auto k = g::compile(on_cpu("diff_loop", level), loop_sum, 5);
      g::buffer<int> out(n, k.where());
      g::buffer<int> in(ints, k.where());
      k.launch(4, 64, out, in, n - 3);
      results = out.to_vector();
    }
    {
      const auto k = g::compile(on_cpu("diff_block", level), block_sum);
      g::buffer<int> out(4, k.where());
      g::buffer<int> in(ints, k.where());
      k.launch(4, 64, out, in);
      for (int v : out.to_vector()) results.push_back(v);
    }
    {
      const auto k = g::compile(on_cpu("diff_histogram", level), histogram);
      g::buffer<unsigned> bins(16, k.where());
      g::buffer<int> in(ints, k.where());
      k.launch(4, 64, bins, in, n);
      for (unsigned v : bins.to_vector()) results.push_back(static_cast<int>(v));
    }
    return results;
  };
  const auto floats_with = [&](int level) {
    const auto k = g::compile(on_cpu("diff_float", level), float_mix, 1.5f);
    g::buffer<float> y(floats, k.where());
    g::buffer<float> x(random_values<float>(n, seed + 2), k.where());
    k.launch(4, 64, y, x, n);
    return y.to_vector();
  };
  EXPECT_EQ(ints_with(0), ints_with(2));
  const std::vector<float> f0 = floats_with(0);
  const std::vector<float> f2 = floats_with(2);
  for (std::size_t i = 0; i < f0.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(f0[i]), std::bit_cast<std::uint32_t>(f2[i])) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, PegDifferential, ::testing::Values(1u, 2u, 3u));

// Every test kernel (shared tiles, barriers, atomics, loops over the grid)
// through the optimizer of the kernel pipeline, against the interpreter
// running the kernel as staged.
class PegKernelCase : public ::testing::TestWithParam<std::string> {};

TEST_P(PegKernelCase, OptimizedAgreesWithTheInterpreter) {
  const KernelCase& c = kernel_case(GetParam());
  const ir::Module staged = c.module();
  ir::Module optimized = staged;
  cache::optimize(optimized, 2, ir::ExternTable{});
  const std::shared_ptr<const KernelCode> code = build_kernel(optimized, on_cpu(c.name.c_str()));
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    KernelInputs expected(c, seed);
    KernelInputs actual(c, seed);
    interpret(staged, c, expected);
    std::vector<std::uint64_t> bits;
    for (const ir::Value& v : actual.values()) bits.push_back(v.bits);
    code->launch({c.grid, c.block, nullptr, bits, nullptr});
    EXPECT_TRUE(same_memory(c, expected, actual)) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, PegKernelCase, ::testing::ValuesIn(kernel_case_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace augur::gpu::testing
