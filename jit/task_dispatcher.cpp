#include "jit/task_dispatcher.h"

#include "jit/statistics.h"

namespace augur::cpu {

void TbbTaskDispatcher::dispatch(std::unique_ptr<llvm::orc::Task> task) {
  if (tbb::this_task_arena::current_thread_index() != tbb::task_arena::not_initialized) {
    stats::count(stats::Counter::TasksInline);
    task->run();
    return;
  }
  stats::count(stats::Counter::TasksOnPool);
  {
    std::lock_guard lock(mutex_);
    ++outstanding_;
  }
  std::shared_ptr<llvm::orc::Task> shared(std::move(task));
  arena_.enqueue([this, shared] {
    shared->run();
    finished();
  });
}

void TbbTaskDispatcher::finished() {
  std::lock_guard lock(mutex_);
  if (--outstanding_ == 0) idle_.notify_all();
}

void TbbTaskDispatcher::shutdown() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return outstanding_ == 0; });
}

}  // namespace augur::cpu
