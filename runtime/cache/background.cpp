// The TBB pool that runs jit::compile_async and the hot-swap layer's
// background compiles. Each job runs isolated: a worker that waits inside one
// (for a compilation in flight, or in a nested parallel loop) never picks up
// another job meanwhile, which could wait on the first and deadlock.
#include <utility>

#include <tbb/task_arena.h>

#include "jit/compiler.h"

namespace jit::detail {

namespace {

// A pool task running one job. The job's state moves onto the worker's stack
// while it runs and dies with it: a caller woken by the job (a promise it
// sets) may exit the process before the pool frees the task, and the pool's
// task memory is not where a leak checker looks for live pointers. TBB calls
// tasks as const, hence the mutable member.
struct BackgroundTask {
  mutable std::function<void()> job;

  void operator()() const {
    const std::function<void()> running = std::move(job);
    tbb::this_task_arena::isolate([&] { running(); });
  }
};

}  // namespace

void run_in_background(std::function<void()> job) {
  tbb::this_task_arena::enqueue(BackgroundTask{std::move(job)});
}

}  // namespace jit::detail
