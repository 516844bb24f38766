#include "tests/support/bf_like_program.h"

#include <utility>
#include <vector>

#include "runtime/ir/builder.h"
#include "tests/support/rng.h"

namespace augur::testing {

namespace {

using ir::BinaryOp;
using ir::ExprPtr;
using ir::Stmt;
using ir::Type;

// Static pointer offsets stay in [0, kWindow) from where the last scan loop
// left the pointer, which is below kScanLimit: inside the tape.
constexpr std::int64_t kWindow = 32;
constexpr std::int64_t kScanLimit = 512;  // a power of two: the wrap is a mask
static_assert(kScanLimit + kWindow <= static_cast<std::int64_t>(kBfTapeLength));

// A block being filled: the function body, a counted loop's body or an if's.
struct Frame {
  enum Kind { Body, Loop, If } kind = Body;
  ExprPtr cond;            // Loop, If
  ir::Block block;         // its statements so far
  std::int64_t entry = 0;  // the pointer offset the block must end at
  std::size_t budget = 0;  // statements it may still get
};

class Generator {
 public:
  explicit Generator(const BfLikeOptions& options)
      : options_(options), rng_(options.seed), b_("bf", Type::i64()) {
    const Type bytes = Type::pointer_to(ir::Scalar::U8);
    tape_ = b_.param("tape", bytes);
    input_ = b_.param("input", bytes);
    output_ = b_.param("output", bytes);
    ptr_ = b_.declare("ptr", Type::i64(), i64(0));
    in_ = b_.declare("in", Type::i64(), i64(0));
    out_ = b_.declare("out", Type::i64(), i64(0));
  }

  RandomProgram generate() && {
    frames_.push_back({Frame::Body, nullptr, {}, 0, options_.statements});
    while (true) {
      Frame& top = frames_.back();
      const bool done = emitted_ >= options_.statements;
      if (top.kind != Frame::Body && (done || top.budget == 0)) {
        close();
        continue;
      }
      if (done) break;
      step();
    }
    for (Stmt& stmt : frames_.back().block) b_.emit(std::move(stmt));
    b_.return_(b_.read(out_));
    RandomProgram program;
    program.module.functions.push_back(std::move(b_).finish());
    program.entry = "bf";
    const Type bytes = Type::pointer_to(ir::Scalar::U8);
    program.params = {{"tape", bytes, kBfTapeLength},
                      {"input", bytes, kBfIoLength},
                      {"output", bytes, kBfIoLength}};
    program.nodes = count_statements(program.module.functions.front());
    return program;
  }

 private:
  static ExprPtr i64(std::int64_t v) { return ir::constant<std::int64_t>(v); }
  static ExprPtr u8(std::uint8_t v) { return ir::constant<std::uint8_t>(v); }
  ExprPtr cell() const { return ir::load(b_.read(tape_), b_.read(ptr_)); }
  ExprPtr wrapped(ir::VarId index) const {
    return ir::binary(BinaryOp::BitAnd, b_.read(index), i64(kBfIoLength - 1));
  }

  void emit(Stmt stmt) {
    frames_.back().block.push_back(std::move(stmt));
    count_one();
  }

  // One more statement in the innermost block (a loop or if counts when opened).
  void count_one() {
    if (frames_.back().budget > 0) --frames_.back().budget;
    ++emitted_;
  }

  void move_by(std::int64_t delta) {
    if (delta == 0) return;
    const BinaryOp op = delta > 0 ? BinaryOp::Add : BinaryOp::Sub;
    emit(Stmt::assign(ptr_, ir::binary(op, b_.read(ptr_), i64(delta > 0 ? delta : -delta))));
    pos_ += delta;
  }

  void set_cell(ExprPtr value) {
    emit(Stmt::store(b_.read(tape_), b_.read(ptr_), std::move(value)));
  }

  // Whether the cell under the pointer counts the iterations of a loop around.
  bool is_counter() const {
    for (const Frame& frame : frames_) {
      if (frame.kind == Frame::Loop && frame.entry == pos_) return true;
    }
    return false;
  }

  // Loops and ifs nest max_loop_depth deep, and fewer open inside others, so
  // that a nest stays small as in real programs (a loop of 2-14 statements
  // each opening a block with a fixed chance would nest without end).
  bool may_nest() {
    const std::size_t depth = frames_.size() - 1;
    return depth < options_.max_loop_depth && (depth == 0 || rng_.chance(35));
  }

  void step() {
    const std::uint64_t r = rng_.below(100);
    if (r < 30) {
      std::int64_t delta = rng_.between(-3, 3);
      if (pos_ + delta < 0 || pos_ + delta >= kWindow) delta = -delta;
      move_by(delta);
    } else if (r < 36) {
      emit(Stmt::store(b_.read(output_), wrapped(out_), cell()));
      emit(Stmt::assign(out_, ir::binary(BinaryOp::Add, b_.read(out_), i64(1))));
    } else if (r < 42 && !is_counter()) {
      read_input(nullptr);
    } else if (r < 58 && !is_counter() && may_nest()) {
      open_loop();
    } else if (r < 63 && may_nest()) {
      open_if();
    } else if (r < 65 && frames_.size() == 1) {
      scan();
    } else if (!is_counter()) {
      const auto c = static_cast<std::uint8_t>(rng_.between(1, 255));
      set_cell(ir::binary(BinaryOp::Add, cell(), u8(c)));
    } else {
      move_by(pos_ + 1 < kWindow ? 1 : -1);
    }
  }

  // tape[ptr] = input[in] (& mask); in = in + 1.
  void read_input(ExprPtr mask) {
    ExprPtr value = ir::load(b_.read(input_), wrapped(in_));
    if (mask) value = ir::binary(BinaryOp::BitAnd, std::move(value), std::move(mask));
    set_cell(std::move(value));
    emit(Stmt::assign(in_, ir::binary(BinaryOp::Add, b_.read(in_), i64(1))));
  }

  // The counter comes from the input, 0..7 iterations.
  void open_loop() {
    read_input(u8(7));
    count_one();
    frames_.push_back({Frame::Loop,
                       ir::binary(BinaryOp::Ne, cell(), u8(0)),
                       {},
                       pos_,
                       static_cast<std::size_t>(rng_.between(2, 14))});
    set_cell(ir::binary(BinaryOp::Sub, cell(), u8(1)));
  }

  void open_if() {
    count_one();
    const auto threshold = static_cast<std::uint8_t>(rng_.between(0, 254));
    frames_.push_back({Frame::If,
                       ir::binary(BinaryOp::Gt, cell(), u8(threshold)),
                       {},
                       pos_,
                       static_cast<std::size_t>(rng_.between(1, 6))});
  }

  // [>] or [<], bounded by the tape's first half, where the pointer is put
  // back (a wrap) so that the offsets after it stay inside the tape.
  void scan() {
    const bool right = rng_.chance(50);
    ExprPtr bound = right ? ir::binary(BinaryOp::Lt, b_.read(ptr_), i64(kScanLimit))
                          : ir::binary(BinaryOp::Gt, b_.read(ptr_), i64(0));
    ExprPtr cond = ir::binary(BinaryOp::And, ir::binary(BinaryOp::Ne, cell(), u8(0)), bound);
    ir::Block body;
    body.push_back(Stmt::assign(
        ptr_, ir::binary(right ? BinaryOp::Add : BinaryOp::Sub, b_.read(ptr_), i64(1))));
    emit(Stmt::while_(std::move(cond), std::move(body)));
    ++emitted_;  // the body's statement
    emit(Stmt::assign(ptr_, ir::binary(BinaryOp::BitAnd, b_.read(ptr_), i64(kScanLimit - 1))));
    pos_ = 0;
  }

  void close() {
    move_by(frames_.back().entry - pos_);
    Frame frame = std::move(frames_.back());
    frames_.pop_back();
    frames_.back().block.push_back(frame.kind == Frame::Loop
                                       ? Stmt::while_(frame.cond, std::move(frame.block))
                                       : Stmt::if_(frame.cond, std::move(frame.block)));
  }

  BfLikeOptions options_;
  Rng rng_;
  ir::FunctionBuilder b_;
  ir::VarId tape_, input_, output_, ptr_, in_, out_;
  std::vector<Frame> frames_;
  std::int64_t pos_ = 0;
  std::size_t emitted_ = 0;
};

}  // namespace

RandomProgram bf_like_program(const BfLikeOptions& options) {
  return Generator(options).generate();
}

std::size_t count_statements(const ir::Function& function) {
  std::size_t count = 0;
  std::vector<const ir::Block*> pending = {&function.body};
  while (!pending.empty()) {
    const ir::Block* block = pending.back();
    pending.pop_back();
    count += block->size();
    for (const Stmt& stmt : *block) {
      for (const ir::Block* nested : {&stmt.body, &stmt.orelse, &stmt.init, &stmt.step}) {
        pending.push_back(nested);
      }
    }
  }
  return count;
}

}  // namespace augur::testing
