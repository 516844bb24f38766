#include "runtime/swap/background.h"

#include <utility>

#include <tbb/task_arena.h>

namespace augur::swap {

void run_in_background(std::function<void()> job) {
  tbb::this_task_arena::enqueue(std::move(job));
}

}  // namespace augur::swap
