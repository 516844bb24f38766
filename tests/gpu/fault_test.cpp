// A kernel that faults on the device (here: a write far outside any
// allocation) is a jit::gpu_error that says the context is lost, later GPU
// calls are errors too, and the process goes on. Its own binary: the fault
// leaves CUDA's context unusable for every test after it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jit/gpu.h"
#include "jit/jit.h"

namespace augur::gpu::testing {
namespace {

void wild_write(jit::dyn<int*> out, jit::dyn<std::int64_t> offset) {
  out[offset] = 1;
}

void fill(jit::dyn<int*> out, jit::dyn<int> n) {
  jit::dyn<int> i = jit::gpu::global_id_x();
  if (i < n) out[i] = 7;
}

TEST(DeviceFault, IsAnErrorAndTheProcessGoesOn) {
  if (!jit::gpu::available()) GTEST_SKIP() << "no GPU: " << jit::gpu::unavailable_reason();
  const auto wild = jit::gpu::compile(wild_write);
  const auto good = jit::gpu::compile(fill);  // compiled and loaded before the fault
  jit::gpu::buffer<int> out(32);
  std::string first;
  try {
    wild.launch({1}, {1}, out, std::int64_t{1} << 40);
    jit::gpu::synchronize();
  } catch (const jit::gpu_error& e) {
    first = e.what();
  }
  ASSERT_NE(first, "") << "a write 4 TiB past a buffer did not fault";
  EXPECT_NE(first.find("context unusable"), std::string::npos) << first;

  std::string later;
  try {
    good.launch({1}, {32}, out, 32);
    (void)out.to_vector();
  } catch (const jit::gpu_error& e) {
    later = e.what();
  }
  EXPECT_NE(later, "") << "the broken context went on working";

  // The CPU fallback does not depend on the device.
  jit::gpu::options on_cpu;
  on_cpu.where = jit::gpu::target::cpu;
  const auto fallback = jit::gpu::compile(on_cpu, fill);
  jit::gpu::buffer<int> host(32, jit::gpu::backend::cpu);
  fallback.launch({1}, {32}, host, 32);
  EXPECT_EQ(host.to_vector(), std::vector<int>(32, 7));
}

}  // namespace
}  // namespace augur::gpu::testing
