// The CPU fallback: every test kernel, compiled by the CPU backend with the
// grid emulated, leaves the same memory as the interpreter on random inputs;
// kernels with barriers run on fibers; the public API end to end.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

#include "gpu/fallback.h"
#include "jit/cpu/statistics.h"
#include "jit/gpu.h"
#include "jit/jit.h"
#include "runtime/ir/parser.h"
#include "support.h"

namespace augur::gpu::testing {
namespace {

jit::gpu::options on_cpu(int opt_level) {
  jit::gpu::options options;
  options.where = jit::gpu::target::cpu;
  options.cpu_opt_level = opt_level;
  options.disk_cache = false;
  return options;
}

void launch(const KernelCode& code, const KernelCase& c, const KernelInputs& inputs) {
  std::vector<std::uint64_t> bits;
  for (const ir::Value& v : inputs.values()) bits.push_back(v.bits);
  code.launch({c.grid, c.block, nullptr, bits, nullptr});
}

struct FallbackCase {
  std::string kernel;
  int opt_level;

  friend std::ostream& operator<<(std::ostream& out, const FallbackCase& c) {
    return out << c.kernel << " at O" << c.opt_level;
  }
};

class Fallback : public ::testing::TestWithParam<FallbackCase> {};

// Compiled and loaded at once, and through the artifact a disk cache stores.
TEST_P(Fallback, AgreesWithTheInterpreter) {
  const KernelCase& c = kernel_case(GetParam().kernel);
  const ir::Module module = c.module();
  const jit::gpu::options options = on_cpu(GetParam().opt_level);
  for (const auto& code : {build_kernel(module, options), reload_kernel(module, options)}) {
    EXPECT_EQ(code->where(), jit::gpu::backend::cpu);
    EXPECT_EQ(code->name(), module.functions[0].name);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      KernelInputs expected(c, seed);
      KernelInputs actual(c, seed);
      interpret(module, c, expected);
      launch(*code, c, actual);
      EXPECT_TRUE(same_memory(c, expected, actual)) << "seed " << seed;
    }
  }
}

std::vector<FallbackCase> fallback_cases() {
  std::vector<FallbackCase> out;
  for (const std::string& name : kernel_case_names()) {
    out.push_back({name, 0});
    out.push_back({name, 2});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Kernels, Fallback, ::testing::ValuesIn(fallback_cases()),
                         [](const auto& info) {
                           return info.param.kernel + "_O" + std::to_string(info.param.opt_level);
                         });

TEST(FallbackKernels, BarriersRunOnFibersTheOthersOnTheCpuBackend) {
  const ir::Module with = kernel_case("block_sum").module();
  const ir::Module without = kernel_case("scale").module();
  const auto fibers = [](const ir::Module& module) {
    return std::static_pointer_cast<const FallbackKernel>(build_kernel(module, on_cpu(1)))
        ->uses_fibers();
  };
  EXPECT_TRUE(fibers(with));
  EXPECT_FALSE(fibers(without));
}

TEST(FallbackKernels, BarrierDivergenceIsAnError) {
  // Thread 0 leaves before the barrier the others wait at.
  const ir::Module module = ir::parse_module(
      "kernel fn diverge(out: i32*) -> void {\n"
      "  if (thread_idx.x == 0i32) {\n"
      "    return;\n"
      "  }\n"
      "  barrier;\n"
      "  out[thread_idx.x] = 1i32;\n"
      "}\n");
  const std::shared_ptr<const KernelCode> code = build_kernel(module, on_cpu(1));
  std::vector<std::int32_t> out(8);
  const std::uint64_t bits[] = {ir::Value::of(out.data()).bits};
  try {
    code->launch({{2, 1, 1}, {8, 1, 1}, nullptr, bits, nullptr});
    FAIL() << "expected barrier divergence";
  } catch (const jit::error& e) {
    EXPECT_NE(e.message().find("1 threads finished while 7 waited at a barrier"), std::string::npos)
        << e.message();
  }
}

TEST(FallbackKernels, LaunchesAreChecked) {
  const std::shared_ptr<const KernelCode> code =
      build_kernel(kernel_case("scale").module(), on_cpu(1));
  std::vector<float> v(4);
  const std::uint64_t bits[] = {ir::Value::of(v.data()).bits, 4};
  EXPECT_THROW(code->launch({{0, 1, 1}, {4, 1, 1}, nullptr, bits, nullptr}), jit::error);
  EXPECT_THROW(code->launch({{1, 1, 1}, {2048, 1, 1}, nullptr, bits, nullptr}), jit::error);
  EXPECT_THROW(code->launch({{1, 1, 1}, {4, 1, 1}, nullptr, std::span(bits, 1), nullptr}),
               jit::error);
  // 2^30 * 2^30 * 16 blocks is 2^64: counted in 64 bits, no block at all.
  EXPECT_THROW(code->launch({{1u << 30, 1u << 30, 16}, {4, 1, 1}, nullptr, bits, nullptr}),
               jit::error);
}

// ---------------------------------------------------------------- the public API

void scale(jit::dyn<float*> v, jit::dyn<int> n, float a) {
  jit::dyn<int> i = jit::gpu::global_id_x();
  if (i < n) v[i] = v[i] * a;
}

TEST(FallbackApi, CompileLaunchAndCopyBack) {
  jit::gpu::options options;
  options.where = jit::gpu::target::cpu;
  options.name = "scale";
  const jit::gpu::kernel<float*, int> k = jit::gpu::compile(options, scale, 3.0f);
  EXPECT_EQ(k.where(), jit::gpu::backend::cpu);
  EXPECT_EQ(k.name(), "scale");
  EXPECT_NE(k.ir().find("3.0f32"), std::string::npos) << k.ir();
  EXPECT_NE(k.cuda_source().find("* 3.0f"), std::string::npos) << k.cuda_source();

  std::vector<float> host(1000);
  std::iota(host.begin(), host.end(), 0.0f);
  jit::gpu::buffer<float> v(host, k.where());
  k.launch({8}, {128}, v, 1000);
  const std::vector<float> out = v.to_vector();
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_EQ(out[i], host[i] * 3.0f) << i;

  jit::gpu::stream s(k.where());
  k.launch({8}, {128}, v, 10, s);  // only the first 10
  s.synchronize();
  EXPECT_EQ(v.to_vector()[9], 9.0f * 9.0f);
  EXPECT_EQ(v.to_vector()[10], 30.0f);
}

// The forms without options, in a file that includes jit/jit.h too: jit::compile
// must not be found beside jit::gpu::compile (it once was, by argument-dependent
// lookup, and no such call compiled). Automatic target: the GPU where there is one.
TEST(FallbackApi, CompileWithDefaultOptionsBesideJitCompile) {
  const auto k = jit::gpu::compile(scale, 2.0f);
  jit::gpu::buffer<float> v(std::vector<float>(256, 1.5f), k.where());
  k.launch({2}, {128}, v, 256);
  EXPECT_EQ(v.to_vector(), std::vector<float>(256, 3.0f));
  std::future<jit::gpu::kernel<float*, int>> pending = jit::gpu::compile_async(scale, 4.0f);
  EXPECT_EQ(pending.get().where(), k.where());
}

TEST(FallbackApi, TheSameKernelIsCompiledOnce) {
  jit::gpu::options options;
  options.where = jit::gpu::target::cpu;
  options.name = "scale_once";
  const std::uint64_t before = jit::gpu::stats().fallback_compiles;
  const auto a = jit::gpu::compile(options, scale, 1.25f);
  const auto b = jit::gpu::compile(options, scale, 1.25f);
  EXPECT_EQ(jit::gpu::stats().fallback_compiles, before + 1);
  const auto c = jit::gpu::compile(options, scale, 1.5f);  // another constant, another kernel
  EXPECT_EQ(jit::gpu::stats().fallback_compiles, before + 2);
}

TEST(FallbackApi, CompileAsyncDeliversTheKernelOrTheError) {
  jit::gpu::options options;
  options.where = jit::gpu::target::cpu;
  std::future<jit::gpu::kernel<float*, int>> pending =
      jit::gpu::compile_async(options, scale, 0.5f);
  const jit::gpu::kernel<float*, int> k = pending.get();
  std::vector<float> host = {2.0f, 4.0f};
  jit::gpu::buffer<float> v(host, k.where());
  k.launch(1, 2, v, 2);
  EXPECT_EQ(v.to_vector(), (std::vector<float>{1.0f, 2.0f}));

  jit::gpu::options invalid = options;
  invalid.name = "not a name";  // the verifier refuses it
  auto failing = jit::gpu::compile_async(invalid, scale, 0.5f);
  EXPECT_THROW(failing.get(), jit::verify_error);
}

// Threads waiting for a fallback kernel another thread compiles may hold
// every TBB worker (compile_async jobs asking for the same kernel): the
// compile must need none, or it waits for them as they wait for it.
TEST(FallbackApi, TheCompileRunsNoTaskOnThePool) {
  jit::gpu::options options;
  options.where = jit::gpu::target::cpu;
  options.name = "scale_here";
  const std::uint64_t on_pool = cpu::statistics().tasks_on_pool;
  const auto k = jit::gpu::compile(options, scale, 1.75f);
  EXPECT_EQ(cpu::statistics().tasks_on_pool, on_pool);
}

// 2^61 + 1 doubles are 2^64 + 8 bytes: wrapped, that was an 8-byte buffer
// that the next copy overflowed.
TEST(FallbackApi, BufferSizesThatOverflowAreRejected) {
  const std::size_t count = (std::size_t{1} << 61) + 1;
  try {
    jit::gpu::buffer<double> b(count, jit::gpu::backend::cpu);
    FAIL() << "allocated " << b.size() << " doubles";
  } catch (const jit::error& e) {
    EXPECT_NE(e.message().find("jit::gpu::buffer: 2305843009213693953 elements of 8 bytes"),
              std::string::npos)
        << e.message();
  }
  EXPECT_THROW(jit::gpu::buffer<std::uint16_t>(SIZE_MAX / 2 + 1, jit::gpu::backend::cpu),
               jit::error);
}

TEST(FallbackApi, AnEmptyKernelCannotLaunch) {
  const jit::gpu::kernel<int> k;
  EXPECT_FALSE(k);
  EXPECT_THROW(k.launch(1, 1, 3), jit::error);
}

}  // namespace
}  // namespace augur::gpu::testing
