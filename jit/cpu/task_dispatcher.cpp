#include "jit/cpu/task_dispatcher.h"

#include "jit/cpu/compile.h"
#include "jit/cpu/statistics.h"

namespace augur::cpu {

namespace {
thread_local int compile_here_depth = 0;
}  // namespace

CompileOnThisThread::CompileOnThisThread() {
  ++compile_here_depth;
}
CompileOnThisThread::~CompileOnThisThread() {
  --compile_here_depth;
}

void TbbTaskDispatcher::dispatch(std::unique_ptr<llvm::orc::Task> task) {
  if (compile_here_depth > 0 ||
      tbb::this_task_arena::current_thread_index() != tbb::task_arena::not_initialized) {
    stats::count(stats::Counter::TasksInline);
    task->run();
    return;
  }
  stats::count(stats::Counter::TasksOnPool);
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
    ++outstanding_;
  }
  arena_.enqueue([this] { run_next(); });
}

void TbbTaskDispatcher::run_next() {
  std::unique_ptr<llvm::orc::Task> task;
  {
    std::lock_guard lock(mutex_);
    task = std::move(queue_.front());
    queue_.pop_front();
  }
  task->run();
  task.reset();
  finished();
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
