#include "runtime/stage/stmt_stack.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "runtime/stage/huge_pages.h"

namespace augur::stage {

void StmtStack::push(ir::Stmt s) {
  if (stmts_.size() == stmts_.capacity()) grow();
  stmts_.push_back(std::move(s));
}

void StmtStack::grow() {
  ir::Block next;
  next.reserve(std::max<std::size_t>(64, 2 * stmts_.capacity()));
  advise_huge_pages(next.data(), next.capacity() * sizeof(ir::Stmt));
  std::move(stmts_.begin(), stmts_.end(), std::back_inserter(next));
  stmts_ = std::move(next);
}

ir::Block StmtStack::take(std::size_t mark) {
  const std::size_t count = stmts_.size() - mark;
  if (mark == 0 && 2 * count >= stmts_.capacity()) return std::exchange(stmts_, {});
  ir::Block block;
  block.reserve(count);
  advise_huge_pages(block.data(), block.capacity() * sizeof(ir::Stmt));
  const auto from = stmts_.begin() + static_cast<std::ptrdiff_t>(mark);
  std::move(from, stmts_.end(), std::back_inserter(block));
  stmts_.erase(from, stmts_.end());
  return block;
}

}  // namespace augur::stage
