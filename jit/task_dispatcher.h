// Runs ORC's tasks (materialization: optimization, code generation, linking)
// on a TBB arena, so that modules compile concurrently.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>

#include <llvm/ExecutionEngine/Orc/TaskDispatch.h>
#include <tbb/task_arena.h>

namespace augur::cpu {

// A thread that is itself running in a TBB arena runs the task in place: it
// may be about to block on the task's result, and with every TBB worker
// blocked that way the task would never run.
class TbbTaskDispatcher final : public llvm::orc::TaskDispatcher {
 public:
  void dispatch(std::unique_ptr<llvm::orc::Task> task) override;
  // Waits for every task dispatched to the arena.
  void shutdown() override;

 private:
  void finished();

  tbb::task_arena arena_;
  std::mutex mutex_;
  std::condition_variable idle_;
  std::size_t outstanding_ = 0;
};

}  // namespace augur::cpu
