// The GPU itself: whether there is one and why not, and every test kernel run
// on it against the interpreter. Without a GPU these tests skip, saying why.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gpu/device.h"
#include "gpu/driver.h"
#include "jit/detail/gpu.h"
#include "jit/gpu.h"
#include "support.h"

namespace augur::gpu::testing {
namespace {

TEST(Device, AvailabilityComesWithAReason) {
  if (jit::gpu::available()) {
    EXPECT_EQ(jit::gpu::unavailable_reason(), "");
    const jit::gpu::device_info info = jit::gpu::device();
    EXPECT_FALSE(info.name.empty());
    EXPECT_GE(info.compute_major, 3);
    EXPECT_EQ(info.arch, "sm_" + std::to_string(info.compute_major * 10 + info.compute_minor));
    return;
  }
  const std::string reason = jit::gpu::unavailable_reason();
  EXPECT_FALSE(reason.empty());
  try {
    jit::gpu::device();
    FAIL() << "expected a gpu_error";
  } catch (const jit::gpu_error& e) {
    EXPECT_NE(e.message().find(reason), std::string::npos) << e.message();
  }
  jit::gpu::options cuda;
  cuda.where = jit::gpu::target::cuda;
  EXPECT_THROW(build_kernel(kernel_case("scale").module(), cuda), jit::gpu_error);
  EXPECT_THROW(jit::gpu::buffer<float>(4, jit::gpu::backend::cuda), jit::gpu_error);
  // Without a GPU everything defaults to the CPU fallback.
  EXPECT_EQ(jit::gpu::detail::default_backend(), jit::gpu::backend::cpu);
}

// A driver double, in process: the entry points the tests below reach, with
// the current context per thread as the real driver keeps it.
thread_local cu::Context fake_current = nullptr;
int fake_context_switches = 0;

cu::Result fake_get_current(cu::Context* context) {
  *context = fake_current;
  return cu::kSuccess;
}
cu::Result fake_set_current(cu::Context context) {
  fake_current = context;
  ++fake_context_switches;
  return cu::kSuccess;
}
cu::Result fake_error_name(cu::Result, const char** name) {
  *name = "CUDA_ERROR_FAKE";
  return cu::kSuccess;
}
cu::Result fake_error_string(cu::Result, const char** text) {
  *text = "fake";
  return cu::kSuccess;
}

cu::Api fake_api() {
  cu::Api api{};
  api.cuCtxGetCurrent = &fake_get_current;
  api.cuCtxSetCurrent = &fake_set_current;
  api.cuGetErrorName = &fake_error_name;
  api.cuGetErrorString = &fake_error_string;
  return api;
}

cu::Context context_at(std::uintptr_t address) {
  return reinterpret_cast<cu::Context>(address);
}

// The application switches this thread to another device's context between
// two of Augur's calls: Augur's next call binds its own context again, rather
// than trusting what it bound last time.
TEST(DeviceBinding, RebindsAfterTheApplicationSwitchesContexts) {
  const Driver driver(fake_api(), 12000);
  const Device device(driver, DeviceInfo{}, context_at(0x1000));
  fake_current = nullptr;
  fake_context_switches = 0;
  device.bind();
  EXPECT_EQ(fake_current, context_at(0x1000));
  device.bind();
  EXPECT_EQ(fake_context_switches, 1);  // already current: not set again

  fake_current = context_at(0x2000);  // cudaSetDevice(1), say
  device.bind();
  EXPECT_EQ(fake_current, context_at(0x1000));
  EXPECT_EQ(fake_context_switches, 2);
}

// CUDA_ERROR_LAUNCH_TIMEOUT (702) kills the context like a fault does.
TEST(DeviceBinding, ALaunchTimeoutLosesTheContext) {
  const Driver driver(fake_api(), 12000);
  for (const cu::Result lost : {700, 702, 719}) {
    try {
      driver.check(lost, "cuStreamSynchronize");
      FAIL() << lost << " passed";
    } catch (const jit::gpu_error& e) {
      EXPECT_NE(e.message().find("context unusable"), std::string::npos) << e.message();
    }
  }
  try {
    driver.check(2, "cuMemAlloc");  // CUDA_ERROR_OUT_OF_MEMORY leaves the context working
    FAIL() << "2 passed";
  } catch (const jit::gpu_error& e) {
    EXPECT_EQ(e.message().find("context unusable"), std::string::npos) << e.message();
  }
}

// The driver is loaded once per process, so each of these runs in a fresh one.
class DriverLoading : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

void expect_reason(const char* variable, const char* value, const std::string& expected) {
  setenv(variable, value, 1);
  const std::string reason = jit::gpu::unavailable_reason();
  std::exit(!jit::gpu::available() && reason.find(expected) != std::string::npos ? 0 : 1);
}

TEST_F(DriverLoading, AMissingLibraryIsReported) {
  EXPECT_EXIT(expect_reason("AUGUR_CUDA_DRIVER", "/nonexistent/libcuda-augur.so.1",
                            "/nonexistent/libcuda-augur.so.1"),
              ::testing::ExitedWithCode(0), "");
}

TEST_F(DriverLoading, ALibraryThatIsNoDriverIsReported) {
  EXPECT_EXIT(expect_reason("AUGUR_CUDA_DRIVER", "libm.so.6", "lacks entry point cuInit"),
              ::testing::ExitedWithCode(0), "");
}

TEST_F(DriverLoading, TheGpuCanBeHidden) {
  EXPECT_EXIT(expect_reason("AUGUR_GPU_DISABLE", "1", "disabled by AUGUR_GPU_DISABLE"),
              ::testing::ExitedWithCode(0), "");
}

class OnGpu : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!jit::gpu::available()) GTEST_SKIP() << "no GPU: " << jit::gpu::unavailable_reason();
  }
};

TEST_P(OnGpu, AgreesWithTheInterpreter) {
  using jit::gpu::backend;
  namespace detail = jit::gpu::detail;
  const KernelCase& c = kernel_case(GetParam());
  const ir::Module module = c.module();
  jit::gpu::options options;
  options.where = jit::gpu::target::cuda;
  // Compiled and loaded at once, and through the artifact a disk cache stores.
  for (const auto& code : {build_kernel(module, options), reload_kernel(module, options)}) {
    ASSERT_EQ(code->where(), backend::cuda);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      KernelInputs expected(c, seed);
      KernelInputs actual(c, seed);
      interpret(module, c, expected);
      // Device copies of the buffers; scalars as they are.
      std::vector<void*> device(c.args.size(), nullptr);
      std::vector<std::uint64_t> bits;
      for (std::size_t a = 0; a < c.args.size(); ++a) {
        if (c.args[a].count == 0) {
          bits.push_back(c.args[a].value.bits);
          continue;
        }
        std::vector<std::uint8_t>& host = actual.buffers()[a];
        device[a] = detail::allocate(host.size(), backend::cuda);
        detail::copy_to_device(device[a], host.data(), host.size(), backend::cuda);
        bits.push_back(ir::Value::of(device[a]).bits);
      }
      // Each argument's bits in a 64-bit slot: on a little-endian host a
      // pointer to the slot points at the value in its own type too.
      std::vector<std::uint64_t> slots = bits;
      std::vector<void*> params;
      for (std::uint64_t& s : slots) params.push_back(&s);
      code->launch({c.grid, c.block, params.data(), bits, nullptr});
      jit::gpu::synchronize();
      for (std::size_t a = 0; a < c.args.size(); ++a) {
        if (!device[a]) continue;
        std::vector<std::uint8_t>& host = actual.buffers()[a];
        detail::copy_to_host(host.data(), device[a], host.size(), backend::cuda);
        detail::release(device[a], backend::cuda);
      }
      EXPECT_TRUE(same_memory(c, expected, actual)) << "seed " << seed;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, OnGpu, ::testing::ValuesIn(kernel_case_names()),
                         [](const auto& info) { return info.param; });

void scale(jit::dyn<float*> v, jit::dyn<int> n, float a) {
  jit::dyn<int> i = jit::gpu::global_id_x();
  if (i < n) v[i] = v[i] * a;
}

TEST(OnGpuApi, BuffersStreamsAndLaunches) {
  if (!jit::gpu::available()) GTEST_SKIP() << "no GPU: " << jit::gpu::unavailable_reason();
  const auto k = jit::gpu::compile(scale, 2.0f);
  ASSERT_EQ(k.where(), jit::gpu::backend::cuda);
  std::vector<float> host(5000, 1.5f);
  jit::gpu::buffer<float> v(host);
  jit::gpu::stream s;
  k.launch({20}, {256}, v, 5000, s);
  s.synchronize();
  EXPECT_EQ(v.to_vector(), std::vector<float>(5000, 3.0f));
  // A CPU buffer passed to a GPU kernel is refused before launching.
  jit::gpu::buffer<float> on_cpu(4, jit::gpu::backend::cpu);
  EXPECT_THROW(k.launch(1, 4, on_cpu, 4), jit::error);
  const std::uint64_t loads = jit::gpu::stats().module_loads;
  const auto again = jit::gpu::compile(scale, 2.0f);  // from the memory cache, already loaded
  EXPECT_EQ(jit::gpu::stats().module_loads, loads);
}

// A JIT serves many threads: each compiles its own specialization (NVRTC,
// module load) and launches it on its own stream, all at once.
TEST(OnGpuApi, ThreadsCompileAndLaunchAtOnce) {
  if (!jit::gpu::available()) GTEST_SKIP() << "no GPU: " << jit::gpu::unavailable_reason();
  constexpr int kThreads = 8;
  constexpr int kRounds = 20;
  constexpr int kSize = 4096;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      try {
        const float factor = 3.0f + static_cast<float>(t);  // a specialization per thread
        const auto k = jit::gpu::compile(scale, factor);
        jit::gpu::stream s;
        for (int round = 0; round < kRounds; ++round) {
          std::vector<float> host(kSize, static_cast<float>(round));
          jit::gpu::buffer<float> v(host);
          k.launch({kSize / 128}, {128}, v, kSize, s);
          s.synchronize();
          if (v.to_vector() != std::vector<float>(kSize, static_cast<float>(round) * factor)) {
            failures[t] = "round " + std::to_string(round) + ": wrong values";
            return;
          }
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

// A launch the device refuses (a block 128 threads deep: the z extent is at
// most 64, which Augur leaves to the driver) is a jit::error naming the call,
// and the device keeps working for the next launch.
TEST(OnGpuApi, ARefusedLaunchIsAnErrorAndTheDeviceGoesOn) {
  if (!jit::gpu::available()) GTEST_SKIP() << "no GPU: " << jit::gpu::unavailable_reason();
  const auto k = jit::gpu::compile(scale, 2.0f);
  jit::gpu::buffer<float> v(std::vector<float>(4096, 1.0f));
  try {
    k.launch({1}, {1, 1, 128}, v, 4096);
    jit::gpu::synchronize();
    ADD_FAILURE() << "a block of 1 x 1 x 128 threads was launched";
  } catch (const jit::error& e) {
    EXPECT_NE(std::string(e.what()).find("cuLaunchKernel"), std::string::npos) << e.what();
  }
  k.launch({32}, {128}, v, 4096);
  EXPECT_EQ(v.to_vector(), std::vector<float>(4096, 2.0f));
}

}  // namespace
}  // namespace augur::gpu::testing
