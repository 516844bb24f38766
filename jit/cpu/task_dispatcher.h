// Runs ORC's tasks (materialization: optimization, code generation, linking)
// on a TBB arena, so that modules compile concurrently.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>

#include <llvm/ExecutionEngine/Orc/TaskDispatch.h>
#include <tbb/task_arena.h>

namespace augur::cpu {

// Tasks wait in the dispatcher's own queue; TBB gets functors that hold
// nothing but the dispatcher, so no task is owned by memory TBB frees on its
// own schedule (possibly after the process has begun to exit).
//
// A thread that is itself running in a TBB arena runs the task in place: it
// may be about to block on the task's result, and with every TBB worker
// blocked that way the task would never run. So does a thread inside a
// CompileOnThisThread scope (compile.h).
class TbbTaskDispatcher final : public llvm::orc::TaskDispatcher {
 public:
  void dispatch(std::unique_ptr<llvm::orc::Task> task) override;
  // Waits for every task dispatched to the arena.
  void shutdown() override;

 private:
  void run_next();
  void finished();

  tbb::task_arena arena_;
  std::mutex mutex_;
  std::condition_variable idle_;
  std::deque<std::unique_ptr<llvm::orc::Task>> queue_;
  std::size_t outstanding_ = 0;  // queued or running
};

}  // namespace augur::cpu
