// Kernels with barriers on the CPU fallback. The CPU backend runs a block's
// threads one after another, which a barrier cannot interrupt; so such a
// kernel is rewritten as an ordinary function that runs one thread, and each
// thread of a block runs as a fiber (fiber_block.h) that yields at barriers:
//
//   kernel fn k(p: f32*, n: i32) { shared s: f32[64]; ... barrier; ... }
// becomes
//   fn k.thread(args: u64*, ctx: i32*, shared_memory: u8*) -> void {
//     var p: f32* = f32*(args[0]);                  // arguments, from their canonical bits
//     var n: i32 = i32*(args + 1)[0];
//     var s: f32* = f32*(shared_memory + 0i64);     // the block's shared memory
//     ... thread_idx.x is ctx[0], block_idx.y ctx[4], ...
//     @augur_gpu_barrier(); ...
//   }
#pragma once

#include <string>

#include "jit/cpu/abi.h"
#include "runtime/ir/ir.h"

namespace augur::gpu {

// The effectful extern a thread function calls at each barrier.
inline constexpr const char* kBarrierExtern = "augur_gpu_barrier";

// ctx[] of a thread function: thread_idx x y z, block_idx x y z, block_dim
// x y z, grid_dim x y z (the order of ir::GpuIndex).
inline constexpr int kContextSize = 12;

struct ThreadFunction {
  ir::Module module;         // the function, and the barrier extern it calls
  std::string name;          // "<kernel>.thread"
  cpu::SharedLayout shared;  // the kernel's shared arrays in the block's memory
};

bool has_barrier(const ir::Function& kernel);

// `kernel` must verify.
ThreadFunction lower_to_thread_function(const ir::Function& kernel);

}  // namespace augur::gpu
