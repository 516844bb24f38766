// GPU intrinsics in the staging front end: thread indices, shared arrays,
// barriers and atomics become IR in kernels, and are errors elsewhere.
#include <gtest/gtest.h>

#include "jit/gpu.h"
#include "jit/jit.h"
#include "runtime/ir/verifier.h"
#include "runtime/stage/extract.h"

namespace augur::gpu::testing {
namespace {

namespace g = jit::gpu;

jit::extract_options kernel_options(const char* name) {
  jit::extract_options options;
  options.name = name;
  options.kernel = true;
  return options;
}

void reverse_block(jit::dyn<float*> v) {
  g::shared_array<float, 32> tile("tile");
  jit::dyn<int> t = g::thread_idx_x();
  tile[t] = v[g::global_id_x()];
  g::barrier();
  v[g::global_id_x()] = tile[31 - t];
}

TEST(GpuStaging, SharedArraysBarriersAndIndicesBecomeIr) {
  const jit::extraction e = jit::extract(kernel_options("reverse"), reverse_block);
  EXPECT_EQ(e.ir(),
            "kernel fn reverse(arg0: f32*) -> void {\n"
            "  shared tile: f32[32];\n"
            "  var var0: i32 = thread_idx.x;\n"
            "  tile[var0] = arg0[block_idx.x * block_dim.x + thread_idx.x];\n"
            "  barrier;\n"
            "  arg0[block_idx.x * block_dim.x + thread_idx.x] = tile[31i32 - var0];\n"
            "}\n");
  EXPECT_NO_THROW(ir::verify(e.result().extracted.module));
}

void counts(jit::dyn<unsigned*> bins, jit::dyn<long long*> extremes, jit::dyn<int*> flags) {
  jit::dyn<int> i = g::global_id_x();
  jit::dyn<unsigned> old = g::atomic_add(bins[i % 4], 1u);
  g::atomic_max(extremes[0], jit::cast<long long>(old));
  g::atomic_min(extremes[1], jit::cast<long long>(i));
  g::atomic_exchange(flags[i], 5);
  g::atomic_cas(flags[0], 0, i);
}

TEST(GpuStaging, AtomicsActWhereTheyAreWritten) {
  const jit::extraction e = jit::extract(kernel_options("counts"), counts);
  EXPECT_EQ(e.ir(),
            "kernel fn counts(arg0: u32*, arg1: i64*, arg2: i32*) -> void {\n"
            "  var var0: i32 = block_idx.x * block_dim.x + thread_idx.x;\n"
            "  var var1: u32 = atomic_add(arg0, var0 % 4i32, 1u32);\n"
            "  var var2: u32 = var1;\n"
            "  var var3: i64 = atomic_max(arg1, 0i32, i64(var2));\n"
            "  var var4: i64 = atomic_min(arg1, 1i32, i64(var0));\n"
            "  var var5: i32 = atomic_exchange(arg2, var0, 5i32);\n"
            "  var var6: i32 = atomic_cas(arg2, 0i32, 0i32, var0);\n"
            "}\n");
}

void uses_index(jit::dyn<int*> p) {
  p[0] = g::thread_idx_x();
}
void uses_barrier(jit::dyn<int*> p) {
  p[0] = 1;
  g::barrier();
}
void uses_shared(jit::dyn<int*> p) {
  g::shared_array<int, 4> s;
  p[0] = s[0];
}

TEST(GpuStaging, IntrinsicsOutsideKernelsAreErrors) {
  for (auto* fn : {&uses_index, &uses_barrier, &uses_shared}) {
    try {
      jit::extract(fn);
      ADD_FAILURE() << "expected a staging_error";
    } catch (const jit::staging_error& e) {
      EXPECT_NE(e.message().find("not extracted as a GPU kernel"), std::string::npos)
          << e.message();
    }
  }
  EXPECT_THROW(g::thread_idx_x(), jit::staging_error);  // outside any extraction
}

void shared_under_branch(jit::dyn<int*> p) {
  if (p[0] > 0) {
    g::shared_array<int, 4> s;
    p[1] = s[0];
  }
}

TEST(GpuStaging, SharedArraysBelongAtTheTopLevel) {
  EXPECT_THROW(
      {
        const jit::extraction e = jit::extract(kernel_options("bad"), shared_under_branch);
        ir::verify(e.result().extracted.module);
      },
      jit::verify_error);
}

// A shared array declared in a static loop is one array per iteration.
void two_arrays(jit::dyn<int*> p) {
  for (jit::stat<int> k = 0; k < 2; ++k) {
    g::shared_array<int, 8> s;
    s[g::thread_idx_x()] = p[k];
    p[k + 2] = s[0];
  }
}

TEST(GpuStaging, SharedArraysInAStaticLoopAreDistinct) {
  const jit::extraction e = jit::extract(kernel_options("two"), two_arrays);
  const ir::Function& fn = e.result().extracted.module.functions[0];
  int shared = 0;
  for (const ir::Variable& v : fn.vars) shared += v.kind == ir::VarKind::Shared ? 1 : 0;
  EXPECT_EQ(shared, 2) << e.ir();
  EXPECT_NO_THROW(ir::verify(e.result().extracted.module));
}

}  // namespace
}  // namespace augur::gpu::testing
