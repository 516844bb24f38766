// The statements of the blocks that structuring is emitting, innermost block
// last: statements are appended as they are emitted, and a finished block is
// taken off the top. The stack is one vector whose large buffers are advised
// as huge pages before anything is moved into them (a block of a million
// statements grown by doubling touches twice its size in fresh memory, and
// in 4 KiB pages that is a fault every 25 statements); a block that fills
// at least half of the stack's buffer takes the buffer itself (the outermost
// one, which is the biggest, is never copied), any other is moved into a
// vector of its exact size.
#pragma once

#include <cstddef>

#include "runtime/ir/ir.h"

namespace augur::stage {

class StmtStack {
 public:
  // How many statements are waiting: a mark for take().
  std::size_t size() const { return stmts_.size(); }
  void push(ir::Stmt s);
  // The statements from `mark` on, as a block; they leave the stack.
  ir::Block take(std::size_t mark);

 private:
  void grow();

  ir::Block stmts_;
};

}  // namespace augur::stage
