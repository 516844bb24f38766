// The TBB pool that runs jit::compile_async and the hot-swap layer's
// background compiles. Each job runs isolated: a worker that waits inside one
// (for a compilation in flight, or in a nested parallel loop) never picks up
// another job meanwhile, which could wait on the first and deadlock.
#include <utility>

#include <tbb/task_arena.h>

#include "jit/compiler.h"

namespace jit::detail {

void run_in_background(std::function<void()> job) {
  tbb::this_task_arena::enqueue(
      [job = std::move(job)] { tbb::this_task_arena::isolate([&] { job(); }); });
}

}  // namespace jit::detail
